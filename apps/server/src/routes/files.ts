/** Files of drafts (three-step upload) and of published records. */
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DomainError, wellFormed, type Core, type RecordKind } from '@krs/domain';
import { negotiate } from '../accept.ts';
import { requireIdentityCoding } from '../content-coding.ts';
import { noteReadStamp } from '../fast-path/read-stamps.ts';
import { planDownload } from '../download.ts';
import type { BodyBudget } from '../body-budget.ts';
import { toHttpError } from '../errors.ts';
import { heldDownload, reusedBuffers } from '../held-download.ts';
import { idleLimited } from '../idle-timeout.ts';
import { httpDate } from '../http-dates.ts';
import type { Links } from '../links.ts';
import { serializeFileEntry, serializeFiles } from '../serialize.ts';
import { validate } from '../validate.ts';
import { contentLength, identityOf, incomingOf, outgoingOf, remoteAddressOf, socketOf, streamOf, type Env } from './request.ts';
import { fileKeysBody } from './schemas.ts';

/** `filename*` carries the key exactly; a key stored with a lone surrogate goes as its U+FFFD form. */
function contentDisposition(key: string): string {
  const ascii = key.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(wellFormed(key))}`;
}

export interface FileRouteOptions {
  uploadIdleTimeoutMs: number;
  downloadIdleTimeoutMs: number;
  /** What uploads hold while their bytes arrive, and downloads until their client takes them, is taken from this budget. */
  budget: BodyBudget;
  /** Bytes the storage holds in memory for one write of this length (its buffers). */
  uploadBufferBytes(expectedLength?: number): number;
  /** Bytes the storage holds in memory for one download of this length (its read buffer). */
  downloadBufferBytes(length: number): number;
}

export function fileRoutes(core: Core, kind: RecordKind, links: Links, options: FileRouteOptions) {
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
      requireIdentityCoding(c.req.header('content-encoding'));
      const hold = options.budget.hold(remoteAddressOf(c));
      try {
        const length = contentLength(c);
        hold.take(options.uploadBufferBytes(length));
        const body = idleLimited(uploadBody(c), options.uploadIdleTimeoutMs);
        const view = await core.files.upload(identityOf(c), kind, c.req.param('id'), c.req.param('key'), body, length);
        return json(c, serializeFileEntry(view, view.entry, links));
      } catch (e) {
        // The rest of a refused body may be large or never come: close rather than read it through.
        c.header('Connection', 'close');
        throw clientAborted(e) ? new HTTPException(400, { message: 'The upload was interrupted before all its bytes arrived; nothing was kept.' }) : e;
      } finally {
        hold.release();
      }
    })
    .post('/:id/draft/files/:key/commit', async (c) => {
      const view = await core.files.commit(identityOf(c), kind, c.req.param('id'), c.req.param('key'));
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .get('/:id/draft/files/:key', async (c) => {
      const view = await core.files.get(identityOf(c), kind, c.req.param('id'), 'draft', c.req.param('key'));
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .get('/:id/draft/files/:key/content', async (c) => downloadFor(c, core, kind, 'draft', options))
    .delete('/:id/draft/files/:key', async (c) => {
      await core.files.delete(identityOf(c), kind, c.req.param('id'), c.req.param('key'));
      return c.body(null, 204);
    })
    .get('/:id/files', async (c) => json(c, serializeFiles(await core.files.list(identityOf(c), kind, c.req.param('id'), 'published'), links)))
    .get('/:id/files/:key', async (c) => {
      const view = await core.files.get(identityOf(c), kind, c.req.param('id'), 'published', c.req.param('key'));
      // The answer may be kept for the fast path, under the stamp of the version it was read from.
      noteReadStamp(c, view.readStamp);
      return json(c, serializeFileEntry(view, view.entry, links));
    })
    .get('/:id/files/:key/content', async (c) => downloadFor(c, core, kind, 'published', options));
}

/** Node's request stream fails this way when the client goes away mid-body: its doing, not a server fault. */
function clientAborted(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  return code === 'ECONNRESET' || message === 'aborted';
}

/**
 * On Node the raw request stream is read directly: the web-stream wrapper around it costs a
 * third of the upload throughput. Elsewhere (tests through app.request) the web body is used.
 */
function uploadBody(c: Context<Env>): AsyncIterable<Uint8Array> {
  return incomingOf(c) ?? streamOf(c.req.raw.body);
}

/** A file's bytes, honouring conditional and range requests (see download.ts). */
async function downloadFor(c: Context<Env>, core: Core, kind: RecordKind, side: 'draft' | 'published', options: FileRouteOptions): Promise<Response> {
  const who = identityOf(c);
  const id = c.req.param('id') ?? '';
  const key = c.req.param('key') ?? '';
  const { entry, readStamp } = await core.files.get(who, kind, id, side, key);
  // A whole small download may be kept for the fast path (conditional and range requests never reach it from there).
  noteReadStamp(c, readStamp);
  const blob = entry.blob;
  if (!blob) throw new DomainError('invalid', 'file.no_content', `File "${entry.key}" has no content yet.`);
  const etag = `"md5:${blob.md5}"`;
  const lastModified = httpDate(entry.updated);
  const plan = planDownload((name) => c.req.header(name), c.req.method, { etag, lastModified: Date.parse(entry.updated), size: blob.size });
  if (plan.status === 304) return new Response(null, { status: 304, headers: { ETag: etag, 'Last-Modified': lastModified } });
  if (plan.status === 412) throw new DomainError('precondition_failed', 'file.precondition', 'The file does not match the If-Match or If-Unmodified-Since condition.');
  if (plan.status === 416) {
    const e = toHttpError(new DomainError('range_not_satisfiable', 'file.range', 'Range not satisfiable.'));
    return c.json(e.body, 416, { 'Content-Range': `bytes */${blob.size}` });
  }
  const length = plan.status === 206 ? plan.end - plan.start + 1 : blob.size;
  const headers: Record<string, string> = {
    'Content-Type': entry.mimetype ?? 'application/octet-stream',
    'Content-Disposition': contentDisposition(entry.key),
    // The digest of the body sent (RFC 1864): a part's is not the file's.
    ...(plan.status === 206 ? {} : { 'Content-MD5': blob.md5 }),
    ETag: etag,
    'Last-Modified': lastModified,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'",
    'Content-Length': String(length),
  };
  if (plan.status === 206) headers['Content-Range'] = `bytes ${plan.start}-${plan.end}/${blob.size}`;
  // A HEAD never reads the bytes: an unread stream would hold its file open.
  if (c.req.method === 'HEAD') return new Response(null, { status: plan.status, headers });
  const range = plan.status === 206 ? { start: plan.start, end: plan.end } : null;
  const hold = options.budget.hold(remoteAddressOf(c));
  try {
    hold.take(options.downloadBufferBytes(length));
    const outgoing = outgoingOf(c);
    // The connection asks for the next chunk once its socket took the last one or drained; a
    // chunk still queued there (a short one whose write returned at once) shows in its length.
    const buffers = outgoing === undefined ? undefined : reusedBuffers(() => outgoing.writableLength === 0);
    const content = await core.files.content(who, kind, id, side, entry.key, range, buffers);
    if (content.entry.blob?.id !== blob.id) {
      // Re-uploaded between the two reads (pending drafts only): these headers describe other bytes.
      void content.body.cancel();
      throw new DomainError('conflict', 'file.changed', 'The file changed while it was being read; try again.');
    }
    const socket = socketOf(c);
    const body = heldDownload(content.body, { hold, idleMs: options.downloadIdleTimeoutMs, drop: () => socket?.destroy() });
    return new Response(body, { status: plan.status, headers });
  } catch (e) {
    hold.release();
    throw e;
  }
}
