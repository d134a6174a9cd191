/**
 * The record exports of one app, bound to its links. Answers that cost more than a record GET
 * (a formatted citation is milliseconds of citeproc, a large record's export far more; the
 * Signposting header is built on every published GET) are kept per record revision: a
 * revision's metadata and files never change (nor, for a resource, the package it names, while
 * that package's parent keeps its revision).
 */
import { type FileEntry, largeValueSlices, type RecordView } from '@krs/domain';
import type { Links } from '../links.ts';
import { formatCitation, type CitationStyle } from './citation.ts';
import { toCslInTurns } from './csl-json.ts';
import type { ExportFormat } from './formats.ts';
import { jsonLdScript, toJsonLd } from './json-ld.ts';
import { linkset, signposting } from './signposting.ts';
import { sizeBoundedCache } from '@krs/adapters';

/** Most recently used texts up to `maxChars` characters in all; one over a quarter of that is made each time. */
const lru = (maxChars: number) => sizeBoundedCache<string>(maxChars, (text) => text.length, maxChars / 4);

export function createExporter(links: Links) {
  const headers = lru(4 * 1024 * 1024);
  const citations = lru(4 * 1024 * 1024);
  // An export of the largest record a client may store takes 100-300 ms to build: once per revision.
  const rendered = lru(32 * 1024 * 1024);
  // A managed resource's exports also name its package as the reader may see it: that package's
  // parent's revision (bumped by every write to a version of it) and the version shown.
  const holder = (view: RecordView) => (view.holder ? `\u0000${view.holder.revisionId}\u0000${view.holder.shown?.id ?? ''}` : '');
  const revision = (view: RecordView) => `${view.record.kind}\u0000${view.record.id}\u0000${view.record.state}\u0000${view.record.revisionId}${holder(view)}`;
  return {
    links,
    /** The Signposting `Link` header; with `files` (landing pages) it lists them as items. A published version's files never change. */
    signposting(view: RecordView, files: FileEntry[] = []): string {
      return headers.through(`${revision(view)}\u0000${files.length}`, () => signposting(view, links, files));
    },
    /** The JSON-LD a landing page embeds (the first `maxItems` of each list), as script text. */
    pageJsonLd(view: RecordView, files: FileEntry[], maxItems: number): string {
      return rendered.through(`${revision(view)}\u0000page-json-ld\u0000${files.length}\u0000${maxItems}`, () => jsonLdScript(toJsonLd(view, links, files, maxItems)));
    },
    linkset: (view: RecordView, files: FileEntry[]) => rendered.through(`${revision(view)}\u0000linkset\u0000${files.length}`, () => JSON.stringify(linkset(view, links, files))),
    async render(format: ExportFormat, view: RecordView, files: FileEntry[], pretty: boolean): Promise<string> {
      if (!format.perRevision) return format.render({ view, links, files, pretty });
      const key = `${revision(view)}\u0000${format.id}\u0000${files.length}\u0000${pretty}`;
      const kept = rendered.get(key);
      if (kept !== undefined) return kept;
      const text = await format.render({ view, links, files, pretty });
      rendered.set(key, text);
      return text;
    },
    async citation(view: RecordView, style: CitationStyle, locale: string, format: 'html' | 'text'): Promise<string> {
      const key = `${revision(view)}\u0000${style}\u0000${locale}\u0000${format}`;
      const kept = citations.get(key);
      if (kept !== undefined) return kept;
      const text = await formatCitation(await toCslInTurns(view, links, largeValueSlices()), style, locale, format);
      citations.set(key, text);
      return text;
    },
  };
}

export type Exporter = ReturnType<typeof createExporter>;
