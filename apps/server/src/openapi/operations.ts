/**
 * The route description table: one entry per method and path that krs answers. Request schemas
 * are the zod schemas the routes validate with (routes/schemas.ts), never copies; response shapes
 * come from responses.ts. document.ts turns the table into OpenAPI. test/openapi.test.ts fails
 * when the table and the app's routes drift apart.
 */
import type { ZodObject, ZodType } from 'zod';
import { CITATION_LOCALES, CITATION_STYLES } from '../exports/citation.ts';
import { EXPORT_FORMATS } from '../exports/formats.ts';
import { baseMap } from '../pages/world-map.tsx';
import { accessLinkBody, draftBody, fileKeysBody, listingQuery, recordsBody, resourcesBody, versionsQuery } from '../routes/schemas.ts';
import { iiifOperations } from './iiif-operations.ts';
import { vocabularyOperations } from './vocabulary-operations.ts';
import { accessLink, accessLinkList, fileEntry, fileList, health, readiness, requestPage, resourceErrors } from './responses.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

/** Error statuses with the JSON error body; each is a shared response in the document. */
export const ERROR_STATUSES = [400, 401, 403, 404, 406, 408, 409, 412, 413, 415, 416, 429, 500, 503, 507] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** What a successful answer carries. */
export type Body =
  /** `exports`: a published version's GET, which also answers every export format by `Accept`. */
  | { kind: 'record'; exports?: boolean }
  /** One export format, chosen by the `format` path parameter. */
  | { kind: 'export' }
  | { kind: 'list' }
  | { kind: 'json'; schema: ZodType }
  | { kind: 'bytes' }
  | { kind: 'html' }
  | { kind: 'xml' }
  | { kind: 'text'; mediaType: string }
  | { kind: 'asset'; mediaType: string }
  | { kind: 'empty' };

export interface Success {
  status: 200 | 201 | 202 | 204 | 206 | 302 | 303 | 304 | 503;
  description: string;
  body: Body;
  headers?: readonly string[];
}

/**
 * Who may call: anyone (signed in or with link tokens, or neither), a signed-in user, a signed-in
 * user or the holder of a link (an `edit` link may do all an owner does but manage links), or no
 * credential at all.
 */
export type Access = 'optional' | 'user' | 'user-or-link' | 'none' | 'metrics';

export interface ExtraParam {
  name: string;
  description: string;
  values?: readonly string[];
}

export interface Operation {
  method: Method;
  /** OpenAPI form: `{name}` for each Hono `:name`. */
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  access: Access;
  query?: ZodObject;
  /** Repeatable facet filters read beside the query schema (`resource_type`, `access_status`, `record_type`). */
  facets?: boolean;
  /** Parameters read without a zod schema (the citation's `style` and `locale`, the area picker's clicks). */
  params?: readonly ExtraParam[];
  /** Path parameters that take only these values. */
  pathEnums?: Readonly<Record<string, readonly string[]>>;
  /** The request body: a JSON schema, raw bytes (upload) or the OAI form. */
  request?: { kind: 'json'; schema: ZodType; name: string; required?: boolean } | { kind: 'bytes' } | { kind: 'form' };
  /** Takes `If-Match: "<revision_id>"`. */
  ifMatch?: boolean;
  /** Honours `Range` and conditional request headers (downloads). */
  ranges?: boolean;
  responses: readonly Success[];
  errors: readonly ErrorStatus[];
  /** Refusals are HTML pages (a bad bearer token, refused before the page is made, is still JSON). */
  htmlErrors?: boolean;
}

/** Named request schemas: emitted once under components.schemas and referenced. */
export const REQUEST_SCHEMAS = { DraftBody: draftBody, FileKeys: fileKeysBody, AccessLinkBody: accessLinkBody, RecordsBody: recordsBody, ResourcesBody: resourcesBody } as const;

/** 503: the database or the file storage does not answer. */
const READ = [401, 403, 404, 406, 500, 503] as const;
/** Every GET of a published version answers 304 to the ETag it carries (respond.ts). */
const RECORD_NOT_MODIFIED: Success = { status: 304, description: '`If-None-Match` names the current ETag: the answer is unchanged.', body: { kind: 'empty' }, headers: ['ETag'] };
/** 429 (and 503): what a record or a page of records holds is taken from the same memory bound as bodies (docs/operations.md, "Answers"). */
const ANSWER_READ = [...READ, 429] as const;
const QUERY_READ = [400, ...ANSWER_READ] as const;
/** 429 and 503: the body memory bound (docs/operations.md, "Request bodies"); 507: the disk is full. */
const WRITE = [400, 401, 403, 404, 406, 409, 413, 415, 429, 500, 503, 507] as const;

/** `published`: a GET of a published version, which carries Signposting `Link`; `exports`: also answers the export formats. */
const recordAnswer = (status: Success['status'], description: string, read: { published?: boolean; exports?: boolean } = {}): Success => ({
  status,
  description,
  body: { kind: 'record', exports: read.exports ?? false },
  headers: ['ETag', 'Vary', ...(read.published ? ['Link'] : [])],
});

/** The formatted citation's choices, by `Accept: text/x-bibliography` or the `citation` export. */
export const CITATION_PARAMS: readonly ExtraParam[] = [
  { name: 'style', description: 'Citation style of `text/x-bibliography`; default `apa`.', values: CITATION_STYLES.map((s) => s.id) },
  { name: 'locale', description: 'Citation locale of `text/x-bibliography` (any case, `_` for `-`); default `en-US`.', values: CITATION_LOCALES },
];
const listAnswer = (description = 'A page of records.'): Success => ({ status: 200, description, body: { kind: 'list' }, headers: ['Vary'] });
const json = (status: Success['status'], description: string, schema: ZodType): Success => ({ status, description, body: { kind: 'json', schema } });
const empty = (description = 'Done; no body.'): Success => ({ status: 204, description, body: { kind: 'empty' } });
const html = (description: string): Success => ({ status: 200, description, body: { kind: 'html' } });

function recordOperations(kind: 'resource' | 'package'): Operation[] {
  const base = kind === 'package' ? '/api/packages' : '/api/records';
  const noun = kind === 'package' ? 'package' : 'resource';
  const tag = kind === 'package' ? 'Knowledge Packages' : 'Knowledge Resources';
  const files = kind === 'package' ? 'Package files' : 'Resource files';
  const links = kind === 'package' ? 'Package access links' : 'Resource access links';
  const draftBodyRequest = { kind: 'json', schema: draftBody, name: 'DraftBody' } as const;
  const download = (side: 'draft' | 'published'): Operation[] =>
    (['get', 'head'] as const).map((method) => ({
      method,
      path: `${base}/{id}${side === 'draft' ? '/draft' : ''}/files/{key}/content`,
      summary: `${method === 'get' ? 'Download' : 'Headers of'} a ${side === 'draft' ? 'draft' : 'published'} ${noun} file's content`,
      description: 'Raw bytes with `Content-Disposition`, `Content-MD5`, `ETag` (`"md5:<hex>"`) and `Last-Modified`; honours `Range`, `If-Range`, `If-None-Match`, `If-Modified-Since`, `If-Match` and `If-Unmodified-Since`. A file without content yet is a 400. A download holds a read buffer until its client takes the bytes, from the same memory bound as request bodies (429/503 with `Retry-After` past it); one whose client takes nothing for `KRS_DOWNLOAD_IDLE_TIMEOUT` seconds is dropped.',
      tags: [files],
      access: side === 'draft' ? 'user-or-link' : 'optional',
      ranges: true,
      responses: [
        { status: 200, description: 'The whole file.', body: { kind: 'bytes' }, headers: ['ETag', 'Last-Modified', 'Content-Disposition', 'Content-MD5', 'Accept-Ranges'] },
        { status: 206, description: 'The requested byte range.', body: { kind: 'bytes' }, headers: ['ETag', 'Last-Modified', 'Content-Range'] },
        { status: 304, description: 'Not modified since the validators sent.', body: { kind: 'empty' }, headers: ['ETag', 'Last-Modified'] },
      ],
      errors: [400, 401, 403, 404, 409, 412, 416, 429, 500, 503],
    }));
  const ops: Operation[] = [
    {
      method: 'post',
      path: base,
      summary: `Create a ${noun} draft`,
      description: kind === 'package' ? 'The answer also carries `expanded` (the owners).' : undefined,
      tags: [tag],
      access: 'user',
      request: draftBodyRequest,
      responses: [recordAnswer(201, 'The new draft.')],
      errors: WRITE,
    },
    { method: 'get', path: base, summary: `Search published ${noun}s`, tags: [tag], access: 'optional', query: listingQuery, facets: true, responses: [listAnswer()], errors: QUERY_READ },
    { method: 'get', path: `${base}/{id}/draft`, summary: `Read a ${noun} draft`, tags: [tag], access: 'user-or-link', responses: [recordAnswer(200, 'The draft.')], errors: ANSWER_READ },
    {
      method: 'put',
      path: `${base}/{id}/draft`,
      summary: `Update a ${noun} draft`,
      description: 'The body replaces the draft\'s members. With `If-Match`, a draft changed since that revision answers 412.',
      tags: [tag],
      access: 'user-or-link',
      request: draftBodyRequest,
      ifMatch: true,
      responses: [recordAnswer(200, 'The updated draft.')],
      errors: [...WRITE, 412],
    },
    {
      method: 'post',
      path: `${base}/{id}/draft`,
      summary: `Edit a published ${noun}`,
      description: 'Opens a draft of the published version (or answers the one already open).',
      tags: [tag],
      access: 'user-or-link',
      responses: [recordAnswer(201, 'The draft of the published version.')],
      errors: WRITE,
    },
    {
      method: 'delete',
      path: `${base}/{id}/draft`,
      summary: `Delete a ${noun} draft`,
      tags: [tag],
      access: 'user-or-link',
      ifMatch: true,
      responses: [empty()],
      errors: [400, ...READ, 409, 412],
    },
    {
      method: 'post',
      path: `${base}/{id}/draft/pids/doi`,
      summary: `Reserve a DOI for a ${noun} draft`,
      tags: [tag],
      access: 'user-or-link',
      responses: [recordAnswer(201, 'The draft with its reserved DOI in `pids`.')],
      errors: WRITE,
    },
    {
      method: 'post',
      path: `${base}/{id}/draft/actions/publish`,
      summary: `Publish a ${noun} draft`,
      description:
        kind === 'package'
          ? 'Publishes the package with its attached draft resources; an error in any of them blocks publication (400 naming the fields).'
          : 'A draft whose metadata is incomplete answers 400 naming the fields.',
      tags: [tag],
      access: 'user-or-link',
      ifMatch: true,
      responses: [recordAnswer(202, 'The published record.')],
      errors: [...WRITE, 412],
    },
    {
      method: 'get',
      path: `${base}/{id}`,
      summary: `Read a published ${noun}`,
      description:
        'By `Accept`, also answers each export format (schema.org JSON-LD, DataCite JSON and XML, Dublin Core, CSL-JSON, BibTeX, GeoJSON), ' +
        'a formatted citation (`text/x-bibliography`, with `style` and `locale`) and a linkset (`application/linkset+json`). Carries Signposting `Link` headers.',
      tags: [tag],
      access: 'optional',
      params: CITATION_PARAMS,
      responses: [
        recordAnswer(200, 'The published record.', { published: true, exports: true }),
        RECORD_NOT_MODIFIED,
      ],
      errors: QUERY_READ,
    },
    { method: 'post', path: `${base}/{id}/versions`, summary: `Create a new version of a ${noun}`, tags: [tag], access: 'user-or-link', responses: [recordAnswer(201, 'The new version draft.')], errors: WRITE },
    {
      method: 'get',
      path: `${base}/{id}/versions`,
      summary: `List the versions of a ${noun}`,
      tags: [tag],
      access: 'optional',
      query: versionsQuery,
      responses: [listAnswer('The versions, newest first unless `sort` says otherwise (`sortBy` reports the order used).')],
      errors: QUERY_READ,
    },
    {
      method: 'get',
      path: `${base}/{id}/versions/latest`,
      summary: `Read the latest version of a ${noun}`,
      tags: [tag],
      access: 'optional',
      responses: [recordAnswer(200, 'The latest published version.', { published: true }), RECORD_NOT_MODIFIED],
      errors: ANSWER_READ,
    },
    { method: 'get', path: `${base}/{id}/draft/files`, summary: `List a ${noun} draft's files`, tags: [files], access: 'user-or-link', responses: [json(200, 'The draft files.', fileList)], errors: READ },
    {
      method: 'post',
      path: `${base}/{id}/draft/files`,
      summary: `Start uploads to a ${noun} draft`,
      description: 'Step one of three: name the files (a single `{key}` object is taken as a one-item list). Each entry starts `pending`. An empty list changes nothing and is answered with the listing, on a metadata-only draft too.',
      tags: [files],
      access: 'user-or-link',
      request: { kind: 'json', schema: fileKeysBody, name: 'FileKeys', required: true },
      responses: [json(201, 'The draft files.', fileList)],
      errors: WRITE,
    },
    {
      method: 'post',
      path: `${base}/{id}/draft/actions/files-import`,
      summary: `Import the previous version's files into a ${noun} draft`,
      tags: [files],
      access: 'user-or-link',
      responses: [json(201, 'The draft files.', fileList)],
      errors: WRITE,
    },
    {
      method: 'put',
      path: `${base}/{id}/draft/files/{key}/content`,
      summary: `Upload a ${noun} draft file's bytes`,
      description: 'Step two: the raw bytes, streamed, as they are to be stored: a body under a content coding (`Content-Encoding: gzip`, ...) is answered 415. An upload that sends nothing for the idle timeout is answered 408 and dropped; nothing is kept from a refused upload.',
      tags: [files],
      access: 'user-or-link',
      request: { kind: 'bytes' },
      responses: [json(200, 'The file entry.', fileEntry)],
      errors: [400, 401, 403, 404, 406, 408, 409, 413, 415, 429, 500, 503, 507],
    },
    {
      method: 'post',
      path: `${base}/{id}/draft/files/{key}/commit`,
      summary: `Commit an uploaded ${noun} draft file`,
      description: 'Step three: the entry becomes `completed`.',
      tags: [files],
      access: 'user-or-link',
      responses: [json(200, 'The completed file entry.', fileEntry)],
      errors: WRITE,
    },
    { method: 'get', path: `${base}/{id}/draft/files/{key}`, summary: `Read a ${noun} draft file entry`, tags: [files], access: 'user-or-link', responses: [json(200, 'The file entry.', fileEntry)], errors: READ },
    ...download('draft'),
    {
      method: 'delete',
      path: `${base}/{id}/draft/files/{key}`,
      summary: `Delete a ${noun} draft file`,
      tags: [files],
      access: 'user-or-link',
      responses: [empty()],
      errors: [...READ, 409],
    },
    { method: 'get', path: `${base}/{id}/files`, summary: `List a published ${noun}'s files`, tags: [files], access: 'optional', responses: [json(200, 'The files.', fileList)], errors: READ },
    { method: 'get', path: `${base}/{id}/files/{key}`, summary: `Read a published ${noun} file entry`, tags: [files], access: 'optional', responses: [json(200, 'The file entry.', fileEntry)], errors: READ },
    ...download('published'),
    {
      method: 'post',
      path: `${base}/{id}/access/links`,
      summary: `Create an access link to a ${noun}`,
      description: 'Owners only. `permission` is `view`, `preview` or `edit`; the answer carries the link\'s `token`.',
      tags: [links],
      access: 'user',
      request: { kind: 'json', schema: accessLinkBody, name: 'AccessLinkBody', required: true },
      responses: [json(201, 'The access link.', accessLink)],
      errors: WRITE,
    },
    { method: 'get', path: `${base}/{id}/access/links`, summary: `List the access links of a ${noun}`, tags: [links], access: 'user', responses: [json(200, 'The access links.', accessLinkList)], errors: READ },
    { method: 'get', path: `${base}/{id}/access/links/{linkId}`, summary: `Read an access link of a ${noun}`, tags: [links], access: 'user', responses: [json(200, 'The access link.', accessLink)], errors: READ },
    {
      method: 'patch',
      path: `${base}/{id}/access/links/{linkId}`,
      summary: `Change an access link of a ${noun}`,
      tags: [links],
      access: 'user',
      request: { kind: 'json', schema: accessLinkBody, name: 'AccessLinkBody', required: true },
      responses: [json(200, 'The access link.', accessLink)],
      errors: WRITE,
    },
    { method: 'delete', path: `${base}/{id}/access/links/{linkId}`, summary: `Delete an access link of a ${noun}`, tags: [links], access: 'user', responses: [empty()], errors: READ },
  ];
  return ops;
}

const PACKAGE_CONTEXT = 'Package context and resources';

const packageOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/packages/context/{parentId}/resources',
    summary: 'List the resources in a package context',
    description: 'The context is shared by every version of the package: `parentId` is the package\'s `parent.id`.',
    tags: [PACKAGE_CONTEXT],
    access: 'optional',
    query: listingQuery,
    responses: [listAnswer('`{aggregations, hits}`.')],
    errors: QUERY_READ,
  },
  {
    method: 'post',
    path: '/api/packages/{id}/context/actions/associate',
    summary: 'Put draft resources in a package context',
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    request: { kind: 'json', schema: recordsBody, name: 'RecordsBody', required: true },
    responses: [empty()],
    errors: WRITE,
  },
  {
    method: 'post',
    path: '/api/packages/{id}/context/actions/dissociate',
    summary: 'Take draft resources out of a package context',
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    request: { kind: 'json', schema: recordsBody, name: 'RecordsBody', required: true },
    responses: [empty()],
    errors: WRITE,
  },
  {
    method: 'get',
    path: '/api/packages/{id}/draft/resources',
    summary: 'List the resources attached to a package draft',
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    query: listingQuery,
    responses: [listAnswer('`{aggregations, hits}`.')],
    errors: QUERY_READ,
  },
  {
    method: 'post',
    path: '/api/packages/{id}/draft/resources',
    summary: 'Attach resources to a package draft',
    description: 'Each resource is a draft in the context or a published resource. Per-resource failures are listed in `errors`; the status stays 200.',
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    request: { kind: 'json', schema: resourcesBody, name: 'ResourcesBody', required: true },
    responses: [json(200, 'What could not be attached.', resourceErrors)],
    errors: WRITE,
  },
  {
    method: 'delete',
    path: '/api/packages/{id}/draft/resources',
    summary: 'Detach resources from a package draft',
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    request: { kind: 'json', schema: resourcesBody, name: 'ResourcesBody', required: true },
    responses: [json(200, 'What could not be detached.', resourceErrors)],
    errors: WRITE,
  },
  {
    method: 'post',
    path: '/api/packages/{id}/draft/actions/resources-import',
    summary: "Copy the previous version's resources into a package draft",
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    responses: [empty()],
    errors: WRITE,
  },
  {
    method: 'get',
    path: '/api/packages/{id}/requests',
    summary: 'List the requests of a published package',
    description: 'The `requests` link of a published package. Nothing opens requests (reviews, access or curation requests) here, so the list is empty; it answers whoever may read the package.',
    tags: [PACKAGE_CONTEXT],
    access: 'optional',
    responses: [json(200, 'An empty page of requests.', requestPage)],
    errors: READ,
  },
  {
    method: 'get',
    path: '/api/packages/{id}/draft/review',
    summary: 'The review request of a package draft',
    description: 'The `review` link of a package draft. Drafts are published by their owners, never through a review: for a draft its reader may read, a 404 saying so.',
    tags: [PACKAGE_CONTEXT],
    access: 'user-or-link',
    responses: [],
    errors: READ,
  },
  {
    method: 'get',
    path: '/api/packages/{id}/resources',
    summary: 'List the resources of a published package',
    tags: [PACKAGE_CONTEXT],
    access: 'optional',
    query: listingQuery,
    responses: [listAnswer('`{aggregations, hits}`.')],
    errors: QUERY_READ,
  },
];

const searchOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/search',
    summary: 'Search resources and packages together',
    description: 'Hits mix kinds; `parent.type` tells them apart.',
    tags: ['Search'],
    access: 'optional',
    query: listingQuery,
    facets: true,
    responses: [listAnswer()],
    errors: QUERY_READ,
  },
  {
    method: 'get',
    path: '/api/user/records',
    summary: "The signed-in user's resources, drafts included",
    tags: ['Search'],
    access: 'user',
    query: listingQuery,
    facets: true,
    responses: [listAnswer()],
    errors: QUERY_READ,
  },
  {
    method: 'get',
    path: '/api/user/packages',
    summary: "The signed-in user's packages, drafts included",
    tags: ['Search'],
    access: 'user',
    query: listingQuery,
    facets: true,
    responses: [listAnswer()],
    errors: QUERY_READ,
  },
];

const OAI_DESCRIPTION =
  'OAI-PMH 2.0: the six verbs (`Identify`, `ListMetadataFormats`, `ListSets`, `ListIdentifiers`, `ListRecords`, `GetRecord`) with `metadataPrefix` `oai_dc`, `oai_datacite` or `datacite`. ' +
  'Protocol errors are `<error>` elements in a 200 answer, as the protocol wants.';

const oaiOperations: Operation[] = [
  {
    method: 'get',
    path: '/oai2d',
    summary: 'OAI-PMH request',
    description: `${OAI_DESCRIPTION} Arguments are query parameters (\`verb\`, \`identifier\`, \`metadataPrefix\`, \`from\`, \`until\`, \`set\`, \`resumptionToken\`).`,
    tags: ['OAI-PMH'],
    access: 'optional',
    responses: [{ status: 200, description: 'An OAI-PMH response document.', body: { kind: 'xml' } }],
    errors: [401, 500],
  },
  {
    method: 'post',
    path: '/oai2d',
    summary: 'OAI-PMH request (form body)',
    description: `${OAI_DESCRIPTION} Arguments come as an \`application/x-www-form-urlencoded\` body of at most 16 KiB.`,
    tags: ['OAI-PMH'],
    access: 'optional',
    request: { kind: 'form' },
    responses: [{ status: 200, description: 'An OAI-PMH response document.', body: { kind: 'xml' } }],
    errors: [401, 500],
  },
];

const crawlerOperations: Operation[] = [
  {
    method: 'get',
    path: '/robots.txt',
    summary: 'Robots exclusion rules',
    description: 'Lets crawlers take the HTML pages and published file content, keeps them out of the rest of the API, drafts and search results, and names the sitemap.',
    tags: ['Pages'],
    access: 'optional',
    responses: [{ status: 200, description: 'The rules (RFC 9309).', body: { kind: 'text', mediaType: 'text/plain' } }],
    errors: [401, 500],
  },
  {
    method: 'get',
    path: '/sitemap.xml',
    summary: 'Sitemap of the published records',
    description:
      'The landing page of every public record and package at its latest version, with `lastmod` (sitemaps.org protocol). Past 50,000 published versions it is a sitemap index whose parts are this path with `after`, each listing the pages among the next 50,000 versions by last change. One part (or whole sitemap) is made at a time: a request meanwhile gets 503 with `Retry-After`.',
    tags: ['Pages'],
    access: 'optional',
    params: [{ name: 'after', description: 'A part of the sitemap: the pages among the versions after this position, as the index gives it.' }],
    responses: [{ status: 200, description: 'A `urlset`, or a `sitemapindex`.', body: { kind: 'text', mediaType: 'application/xml' } }],
    errors: [400, 401, 500, 503],
  },
];

const PAGE_ERRORS = 'A refusal is an HTML page with the status the API would give.';

const exportOperations: Operation[] = (['records', 'packages'] as const).map(
  (collection): Operation => ({
    method: 'get',
    path: `/${collection}/{id}/export/{format}`,
    summary: `A published ${collection === 'records' ? 'resource' : 'package'} in one export format`,
    description: 'The export links of a landing page: indented, shown inline with a file name to save under. `citation` is the formatted citation as text.',
    tags: ['Exports'],
    access: 'optional',
    pathEnums: { format: [...EXPORT_FORMATS.map((f) => f.id), 'citation'] },
    params: CITATION_PARAMS,
    responses: [{ status: 200, description: 'The export.', body: { kind: 'export' }, headers: ['Content-Disposition'] }],
    errors: [400, 401, 403, 404, 429, 500, 503],
  }),
);


const pageOperations: Operation[] = [
  { method: 'get', path: '/', summary: 'Home page: the newest records', tags: ['Pages'], access: 'optional', responses: [html('The page.')], errors: [401, 500], htmlErrors: true },
  {
    method: 'get',
    path: '/search',
    summary: 'Search page',
    description: 'Takes the API\'s listing parameters.',
    tags: ['Pages'],
    access: 'optional',
    query: listingQuery,
    facets: true,
    params: [
      { name: 'at.x', description: 'A click on the area map (its pixel column); with `at.y`, sets a corner or, after `corner`, the box.' },
      { name: 'at.y', description: 'The click\'s pixel row.' },
      { name: 'corner', description: 'The first corner picked, `lon,lat`.' },
    ],
    responses: [html('The page.'), { status: 303, description: 'After a click on the area map: the search with the corner or box it made.', body: { kind: 'empty' }, headers: ['Location'] }],
    errors: [400, 401, 429, 500, 503],
    htmlErrors: true,
  },
  ...(
    [
      ['/uploads/{id}', 'Landing page of a resource draft', 'user-or-link'],
      ['/uploads/packages/{id}', 'Landing page of a package draft', 'user-or-link'],
      ['/packages/uploads/{id}', 'Landing page of a package draft, where its `self_html` pointed before', 'user-or-link'],
      ['/records/{id}', 'Landing page of a published resource', 'optional'],
      ['/packages/{id}', 'Landing page of a published package', 'optional'],
    ] as const
  ).map(
    ([path, summary, access]): Operation => ({
      method: 'get',
      path,
      summary,
      description: `${PAGE_ERRORS}${path.includes('uploads') ? '' : ' Carries a Signposting `Link` header.'}`,
      tags: ['Pages'],
      access,
      responses: [html('The page.')],
      errors: [401, 403, 404, 429, 500, 503],
      htmlErrors: true,
    }),
  ),
  ...(['records', 'packages'] as const).map(
    (collection): Operation => ({
      method: 'get',
      path: `/${collection}/{id}/latest`,
      summary: `Redirect to the latest version's landing page (${collection})`,
      tags: ['Pages'],
      access: 'optional',
      responses: [{ status: 302, description: 'To the landing page of the latest version (keeping `?token=`).', body: { kind: 'empty' }, headers: ['Location'] }],
      errors: [401, 403, 404, 429, 500, 503],
      htmlErrors: true,
    }),
  ),
  {
    method: 'get',
    path: '/packages/{id}/context',
    summary: "A package's context: its resources across versions",
    description: PAGE_ERRORS,
    tags: ['Pages'],
    access: 'optional',
    query: listingQuery,
    responses: [html('The page.')],
    errors: [400, 401, 403, 404, 500],
    htmlErrors: true,
  },
  {
    method: 'get',
    path: '/search/area.svg',
    summary: 'The area map of the search page',
    description: 'Draws the box `bbox` and the pending `corner` on a world map.',
    tags: ['Pages'],
    access: 'optional',
    params: [
      { name: 'bbox', description: 'The current box, `W,N,E,S`.' },
      { name: 'corner', description: 'The first corner picked, `lon,lat`.' },
    ],
    responses: [{ status: 200, description: 'SVG.', body: { kind: 'asset', mediaType: 'image/svg+xml' } }],
    errors: [401],
  },
  {
    method: 'get',
    path: '/static/krs.css',
    summary: 'The pages\' stylesheet',
    tags: ['Pages'],
    access: 'none',
    responses: [{ status: 200, description: 'CSS.', body: { kind: 'asset', mediaType: 'text/css' } }],
    errors: [401],
  },
  {
    method: 'get',
    path: baseMap().path,
    summary: 'The world map under the locations of a landing page',
    description: 'Coastlines and graticule; the name changes with the content, so it is cached for a year.',
    tags: ['Pages'],
    access: 'none',
    responses: [{ status: 200, description: 'SVG.', body: { kind: 'asset', mediaType: 'image/svg+xml' } }],
    errors: [401],
  },
];

function opsOperations(metrics: boolean): Operation[] {
  const ops: Operation[] = [
    { method: 'get', path: '/healthz', summary: 'Liveness probe', tags: ['Operations'], access: 'none', responses: [json(200, 'The process is up.', health)], errors: [] },
    {
      method: 'get',
      path: '/readyz',
      summary: 'Readiness probe',
      description: 'Checks each dependency (database, file storage, search index); fails while shutting down so load balancers drain the node.',
      tags: ['Operations'],
      access: 'none',
      responses: [json(200, 'Ready.', readiness), json(503, 'Not ready, or stopping; `failing` names the dependencies.', readiness)],
      errors: [],
    },
  ];
  if (metrics) {
    ops.push({
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics',
      description: 'Wants `Authorization: Bearer <metrics token>` when one is configured.',
      tags: ['Operations'],
      access: 'metrics',
      responses: [{ status: 200, description: 'Prometheus text exposition format.', body: { kind: 'text', mediaType: 'text/plain; version=0.0.4' } }],
      errors: [401],
    });
  }
  return ops;
}

/** The reference's own routes: the document, the page and its assets (paths known at start-up). */
function docsOperations(assets: readonly { path: string; mediaType: string }[]): Operation[] {
  return [
    { method: 'get', path: '/api/openapi.json', summary: 'This OpenAPI document', tags: ['Documentation'], access: 'none', responses: [{ status: 200, description: 'OpenAPI 3.1.', body: { kind: 'asset', mediaType: 'application/json' } }], errors: [] },
    { method: 'get', path: '/api/docs', summary: 'Interactive API reference', tags: ['Documentation'], access: 'none', responses: [html('The reference page.')], errors: [] },
    ...assets.map(
      (asset): Operation => ({
        method: 'get',
        path: asset.path,
        summary: 'An asset of the API reference',
        description: 'Content-addressed: cached for a year.',
        tags: ['Documentation'],
        access: 'none',
        responses: [{ status: 200, description: 'The asset.', body: { kind: 'asset', mediaType: asset.mediaType } }],
        errors: [],
      }),
    ),
  ];
}

export interface TableOptions {
  /** `/metrics` is routed only when metrics are configured. */
  metrics: boolean;
  docsAssets: readonly { path: string; mediaType: string }[];
}

/** Every operation krs answers: the API first, then harvesting, pages, probes and this reference. */
export function operationTable(options: TableOptions): Operation[] {
  return [
    ...recordOperations('resource'),
    ...recordOperations('package'),
    ...packageOperations,
    ...searchOperations,
    ...vocabularyOperations,
    ...iiifOperations,
    ...oaiOperations,
    ...exportOperations,
    ...pageOperations,
    ...crawlerOperations,
    ...opsOperations(options.metrics),
    ...docsOperations(options.docsAssets),
  ];
}
