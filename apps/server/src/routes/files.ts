/** Files of drafts (three-step upload) and of published records. */
import { Hono, type Context } from 'hono';
import { DomainError, type Core, type FileContent, type RecordKind } from '@krs/domain';
import { negotiate } from '../accept.ts';
import { httpDate } from '../http-dates.ts';
import type { Links } from '../links.ts';
import { serializeFileEntry, serializeFiles } from '../serialize.ts';
import { validate } from '../validate.ts';
import { byteRange, contentLength, identityOf, streamOf, type Env } from './request.ts';
import { fileKeysBody } from './schemas.ts';

function contentDisposition(key: string): string {
  const ascii = key.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(key)}`;
}

function download(c: Context, content: FileContent): Response {
  const { entry, body, range } = content;
  const blob = entry.blob;
  if (!blob) throw new DomainError('invalid', 'file.no_content', 'The file has no content yet.');
  const etag = `"md5:${blob.md5}"`;
  const headers: Record<string, string> = {
    'Content-Type': entry.mimetype ?? 'application/octet-stream',
    'Content-Disposition': contentDisposition(entry.key),
    'Content-MD5': blob.md5,
    ETag: etag,
    'Last-Modified': httpDate(entry.updated),
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'",
  };
  if (c.req.header('if-none-match') === etag) {
    void body.cancel();
    return new Response(null, { status: 304, headers: { ETag: etag } });
  }
  if (range) {
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${blob.size}`;
    headers['Content-Length'] = String(range.end - range.start + 1);
    return new Response(body, { status: 206, headers });
  }
  headers['Content-Length'] = String(blob.size);
  return new Response(body, { status: 200, headers });
}

export function fileRoutes(core: Core, kind: RecordKind, links: Links) {
  const json = (c: Context, body: unknown, status: 200 | 201 = 200) => {
    negotiate(c.req.header('accept'));
    return c.json(body, status);
  };
  return new Hono<Env>()
    .get('/:id/draft/files', async (c) => json(c, serializeFiles(await core.files.list(identityOf(c), kind, c.req.param('id'), 'draft'), links)))
    .post('/:id/draft/files', validate('json', fileKeysBody), async (c) => {
      const keys = c.req.valid('json').map((k) => k.key);
      return json(c, serializeFiles(await core.files.start(identityOf(c), kind, c.req.param('id'), keys), links), 201);
    })
    .post('/:id/draft/actions/files-import', async (c) =>
      json(c, serializeFiles(await core.files.importFromPrevious(identityOf(c), kind, c.req.param('id')), links), 201),
    )
    .put('/:id/draft/files/:key/content', async (c) => {
      const length = contentLength(c);
      const view = await core.files.upload(identityOf(c), kind, c.req.param('id'), c.req.param('key'), uploadBody(c), length);
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .post('/:id/draft/files/:key/commit', async (c) => {
      const view = await core.files.commit(identityOf(c), kind, c.req.param('id'), c.req.param('key'));
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .get('/:id/draft/files/:key', async (c) => {
      const view = await core.files.get(identityOf(c), kind, c.req.param('id'), 'draft', c.req.param('key'));
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .get('/:id/draft/files/:key/content', async (c) => downloadFor(c, core, kind, 'draft'))
    .delete('/:id/draft/files/:key', async (c) => {
      await core.files.delete(identityOf(c), kind, c.req.param('id'), c.req.param('key'));
      return c.body(null, 204);
    })
    .get('/:id/files', async (c) => json(c, serializeFiles(await core.files.list(identityOf(c), kind, c.req.param('id'), 'published'), links)))
    .get('/:id/files/:key', async (c) => {
      const view = await core.files.get(identityOf(c), kind, c.req.param('id'), 'published', c.req.param('key'));
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .get('/:id/files/:key/content', async (c) => downloadFor(c, core, kind, 'published'));
}

/**
 * On Node the raw request stream is read directly: the web-stream wrapper around it costs a
 * third of the upload throughput. Elsewhere (tests through app.request) the web body is used.
 */
function uploadBody(c: Context<Env>): AsyncIterable<Uint8Array> {
  const bindings: unknown = c.env;
  const incoming = typeof bindings === 'object' && bindings !== null ? (bindings as { incoming?: unknown }).incoming : undefined;
  if (incoming && typeof incoming === 'object' && Symbol.asyncIterator in incoming) return incoming as AsyncIterable<Uint8Array>;
  return streamOf(c.req.raw.body);
}

async function downloadFor(c: Context<Env>, core: Core, kind: RecordKind, side: 'draft' | 'published'): Promise<Response> {
  const who = identityOf(c);
  const id = c.req.param('id') ?? '';
  const key = c.req.param('key') ?? '';
  let size: number | null = null;
  if (c.req.header('range') !== undefined) size = (await core.files.get(who, kind, id, side, key)).entry.blob?.size ?? null;
  return download(c, await core.files.content(who, kind, id, side, key, byteRange(c, () => size)));
}
