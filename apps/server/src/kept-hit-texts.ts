/**
 * A listing hit's JSON text, kept per revision: a hit's text is made of its version (or draft),
 * its parent, whether the reader sees e-mail addresses, and the ids of the package it is part of
 * (serializeRecord reads nothing else, and no clock); every write to the version or its parent
 * bumps a revision, so text kept under both revisions and the same reading is the text
 * serializeRecord would give again. Listings still read every hit's rows afresh; what is kept is
 * only the work of turning them into text. Bounded by size, least recently used out.
 */
import type { RecordView } from '@krs/domain';
import type { Links } from './links.ts';
import { serializeRecord } from './serialize.ts';
import { sizeBoundedCache } from '@krs/adapters';

export function keptHitTexts(links: Links, maxChars: number) {
  // A record near the size limits would push out many others for little gain.
  const texts = sizeBoundedCache<string>(maxChars, (text) => text.length, maxChars / 16);
  return (view: RecordView, ui: boolean): string => {
    const { record, parent } = view;
    // A draft's text differs by reader: with e-mail addresses for its editors, without for a preview.
    // A managed resource names the package's parent and the version of it the reader may see (serializeRecord).
    const partOf = view.holder?.shown;
    const key = `${record.kind}:${record.state}:${record.id}:${record.revisionId}.${parent.id}:${parent.revisionId}:${ui ? 'ui' : ''}:${view.emailsShown ? 'emails' : ''}:${partOf ? `${partOf.parentId}>${partOf.id}` : ''}`;
    return texts.through(key, () => JSON.stringify(serializeRecord(view, links, ui)));
  };
}
