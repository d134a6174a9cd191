/**
 * `/{records|packages}/{id}/export/{format}`: a published version in one export format, for
 * people and tools following the export links of a landing page. Same access decisions as the
 * record GET; `?style=` / `?locale=` pick the formatted citation's style.
 */
import { Hono, type Context } from 'hono';
import { DomainError, type Core, type RecordKind } from '@krs/domain';
import { answerOf } from '../answer-memory.ts';
import { citationLocale, citationStyle } from '../exports/citation.ts';
import type { Exporter } from '../exports/exporter.ts';
import { CITATION_TYPE, EXPORT_FORMATS, exportFormat } from '../exports/formats.ts';
import type { Responder } from '../respond.ts';
import { identityOf, type Env } from './request.ts';

export function exportRoutes(core: Core, exporter: Exporter, respond: Responder) {
  async function answer(c: Context<Env>, kind: RecordKind) {
    const id = c.req.param('id') as string;
    const name = c.req.param('format') as string;
    const format = exportFormat(name);
    if (format === undefined && name !== 'citation') {
      throw new DomainError('not_found', 'export.format', `There is no export format "${name.slice(0, 100)}"; the formats are ${[...EXPORT_FORMATS.map((f) => f.id), 'citation'].join(', ')}.`);
    }
    const view = await core.records.get(identityOf(c), kind, id, answerOf(c));
    const headers = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
    if (format === undefined) {
      const text = await exporter.citation(view, citationStyle(c.req.query('style')), citationLocale(c.req.query('locale')), 'text');
      return c.body(text, 200, { ...headers, 'Content-Type': `${CITATION_TYPE}; charset=utf-8` });
    }
    const files = (await core.files.shown(identityOf(c), kind, id)).entries;
    return respond.text(c, await exporter.render(format, view, files, true), 200, {
      ...headers,
      'Content-Type': `${format.mediaType}; charset=utf-8`,
      'Content-Disposition': `inline; filename="${view.record.id.replace(/[^\w.-]/g, '_')}.${format.extension}"`,
    });
  }

  return new Hono<Env>()
    .get('/records/:id/export/:format', (c) => answer(c, 'resource'))
    .get('/packages/:id/export/:format', (c) => answer(c, 'package'));
}
