/** Writes serialized views as responses: Accept negotiation, ETag, list envelopes with paging links. */
import type { Context } from 'hono';
import { type FileEntry, isLarge, jsonText, nextIteration, type RecordView, representationTag, type SearchPage, stringifyJsonInTurns, timeSlices } from '@krs/domain';
import { negotiate } from './accept.ts';
import { entityTag, noneMatchNames } from './entity-tags.ts';
import { citationLocale, citationStyle } from './exports/citation.ts';
import type { Exporter } from './exports/exporter.ts';
import { CITATION_TYPE, exportFormatByType, LINKSET_TYPE, RECORD_ALTERNATES, type ExportFormat } from './exports/formats.ts';
import { keptHitTexts } from './kept-hit-texts.ts';
import { searchPageText, serializeRecord } from './serialize.ts';
import { utf8InTurns } from './utf8-in-turns.ts';
import { heldAnswer } from './answer-memory.ts';
import type { Env } from './routes/request.ts';


/** Answers longer than this are encoded in turns of their own (utf8-in-turns.ts); shorter ones as a string, as before. */
const LARGE_ANSWER_CHARS = 256 * 1024;

/** A published version's files, for the export formats that list them; loaded only when one is asked for. */
export type FilesOf = (c: Context, view: RecordView) => Promise<FileEntry[]>;

/** `idleMs`: a client that takes nothing of a large listing answer for this long is dropped (answer-memory.ts). */
export function createResponder(exporter: Exporter, filesOf: FilesOf, idleMs: number) {
  const links = exporter.links;
  // Characters of kept hit texts in all.
  const hitText = keptHitTexts(links, 8 * 1024 * 1024);

  /** A published version in the format `Accept` chose among the export formats. */
  async function alternate(c: Context, view: RecordView, type: string, status: 200 | 201 | 202): Promise<Response> {
    if (type === CITATION_TYPE) {
      const text = await exporter.citation(view, citationStyle(c.req.query('style')), citationLocale(c.req.query('locale')), 'text');
      return c.body(text, status, { 'Content-Type': `${CITATION_TYPE}; charset=utf-8` });
    }
    const files = view.record.files.enabled ? await filesOf(c, view) : [];
    if (type === LINKSET_TYPE) return c.body(exporter.linkset(view, files), status);
    // RECORD_ALTERNATES lists the export formats' types and these two only.
    const format = exportFormatByType(type) as ExportFormat;
    return text(c, await exporter.render(format, view, files, false), status);
  }

  /**
   * A text answer: as a string when short, else encoded to UTF-8 in turns (an export of the
   * largest record is megabytes, whose encoding in one go took 4-8 ms) and held as a large record's
   * answer is.
   */
  async function text(c: Context, body: string, status: 200 | 201 | 202 = 200, headers: Record<string, string> = {}): Promise<Response> {
    if (body.length <= LARGE_ANSWER_CHARS) return c.body(body, status, headers);
    const bytes = await utf8InTurns(body, nextIteration);
    return c.body(heldAnswer(c as Context<Env>, bytes, idleMs), status, { ...headers, 'Content-Length': String(bytes.length) });
  }

  /** `extra` adds top-level members some responses carry (the create-draft `expanded`). */
  function record(c: Context<Env>, view: RecordView, status: 200 | 201 | 202 = 200, extra?: { [key: string]: unknown }): Response | Promise<Response> {
    // A HEAD carries the headers its GET would (RFC 9110, 9.3.2).
    const publishedGet = (c.req.method === 'GET' || c.req.method === 'HEAD') && view.record.state === 'published';
    const { contentType, ui, alternate: chosen } = negotiate(c.req.header('accept'), publishedGet ? { alternates: RECORD_ALTERNATES } : {});
    const tag = `"${representationTag(view)}"`;
    c.header('ETag', tag);
    // Every record answer depends on Accept (the UI media type adds `ui`), drafts' too.
    c.header('Vary', 'Accept');
    if (publishedGet) c.header('Link', exporter.signposting(view));
    // A published version's tag changes with every change of its answer (its row's and its
    // parent's revisions), so a harvester or cache holding it revalidates without the body. A
    // draft's tag is its revision alone, which its answer outgrows: always answered in full.
    if (publishedGet && status === 200 && noneMatchNames(c.req.header('if-none-match'), entityTag(tag)) === true) return c.body(null, 304);
    c.header('Content-Type', contentType);
    if (chosen !== undefined) return alternate(c, view, chosen, status);
    const answer = { ...serializeRecord(view, links, ui), ...extra };
    // A record whose metadata is known to be large (domain turns/large-values.ts) is encoded in slices.
    const text = jsonText(answer, isLarge(view.record.metadata));
    if (typeof text === 'string' && text.length <= LARGE_ANSWER_CHARS) return c.body(text, status);
    return (async () => {
      const bytes = await utf8InTurns(await text, nextIteration);
      c.header('Content-Length', String(bytes.length));
      return c.body(heldAnswer(c, bytes, idleMs), status);
    })();
  }

  /**
   * The hits' texts, a turn given whenever those made since the last took a slice: a page
   * may list up to a thousand records, each up to the largest legal one (10-20 ms to serialize).
   */
  async function hitTextsInTurns(hits: readonly RecordView[], ui: boolean): Promise<Map<RecordView, string>> {
    const texts = new Map<RecordView, string>();
    const slicing = timeSlices(nextIteration);
    for (const view of hits) {
      if (slicing.due()) await slicing.turn();
      // A large record's text is made in slices of its own (and is too large to be kept).
      texts.set(view, isLarge(view.record.metadata) ? await stringifyJsonInTurns(serializeRecord(view, links, ui), slicing) : hitText(view, ui));
    }
    return texts;
  }

  /** `{aggregations, hits, links, sortBy}`; the UI media type carries only hits and aggregations. */
  async function list(c: Context<Env>, page: SearchPage, options: { withLinks: boolean } = { withLinks: true }): Promise<Response> {
    const { contentType, ui } = negotiate(c.req.header('accept'));
    const url = new URL(c.req.url);
    // A link token is the caller's secret: links that others may be shown never carry it.
    const query = [...url.searchParams.entries()].filter(([k]) => k !== 'token');
    const texts = await hitTextsInTurns(page.hits, ui);
    const body = searchPageText(page, links, { ui, path: url.pathname, query, withLinks: options.withLinks }, (view) => texts.get(view) as string);
    c.header('Content-Type', contentType);
    // The UI media type answers another body at the same URL: caches must key on Accept.
    c.header('Vary', 'Accept');
    if (body.length <= LARGE_ANSWER_CHARS) return c.body(body, 200);
    const bytes = await utf8InTurns(body, nextIteration);
    c.header('Content-Length', String(bytes.length));
    return c.body(heldAnswer(c, bytes, idleMs), 200);
  }

  return { record, list, text };
}

export type Responder = ReturnType<typeof createResponder>;
