/**
 * Loads a knowledge package repository into krs through its REST API: a directory whose
 * `knowledge-package.json` names the metadata file and the files of a package and of each of its
 * resources, and whether to reserve a DOI for each (the layout of GEO's package loader). It names
 * only the two create addresses and follows the links of each answer for everything else, so it
 * works against any deployment's `KRS_BASE_URL`.
 *
 * See README.md beside it for how to run it. Without `--publish` the package and its resources
 * stay drafts.
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Element {
  metadata_file: string;
  files?: string[];
  options?: { include_doi?: boolean };
}
interface Definition {
  knowledge_package: Element;
  resources?: Element[];
}
type Json = { [key: string]: unknown };

export interface Target {
  /** The service's base URL (`KRS_BASE_URL`), without a trailing slash. */
  api: string;
  token: string;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

async function send(target: Target, method: string, url: string, body?: { json: unknown } | { bytes: Uint8Array }): Promise<Json> {
  const headers: Record<string, string> = { authorization: `Bearer ${target.token}` };
  let payload: string | Uint8Array | undefined;
  if (body && 'json' in body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body) {
    headers['content-type'] = 'application/octet-stream';
    payload = body.bytes;
  }
  const res = await (target.fetch ?? fetch)(url, { method, headers, body: payload });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return text ? (JSON.parse(text) as Json) : {};
}

function link(answer: Json, name: string): string {
  const href = (answer['links'] as Json | undefined)?.[name];
  if (typeof href !== 'string') throw new Error(`the answer has no ${name} link`);
  return href;
}

/** One draft: created, its files started, uploaded and committed, its DOI reserved if asked. */
async function loadElement(target: Target, dir: string, element: Element, createUrl: string): Promise<Json> {
  const metadata: unknown = JSON.parse(await readFile(join(dir, element.metadata_file), 'utf8'));
  let draft = await send(target, 'POST', createUrl, { json: metadata });
  const paths = new Map((element.files ?? []).map((path) => [basename(path), join(dir, path)]));
  if (paths.size > 0) {
    const started = await send(target, 'POST', link(draft, 'files'), { json: [...paths.keys()].map((key) => ({ key })) });
    for (const entry of (started['entries'] ?? []) as Json[]) {
      const path = paths.get(String(entry['key']));
      if (path === undefined) continue;
      // Whole files in memory keep the example short; stream them for files of gigabytes.
      await send(target, 'PUT', link(entry, 'content'), { bytes: await readFile(path) });
      await send(target, 'POST', link(entry, 'commit'));
    }
  }
  if (element.options?.include_doi) draft = await send(target, 'POST', link(draft, 'reserve_doi'));
  return draft;
}

/**
 * Loads the package and its resources, associates the resources with the package's context and
 * attaches them to its draft; publishing the package then publishes them with it, in one step.
 * Answers the package as the last call left it (published, or its draft).
 */
export async function loadPackage(dir: string, target: Target, publish = false): Promise<Json> {
  const definition = JSON.parse(await readFile(join(dir, 'knowledge-package.json'), 'utf8')) as Definition;
  const pkg = await loadElement(target, dir, definition.knowledge_package, `${target.api}/api/packages`);
  const records: { id: string }[] = [];
  for (const resource of definition.resources ?? []) {
    records.push({ id: String((await loadElement(target, dir, resource, `${target.api}/api/records`))['id']) });
  }
  if (records.length > 0) {
    await send(target, 'POST', link(pkg, 'context_associate'), { json: { records } });
    const attached = await send(target, 'POST', link(pkg, 'resources'), { json: { resources: records } });
    const errors = (attached['errors'] ?? []) as unknown[];
    if (errors.length > 0) throw new Error(`resources not attached: ${JSON.stringify(errors)}`);
  }
  const draft = await send(target, 'GET', link(pkg, 'self'));
  return publish ? send(target, 'POST', link(draft, 'publish')) : draft;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const api = args[args.indexOf('--api') + 1];
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--api');
  const token = process.env['KRS_TOKEN'];
  if (!args.includes('--api') || api === undefined || dir === undefined || !token) {
    console.error('usage: KRS_TOKEN=<token> load-package.ts <dir> --api <base URL> [--publish]');
    process.exit(2);
  }
  const answer = await loadPackage(dir, { api: api.replace(/\/$/, ''), token }, args.includes('--publish'));
  console.log(JSON.stringify({ id: answer['id'], status: answer['status'], links: { self_html: (answer['links'] as Json)['self_html'] } }, null, 2));
}
