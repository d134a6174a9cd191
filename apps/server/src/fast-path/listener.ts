/**
 * The fast path: anonymous GETs and HEADs of public published records and of listings, and
 * owners' GETs and HEADs of their drafts, answered from the answer the normal path gave last
 * time, before @hono/node-server builds a Request, runs the middleware and the handler, and turns
 * the Response back. Each kept answer is checked against the record's read stamp on every request
 * (one primary-key read through the domain), or a listing's against the store's and the index's
 * change stamps, so an edit, a new version, an access change or a write from another node is
 * never answered stale. While the store's change stamp (read first, one cheap read) has not
 * moved since a record's answer or a bearer token was last found good, nothing was committed and
 * neither can have changed: the reads of rows are skipped. That stamp (and a listing's) is read
 * once for all the requests one turn of the event loop took in, after it took them in: each is
 * still answered from a read made after it arrived, so nothing committed before it was sent is
 * missed, and under load one read serves many requests. Otherwise a draft's caller is
 * authenticated afresh (one read), so a token removed on any node stops working at once; its
 * answers are kept per user. What the fast path is not sure of, or has not kept, it hands to the
 * normal path, and keeps the answer that path gives when the handler noted a read stamp for it.
 */
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import type { Core } from '@krs/domain';
import type { Logger } from '../ops/logger.ts';
import { recordWhenSent, requestIdOf, type RequestObserver } from '../ops/request-log.ts';
import { afterThisTurn } from './after-this-turn.ts';
import { fastTarget, type FastTarget } from './eligible.ts';
import { keptAnswers, type KeptAnswer } from './kept-answers.ts';
import { notedReadStamp } from './read-stamps.ts';

export interface FastPathOptions {
  /** Request lines, as the normal path's `requestLog` writes them; null when not at `info`. */
  logger: Logger | null;
  observe: RequestObserver | null;
  /** Bytes of kept answers in all; default 16 MiB. */
  maxBytes?: number;
}

export function createFastPath(core: Pick<Core, 'records' | 'users'>, options: FastPathOptions) {
  const answers = keptAnswers(options.maxBytes ?? 16 * 1024 * 1024);
  const changeStamp = afterThisTurn(() => core.records.changeStamp());
  const listingReadStamp = afterThisTurn(() => core.records.listingReadStamp());
  let answered = 0;
  /**
   * Bearer tokens found lately, with their user and the store's change stamp read before they
   * were: a token is removed by a commit, so while that stamp has not moved the token still names
   * its user. Bounded: emptied when full.
   */
  const bearers = new Map<string, { userId: string; at: string }>();

  /** The user a bearer token names: as found at this change stamp, else read (null: unknown). */
  async function userOf(bearer: string, change: string | null): Promise<string | null> {
    const known = change === null ? undefined : bearers.get(bearer);
    if (known !== undefined && known.at === change) return known.userId;
    const userId = await core.users.authenticate(bearer);
    if (userId !== null && change !== null) {
      if (bearers.size >= MAX_BEARERS) bearers.clear();
      bearers.set(bearer, { userId, at: change });
    }
    return userId;
  }

  function answer(req: IncomingMessage, res: ServerResponse, target: FastTarget, kept: KeptAnswer, started: number): void {
    const id = requestIdOf(req.headers['x-request-id'] as string | undefined);
    // The id takes the place the normal path gave it in the header record: same order, same bytes.
    const headers: OutgoingHttpHeaders = { ...kept.headers, 'x-request-id': id };
    recordWhenSent(options.logger, options.observe, res, started, { id, method: req.method as string, route: target.route, path: target.path, status: kept.status });
    res.writeHead(kept.status, headers);
    res.end(kept.body);
    answered++;
  }

  /** Hands the request to the normal path, keeping what it writes when the handler noted a read stamp. */
  function normally(normal: RequestListener, req: IncomingMessage, res: ServerResponse, key: string): void {
    const watched = watch(res);
    res.once('finish', () => {
      const stamp = notedReadStamp(req);
      const written = watched();
      if (stamp === undefined || written === null || written.status !== 200) return;
      // Kept as bytes: a string body would be encoded again for every request answered from it.
      const body = typeof written.body === 'string' ? Buffer.from(written.body) : written.body;
      answers.set(key, { stamp, status: written.status, headers: written.headers, body, size: (body?.byteLength ?? 0) + 512, checkedAt: null });
    });
    void normal(req, res);
  }

  /**
   * Answers from the answer kept under `key` if `current` still gives the stamp it was kept at, or
   * if nothing was committed since that was last found (`change`, read first; null for a stamp
   * that is not made of rows alone, as a listing's, which the index's writes move too).
   */
  function fromKept(
    normal: RequestListener,
    req: IncomingMessage,
    res: ServerResponse,
    target: FastTarget,
    key: string,
    current: () => Promise<string | null>,
    started: number,
    change: string | null,
  ): void {
    const kept = answers.get(key);
    if (kept === undefined) return normally(normal, req, res, key);
    if (change !== null && kept.checkedAt === change) return answer(req, res, target, kept, started);
    current().then(
      (stamp) => {
        if (stamp === kept.stamp) {
          kept.checkedAt = change;
          return answer(req, res, target, kept, started);
        }
        answers.drop(key);
        normally(normal, req, res, key);
      },
      // The normal path meets the same failure and answers it as it answers errors.
      () => void normal(req, res),
    );
  }

  return {
    /** `normal` answers whatever the fast path does not. */
    listener(normal: RequestListener): RequestListener {
      return (req, res) => {
        const target = fastTarget(req);
        if (target === null) return void normal(req, res);
        const started = performance.now();
        const { record, bearer } = target;
        if (record === null) return fromKept(normal, req, res, target, target.key, listingReadStamp, started, null);
        const { kind, id } = record;
        changeStamp().then(
          (change) => {
            if (bearer === null) return fromKept(normal, req, res, target, target.key, () => core.records.readStamp(kind, id), started, change);
            userOf(bearer, change).then(
              (userId) => {
                // An unknown token is the normal path's to refuse.
                if (userId === null) return void normal(req, res);
                // Query strings are not taken, so no link token is presented: the caller is the user alone.
                const identity = { userId, linkIds: [] };
                fromKept(normal, req, res, target, `${target.key}\n${userId}`, () => core.records.draftReadStamp(identity, kind, id), started, change);
              },
              () => void normal(req, res),
            );
          },
          () => void normal(req, res),
        );
      };
    },
    /** How many requests the fast path answered itself. */
    answered: () => answered,
  };
}

export type FastPath = ReturnType<typeof createFastPath>;

interface Written {
  status: number;
  headers: OutgoingHttpHeaders;
  body: string | Buffer | undefined;
}

const MAX_BEARERS = 1024;

/** Streamed bodies (file content) are kept up to this size; larger ones are not worth the memory. */
const MAX_STREAMED_BYTES = 64 * 1024;

/**
 * Records the `writeHead(status, headers)` the adapter makes and the body it writes after it:
 * one `end(body)`, or `write`s of a streamed body up to MAX_STREAMED_BYTES and a bare `end()`.
 * Anything else is not recorded: null.
 */
function watch(res: ServerResponse): () => Written | null {
  let head: Pick<Written, 'status' | 'headers'> | null = null;
  const chunks: Buffer[] = [];
  let streamed = 0;
  let body: Written['body'];
  let whole = true;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const [status, headers] = args;
    if (head === null && args.length === 2 && typeof status === 'number' && typeof headers === 'object' && headers !== null && !Array.isArray(headers)) {
      head = { status, headers: { ...(headers as OutgoingHttpHeaders) } };
    } else whole = false;
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
  res.write = ((...args: unknown[]) => {
    const [chunk] = args;
    if (args.length === 1 && chunk instanceof Uint8Array && streamed + chunk.byteLength <= MAX_STREAMED_BYTES) {
      chunks.push(Buffer.from(chunk));
      streamed += chunk.byteLength;
    } else whole = false;
    return write(...args);
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    if (args.length > 1 || !(chunk === undefined || typeof chunk === 'string' || Buffer.isBuffer(chunk))) whole = false;
    else if (chunks.length > 0) whole &&= chunk === undefined;
    else body = chunk;
    return end(...args);
  }) as ServerResponse['end'];
  return () => (whole && head !== null ? { ...head, body: chunks.length > 0 ? Buffer.concat(chunks) : body } : null);
}
