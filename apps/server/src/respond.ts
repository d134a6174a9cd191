/** Writes serialized views as responses: Accept negotiation, ETag, list envelopes with paging links. */
import type { Context } from 'hono';
import type { RecordView, SearchPage } from '@krs/domain';
import { negotiate } from './accept.ts';
import { toJsonLd } from './exports/json-ld.ts';
import { signposting } from './exports/signposting.ts';
import type { Links } from './links.ts';
import { serializeRecord, serializeSearchPage } from './serialize.ts';

export function createResponder(links: Links) {
  /** `extra` adds top-level members some responses carry (the create-draft `expanded`). */
  function record(c: Context, view: RecordView, status: 200 | 201 | 202 = 200, extra?: { [key: string]: unknown }): Response {
    const { contentType, ui, jsonLd } = negotiate(c.req.header('accept'), { jsonLd: c.req.method === 'GET' && view.record.state === 'published' });
    c.header('ETag', `"${view.record.revisionId}"`);
    c.header('Content-Type', contentType);
    if (c.req.method === 'GET' && view.record.state === 'published') c.header('Link', signposting(view, links));
    if (jsonLd) return c.body(JSON.stringify(toJsonLd(view, links)), status);
    return c.body(JSON.stringify({ ...serializeRecord(view, links, ui), ...extra }), status);
  }

  /** `{aggregations, hits, links, sortBy}`; the UI media type carries only hits and aggregations. */
  function list(c: Context, page: SearchPage, options: { withLinks: boolean } = { withLinks: true }): Response {
    const { contentType, ui } = negotiate(c.req.header('accept'));
    const url = new URL(c.req.url);
    // A link token is the caller's secret: links that others may be shown never carry it.
    const query = [...url.searchParams.entries()].filter(([k]) => k !== 'token');
    const body = serializeSearchPage(page, links, { ui, path: url.pathname, query, withLinks: options.withLinks });
    c.header('Content-Type', contentType);
    return c.body(JSON.stringify(body), 200);
  }

  return { record, list };
}

export type Responder = ReturnType<typeof createResponder>;
