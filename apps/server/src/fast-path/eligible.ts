/**
 * Which requests the fast path may answer from a kept answer: an anonymous GET or HEAD of a
 * published record, a file entry of one or a file's content, a published resource's landing
 * page, or a listing of published records (`/api/records`, `/api/packages`, `/api/search`, with
 * parameters whose names need no decoding, none an access-link token), or a GET or HEAD of a
 * draft with a bearer token, with nothing that could make the normal path answer otherwise.
 * Anything else (other credentials, cookies, conditional or range headers, other media types, a
 * query string but a listing's, an origin, headers not listed here) goes to the normal path.
 */
import type { IncomingMessage } from 'node:http';
import type { RecordKind } from '@krs/domain';

export interface FastTarget {
  /** A record's own paths, or null for a listing, whose answer depends on every record. */
  record: { kind: RecordKind; id: string } | null;
  /** The route pattern the normal path would log and count the request under. */
  route: string;
  /** The path it would log: without the query string, which may carry secrets (`ops/request-log.ts`). */
  path: string;
  /**
   * The method, the path and the headers an answer could depend on: a HEAD is answered as a HEAD
   * was, and a request with another `Accept`, `Accept-Encoding` or `Accept-Language` from an
   * answer given to one with the same, so nothing the app ever varies on these can be mixed up.
   */
  key: string;
  /**
   * A draft's bearer token, which the caller's answer is kept per user under; null for a
   * published record's anonymous request.
   */
  bearer: string | null;
}

/**
 * A published record, one of its file entries, a file's content, or a draft, by ids and keys as
 * they come; one needing decoding, or dots a URL parser would resolve (a key starting with one),
 * goes the normal way.
 */
const RECORD_PATH = /^\/api\/(records|packages)\/([A-Za-z0-9_-]{1,64})(?:(\/draft)|(\/files\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}(\/content)?))?$/;

/**
 * A published resource's landing page. A package's lists its resources, which change with
 * writes to other records than its own two rows: it always goes the normal way.
 */
const PAGE_PATH = /^\/records\/([A-Za-z0-9_-]{1,64})$/;
const PAGE_ROUTE = '/records/:id';

/**
 * A listing, with parameters whose names need no decoding (so none can spell `token`
 * once decoded, as the normal path's parser would) and no fragment.
 */
const LISTING_PATH = /^\/api\/(records|packages|search)(?:\?([A-Za-z0-9_.-]+(?:=[^&#]*)?(?:&[A-Za-z0-9_.-]+(?:=[^&#]*)?)*))?$/;
/** An access link's token makes the caller someone else than an anonymous reader. */
const LINK_TOKEN = /(?:^|&)token(?:[=&]|$)/;
const LISTING_ROUTES = { records: '/api/records', packages: '/api/packages', search: '/api/search' } as const;

const ROUTES = {
  records: ['/api/records/:id', '/api/records/:id/files/:key', '/api/records/:id/files/:key/content', '/api/records/:id/draft'],
  packages: ['/api/packages/:id', '/api/packages/:id/files/:key', '/api/packages/:id/files/:key/content', '/api/packages/:id/draft'],
} as const;

/**
 * The one form of `Authorization` taken: a token the normal path's parser (`auth.ts`) reads the
 * same from. Tokens are drawn from these characters; any other form goes the normal way.
 */
const BEARER = /^Bearer ([A-Za-z0-9_-]{1,256})$/;

/**
 * Headers a request may carry and still be answered from a kept answer: ones the app does not
 * read for these routes (the request id is answered as the app answers it), and the ones that
 * are part of the key. `accept` only with one of ACCEPTED.
 */
const HARMLESS = new Set([
  'host',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'connection',
  'x-request-id',
  // What browsers and fetch() say of how the request was made; nothing in the app reads them.
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-dest',
  'sec-fetch-user',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
  'upgrade-insecure-requests',
  'referer',
  'dnt',
  'priority',
  'cache-control',
  'pragma',
  // What a load balancer or proxy in front of the nodes adds (docs/deploy.md); links come from
  // KRS_BASE_URL, and nothing in the app reads these either.
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'forwarded',
  'x-real-ip',
  'via',
])

/** What the normal path answers with plain JSON, as `negotiate` decides it. */
const ACCEPTED = new Set(['*/*', 'application/json', 'application/*']);

/** Hosts the adapter takes as they are (it answers 400 for one its URL parser rewrites); kept per host, boundedly. */
const hostVerdicts = new Map<string, boolean>();
const MAX_HOSTS = 256;

function hostAccepted(host: string): boolean {
  let verdict = hostVerdicts.get(host);
  if (verdict === undefined) {
    verdict = /^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host) && parsesAsItself(host);
    if (hostVerdicts.size >= MAX_HOSTS) hostVerdicts.clear();
    hostVerdicts.set(host, verdict);
  }
  return verdict;
}

/** The check @hono/node-server makes before it builds a Request. */
function parsesAsItself(host: string): boolean {
  try {
    const url = new URL(`http://${host}/`);
    return url.hostname.length === host.length || url.hostname === host.replace(/:\d+$/, '');
  } catch {
    return false;
  }
}

export function fastTarget(req: IncomingMessage): FastTarget | null {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return null;
  const url = req.url;
  if (url === undefined) return null;
  const m = RECORD_PATH.exec(url);
  const page = m === null ? PAGE_PATH.exec(url) : null;
  const listing = m === null && page === null ? LISTING_PATH.exec(url) : null;
  if (m === null && page === null && (listing === null || LINK_TOKEN.test(listing[2] ?? ''))) return null;
  const headers = req.headers;
  const draft = m?.[3] !== undefined;
  // A draft is read with a token (without one the normal path answers 401); a published record without.
  for (const name in headers) if (!HARMLESS.has(name) && !(draft && name === 'authorization')) return null;
  const bearer = draft ? BEARER.exec(headers.authorization ?? '')?.[1] : null;
  if (bearer === undefined) return null;
  const accept = headers.accept;
  // A page is HTML whatever the Accept (the key still tells answers apart by it); the API negotiates.
  if (page === null && accept !== undefined && !ACCEPTED.has(accept.trim())) return null;
  const host = headers.host;
  if (host === undefined || !hostAccepted(host)) return null;
  const key = `${method} ${url}\n${host}\n${accept ?? ''}\n${headers['accept-encoding'] ?? ''}\n${headers['accept-language'] ?? ''}`;
  if (page !== null) return { record: { kind: 'resource', id: page[1] as string }, route: PAGE_ROUTE, path: url, key, bearer: null };
  if (m === null) {
    const route = LISTING_ROUTES[(listing as RegExpExecArray)[1] as keyof typeof LISTING_ROUTES];
    return { record: null, route, path: route, key, bearer: null };
  }
  const collection = m[1] === 'packages' ? 'packages' : 'records';
  const route = ROUTES[collection][draft ? 3 : m[4] === undefined ? 0 : m[5] === undefined ? 1 : 2];
  return { record: { kind: collection === 'packages' ? 'package' : 'resource', id: m[2] as string }, route, path: url, key, bearer };
}
