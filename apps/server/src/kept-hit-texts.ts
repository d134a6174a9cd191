/**
 * A listing hit's JSON text, kept per revision: a hit's text is made of its version (or draft)
 * and its parent alone (serializeRecord reads nothing else, and no clock), and every write to
 * either bumps a revision, so text kept under both revisions is the text serializeRecord would
 * give again. Listings still read every hit's rows afresh; what is kept is only the work of
 * turning them into text. Bounded by size, least recently used out.
 */
import type { RecordView } from '@krs/domain';
import type { Links } from './links.ts';
import { serializeRecord } from './serialize.ts';

export function keptHitTexts(links: Links, maxChars: number) {
  const texts = new Map<string, string>();
  let chars = 0;
  return (view: RecordView, ui: boolean): string => {
    const { record, parent } = view;
    const key = `${record.kind}:${record.state}:${record.id}:${record.revisionId}.${parent.id}:${parent.revisionId}:${ui ? 'ui' : ''}`;
    const kept = texts.get(key);
    if (kept !== undefined) {
      texts.delete(key);
      texts.set(key, kept);
      return kept;
    }
    const text = JSON.stringify(serializeRecord(view, links, ui));
    // A record near the size limits would push out many others for little gain.
    if (text.length > maxChars / 16) return text;
    texts.set(key, text);
    chars += text.length;
    for (const [k, t] of texts) {
      if (chars <= maxChars) break;
      texts.delete(k);
      chars -= t.length;
    }
    return text;
  };
}
