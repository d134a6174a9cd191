/**
 * Builds the OpenAPI 3.1 document from the route table. Schemas are emitted by zod 4's
 * `z.toJSONSchema` as JSON Schema draft 2020-12, the dialect OpenAPI 3.1 uses, so request bodies
 * and query parameters are documented from the very schemas the routes validate with.
 */
import { z, type ZodObject, type ZodType } from 'zod';
import { UI_TYPES } from '../accept.ts';
import { CITATION_TYPE, EXPORT_FORMATS, LINKSET_TYPE, RECORD_ALTERNATES } from '../exports/formats.ts';
import { JSON_LD_TYPE } from '../exports/json-ld.ts';
import { ERROR_STATUSES, REQUEST_SCHEMAS, operationTable, type Access, type Body, type ErrorStatus, type Operation, type TableOptions } from './operations.ts';
import * as shapes from './responses.ts';

export type JsonSchema = { [key: string]: unknown };

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

interface MediaType {
  schema?: JsonSchema;
}

interface Response {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, MediaType>;
}

interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response | { $ref: string }>;
  security: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Partial<Record<Operation['method'], OperationObject>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, Response>;
    parameters: Record<string, Parameter>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<string, JsonSchema>;
  };
}

export interface DocumentOptions extends TableOptions {
  baseUrl: string;
  version: string;
}

/** Response shapes with a name in components.schemas (request schemas come from REQUEST_SCHEMAS). */
const RESPONSE_SCHEMAS = {
  Error: shapes.errorBody,
  FieldIssue: shapes.fieldIssue,
  Record: shapes.record,
  JsonLd: shapes.jsonLd,
  SearchResult: shapes.searchResult,
  FileEntry: shapes.fileEntry,
  FileList: shapes.fileList,
  AccessLink: shapes.accessLink,
  AccessLinkList: shapes.accessLinkList,
  ResourceErrors: shapes.resourceErrors,
  Health: shapes.health,
  Readiness: shapes.readiness,
} as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** JSON Schema for one zod schema, as the request sees it (before transforms). */
function toSchema(schema: ZodType): JsonSchema {
  const out: JsonSchema = { ...z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) };
  delete out['$schema'];
  return out;
}

/** Every named schema in one pass, so shared shapes are `$ref`s rather than copies. */
function componentSchemas(): { schemas: Record<string, JsonSchema>; nameOf: Map<ZodType, string> } {
  const registry = z.registry<{ id: string }>();
  const nameOf = new Map<ZodType, string>();
  for (const [name, schema] of Object.entries({ ...RESPONSE_SCHEMAS, ...REQUEST_SCHEMAS })) {
    if (nameOf.has(schema)) continue;
    registry.add(schema, { id: name });
    nameOf.set(schema, name);
  }
  const emitted = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(emitted.schemas)) {
    // `$id` and `$schema` are the converter's: an `$id` may not be a fragment, and the dialect is the document's.
    const { $id: _id, $schema: _schema, ...rest } = schema;
    schemas[name] = rest;
  }
  return { schemas, nameOf };
}

const PATH_PARAMS: Record<string, string> = {
  id: 'The id of the record or package (any version).',
  key: 'The file key (its name), percent-encoded.',
  linkId: 'The id of the access link.',
  format: 'The export format.',
  parentId: "The package's `parent.id`, shared by all its versions.",
  vocabulary: "The vocabulary, by InvenioRDM's id for it (docs/vocabularies.md).",
  entryId: 'The id of the vocabulary entry, percent-encoded.',
};

const QUERY_PARAMS: Record<string, string> = {
  q: 'Search-engine query string.',
  bbox: 'Bounding box `west,north,east,south` (top left and bottom right, longitude before latitude).',
  sort: 'Sort order (`bestmatch`, `newest`, `oldest`, `updated-desc`, `updated-asc`, `version` ...).',
  size: 'Items per page; default 10.',
  page: 'Page number, from 1.',
  suggest: "Words typed so far: each must start a word of the entry's id or title (case and accents ignored).",
  allversions: 'Include every version, not only the latest (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`).',
};

const FACETS: Record<string, string> = {
  resource_type: 'Keep hits of this resource type; repeat to allow several.',
  access_status: 'Keep hits of this access status (`open`, `restricted`, `embargoed`, `metadata-only`); repeatable.',
  record_type: 'Keep hits of this kind (`resource`, `package`); repeatable.',
};

function queryParameters(query: ZodObject): Parameter[] {
  const schema = toSchema(query);
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({ name, in: 'query', required: required.has(name), description: QUERY_PARAMS[name] ?? '', schema: s }));
}

const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'The request is not valid: body, query, header or state (`errors` names the fields).',
  401: 'The bearer token is malformed, unknown or revoked, or the call needs one. Answers `WWW-Authenticate: Bearer`.',
  403: 'The caller may not do this.',
  404: 'No such record, file or link (or not visible to the caller).',
  406: 'The `Accept` header names no media type this route can answer.',
  408: 'The upload sent nothing for the idle timeout; nothing was kept.',
  409: 'Conflicts with the current state (a concurrent change, an existing key, a state that does not allow it).',
  412: '`If-Match` (or a download precondition) does not match the current revision.',
  413: 'The body is too large (JSON over 10 MiB, a file over the size limit).',
  415: 'The body is not `application/json`, or it comes under a content coding (`Content-Encoding`; the answer says `Accept-Encoding: identity`).',
  416: 'The range cannot be satisfied; `Content-Range: bytes */<size>` gives the size.',
  429: "The caller's address holds its share of the memory request bodies, downloads and answers of large records may use, or (a search or listing) has as many searches waiting for their turn as it may (64); `Retry-After` says when to try again.",
  500: 'An unexpected failure; logged with the request id.',
  503: 'The server holds all the memory request bodies, downloads and answers of large records may use, or cannot reach its database or file storage; `Retry-After` says when to try again.',
  507: 'The server has no room left to store the write (its disk or quota is full); nothing of it was kept.',
};

const HEADERS: Record<string, string> = {
  ETag: 'A draft\'s revision (`"<revision_id>"`, what `If-Match` takes); a published version\'s revision and its parent\'s (`"<revision_id>.<n>"`), which changes when the version stops being the latest; or `"md5:<hex>"` of a file.',
  Link: 'Signposting links (RFC 8288) of a published record.',
  'Last-Modified': 'When the file last changed.',
  'Content-Disposition': '`attachment` with the file key as `filename*`.',
  'Content-MD5': 'Base-16 MD5 of the whole file.',
  'Accept-Ranges': '`bytes`.',
  'Content-Range': 'The range sent, or the size after a 416.',
  Location: 'Where to go.',
  'WWW-Authenticate': '`Bearer`.',
  Vary: '`Accept`: the body depends on it.',
};

const headerKey = (name: string) => name.replace(/[^A-Za-z0-9]/g, '');

/** Page routes refuse with an HTML page; their 401 is a page too, or JSON for a bad bearer token, refused before any page is made. */
const isPageError = (op: Operation) => op.htmlErrors === true;

/** `pageStatuses`: the statuses some page route refuses with, which get an HTML variant. */
function components(schemas: Record<string, JsonSchema>, pageStatuses: ReadonlySet<ErrorStatus>): OpenApiDocument['components'] {
  const responses: Record<string, Response> = {};
  for (const status of ERROR_STATUSES) {
    responses[`Error${status}`] = {
      description: ERROR_TEXT[status],
      ...(status === 401 ? { headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } } } : {}),
      content: { 'application/json': { schema: ref('Error') } },
    };
    if (status === 401 && pageStatuses.has(status)) {
      responses['Page401'] = {
        description: `${ERROR_TEXT[status]} As an HTML page asking to sign in or for a link; in JSON when a bearer token was refused.`,
        headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
        content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ref('Error') } },
      };
    } else if (pageStatuses.has(status)) {
      responses[`Page${status}`] = { description: `${ERROR_TEXT[status]} As an HTML page.`, content: { 'text/html': { schema: { type: 'string' } } } };
    }
  }
  const headers: OpenApiDocument['components']['headers'] = {};
  for (const [name, description] of Object.entries(HEADERS)) headers[headerKey(name)] = { description, schema: { type: 'string' } };
  return {
    schemas,
    responses,
    parameters: {
      IfMatch: { name: 'If-Match', in: 'header', required: false, description: 'The `revision_id` the change is based on (`"3"` or `3`), or a list of entity tags any of which may match (`"3", "4"`); compared strongly, so a weak tag (`W/"3"`) never matches. No match answers 412.', schema: { type: 'string' } },
      Range: { name: 'Range', in: 'header', required: false, description: 'One byte range, `bytes=<start>-<end>`.', schema: { type: 'string' } },
      IfNoneMatch: { name: 'If-None-Match', in: 'header', required: false, description: 'An ETag; a match answers 304.', schema: { type: 'string' } },
      IfModifiedSince: { name: 'If-Modified-Since', in: 'header', required: false, description: 'An HTTP date; unchanged since answers 304.', schema: { type: 'string' } },
      IfRange: { name: 'If-Range', in: 'header', required: false, description: 'An ETag or date: the range is honoured only if it still holds.', schema: { type: 'string' } },
      IfUnmodifiedSince: { name: 'If-Unmodified-Since', in: 'header', required: false, description: 'An HTTP date; changed since answers 412.', schema: { type: 'string' } },
      ContentLength: { name: 'Content-Length', in: 'header', required: false, description: 'The upload size in bytes, when known.', schema: { type: 'string', pattern: '^\\d+$' } },
    },
    headers,
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'A personal access token from `krs tokens create --user <email>`, as `Authorization: Bearer <token>`. A malformed or unknown token is a 401, never anonymous.',
      },
      accessLinkToken: {
        type: 'apiKey',
        in: 'query',
        name: 'token',
        description: "An access link's `token`, as `?token=<token>`; grants the link's permission (`view`, `preview` or `edit`). Repeatable.",
      },
      metricsToken: { type: 'http', scheme: 'bearer', description: 'The metrics token of the configuration, when one is set.' },
    },
  };
}

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  // `{}` first: anonymous callers are answered too, with what is public.
  optional: [{}, { bearerAuth: [] }, { accessLinkToken: [] }, { bearerAuth: [], accessLinkToken: [] }],
  user: [{ bearerAuth: [] }],
  'user-or-link': [{ bearerAuth: [] }, { accessLinkToken: [] }, { bearerAuth: [], accessLinkToken: [] }],
  none: [],
  metrics: [{}, { metricsToken: [] }],
};

/** `get /api/records/{id}/draft` -> `getApiRecordsIdDraft`; unique because method + path are. */
export function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (words.length === 0) words.push('root');
  return method + words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('');
}

/** An export format's body: JSON-LD has a named shape; other JSON formats are objects, the rest text. */
function exportSchema(mediaType: string): JsonSchema {
  if (mediaType === JSON_LD_TYPE) return ref('JsonLd');
  if (mediaType === LINKSET_TYPE || /[/+]json$/.test(mediaType)) return { type: 'object' };
  return { type: 'string' };
}

function successContent(body: Body, nameOf: Map<ZodType, string>): Record<string, MediaType> | undefined {
  const schemaOf = (schema: ZodType) => {
    const name = nameOf.get(schema);
    return name ? ref(name) : toSchema(schema);
  };
  const jsonTypes = (schema: JsonSchema) => Object.fromEntries(['application/json', ...UI_TYPES].map((t) => [t, { schema }]));
  switch (body.kind) {
    case 'record':
      return { ...jsonTypes(ref('Record')), ...(body.exports ? Object.fromEntries(RECORD_ALTERNATES.map((t) => [t, { schema: exportSchema(t) }])) : {}) };
    case 'export':
      return Object.fromEntries([...EXPORT_FORMATS.map((f) => f.mediaType), CITATION_TYPE].map((t) => [`${t}; charset=utf-8`, { schema: t === 'application/json' ? ref('Record') : exportSchema(t) }]));
    case 'list':
      return jsonTypes(ref('SearchResult'));
    case 'json':
      return { 'application/json': { schema: schemaOf(body.schema) } };
    case 'bytes':
      // The file's own `mimetype` (application/octet-stream when it has none).
      return { '*/*': { schema: { type: 'string' } } };
    case 'html':
      return { 'text/html': { schema: { type: 'string' } } };
    case 'xml':
      return { 'text/xml': { schema: { type: 'string' } } };
    case 'text':
    case 'asset':
      // This document itself is served as an asset: a JSON object, not a string.
      return { [body.mediaType]: { schema: /[/+]json$/.test(body.mediaType) ? { type: 'object' } : { type: 'string' } } };
    case 'empty':
      return undefined;
  }
}

function operationObject(op: Operation, nameOf: Map<ZodType, string>): OperationObject {
  const parameters: Parameter[] = [];
  for (const m of op.path.matchAll(/\{([^}]+)\}/g)) {
    const name = m[1] ?? '';
    const values = op.pathEnums?.[name];
    parameters.push({ name, in: 'path', required: true, description: PATH_PARAMS[name] ?? '', schema: values ? { type: 'string', enum: [...values] } : { type: 'string' } });
  }
  if (op.query) parameters.push(...queryParameters(op.query));
  for (const p of op.params ?? []) {
    parameters.push({ name: p.name, in: 'query', required: false, description: p.description, schema: p.values ? { type: 'string', enum: [...p.values] } : { type: 'string' } });
  }
  if (op.facets) {
    for (const [name, description] of Object.entries(FACETS)) {
      parameters.push({ name, in: 'query', required: false, description, schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true });
    }
  }
  const refs: { $ref: string }[] = [];
  if (op.ifMatch) refs.push({ $ref: '#/components/parameters/IfMatch' });
  if (op.ranges) for (const p of ['Range', 'IfRange', 'IfNoneMatch', 'IfModifiedSince', 'IfUnmodifiedSince']) refs.push({ $ref: `#/components/parameters/${p}` });
  if (op.request?.kind === 'bytes') refs.push({ $ref: '#/components/parameters/ContentLength' });

  const responses: OperationObject['responses'] = {};
  for (const success of op.responses) {
    const content = successContent(success.body, nameOf);
    const headers = success.headers?.length ? Object.fromEntries(success.headers.map((h) => [h, { $ref: `#/components/headers/${headerKey(h)}` }])) : undefined;
    responses[String(success.status)] = { description: success.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
  }
  for (const status of op.errors) {
    responses[String(status)] = { $ref: `#/components/responses/${isPageError(op) ? 'Page' : 'Error'}${status}` };
  }

  let requestBody: OperationObject['requestBody'];
  if (op.request?.kind === 'json') {
    requestBody = { required: op.request.required ?? false, content: { 'application/json': { schema: ref(op.request.name) } } };
  } else if (op.request?.kind === 'bytes') {
    requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
  } else if (op.request?.kind === 'form') {
    requestBody = {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(['verb', 'identifier', 'metadataPrefix', 'from', 'until', 'set', 'resumptionToken'].map((n) => [n, { type: 'string' }])),
            required: ['verb'],
          },
        },
      },
    };
  }
  // Members in the order a reader looks for them.
  const out: OperationObject = {
    operationId: operationId(op.method, op.path),
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [...op.tags],
    ...(parameters.length + refs.length > 0 ? { parameters: [...parameters, ...refs] } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: SECURITY[op.access],
  };
  return out;
}

const DESCRIPTION = `Knowledge Records Service: Knowledge Resources (\`/api/records\`) and Knowledge Packages (\`/api/packages\`) following InvenioRDM's REST API.

**Content negotiation.** JSON answers are \`application/json\` by default; \`Accept: application/vnd.inveniordm.v1+json\` (or \`application/vnd.service.v1+json\`) adds the \`ui\` member to records, and a published record's GET also answers each export format by its media type (schema.org JSON-LD, DataCite, Dublin Core, CSL-JSON, BibTeX, GeoJSON, a formatted citation, a linkset). An \`Accept\` naming none of an operation's media types is a 406.

**Authentication.** Anonymous callers see what is public. A personal access token goes in \`Authorization: Bearer <token>\`; access-link tokens go in \`?token=\`. Both may be given together.

**OPTIONS and other origins.** Every path answers \`OPTIONS\` with 204 and \`Allow\`. The API answers any origin (\`Access-Control-Allow-Origin: *\`, no credentials: nothing authenticates by cookie), answers preflights for the methods of the path and the \`Authorization\`, \`Content-Type\`, conditional and \`Range\` headers, and lets scripts read \`ETag\`, \`Last-Modified\`, \`Link\`, \`Location\`, \`Content-Range\` and the other headers it sends.

**Errors.** Every JSON error is \`{status, message, errors?: [{field, messages}]}\`. A path that exists under other methods answers 405 with \`Allow\`. JSON request bodies must be \`application/json\`, sent without a content coding (415), at most 10 MiB (413). A write, upload, download, record or listing is answered 429 (its address) or 503 (the server) with \`Retry-After\` while request bodies, downloads and answers hold all the memory they may. Searches and listings take turns between client addresses (a few at once from each); an address with 64 waiting is answered 429. A request the HTTP parser refuses before any route sees it is answered in the same JSON shape, on any path: 431 when its request line and headers pass 16 KiB, 400 for a malformed one (a raw non-ASCII path, a broken request line), and the connection closed.`;

/** The whole document; built once when the app is made. */
export function buildDocument(options: DocumentOptions): OpenApiDocument {
  const { schemas, nameOf } = componentSchemas();
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const pageStatuses = new Set<ErrorStatus>();
  for (const op of operationTable(options)) {
    for (const status of op.errors) if (isPageError(op)) pageStatuses.add(status);
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`The route table lists ${op.method.toUpperCase()} ${op.path} twice.`);
    item[op.method] = operationObject(op, nameOf);
    for (const tag of op.tags) if (!tags.includes(tag)) tags.push(tag);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Knowledge Records Service API', version: options.version, description: DESCRIPTION },
    servers: [{ url: options.baseUrl }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: components(schemas, pageStatuses),
  };
}
