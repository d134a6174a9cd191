/**
 * Response shapes for the OpenAPI document, in zod so they are written once and emitted as JSON
 * Schema by the same converter as the request schemas. They describe what serialize.ts and
 * errors.ts write; objects are loose because the spec lets records carry members it does not show.
 */
import { z } from 'zod';

export const fieldIssue = z.object({ field: z.string(), messages: z.array(z.string()) }).meta({
  description: 'One field that failed: a dotted path (list indexes as numbers, `_schema` for the whole body) and its messages.',
});

export const errorBody = z
  .object({
    status: z.number().int().meta({ description: 'The HTTP status, repeated.' }),
    message: z.string(),
    errors: z.array(fieldIssue).optional().meta({ description: 'Present when the error names fields.' }),
  })
  .meta({ description: 'Every error answer of the JSON API, whatever the status.' });

const visibility = z.enum(['public', 'restricted']);
const links = z.record(z.string(), z.string()).meta({ description: 'Absolute URLs on the configured base URL.' });

export const record = z
  .looseObject({
    id: z.string(),
    access: z.looseObject({
      record: visibility,
      files: visibility,
      embargo: z.looseObject({ active: z.boolean(), reason: z.string().nullable(), until: z.string().optional() }),
      status: z.enum(['open', 'restricted', 'embargoed', 'metadata-only']),
    }),
    files: z.looseObject({ enabled: z.boolean(), order: z.array(z.string()), default_preview: z.string().optional() }),
    metadata: z.record(z.string(), z.unknown()),
    created: z.string(),
    updated: z.string(),
    revision_id: z.number().int(),
    parent: z.looseObject({
      id: z.string(),
      access: z.looseObject({ owned_by: z.array(z.object({ user: z.string() })), links: z.array(z.object({ id: z.string() })) }),
      type: z.enum(['resource', 'package']),
      relationship: z
        .object({ managed_by: z.object({ id: z.string() }) })
        .optional()
        .meta({ description: "A published resource read on its own: the parent of the package holding it, when the caller may read a published version of that package." }),
    }),
    pids: z.record(z.string(), z.unknown()),
    versions: z.object({ index: z.number().int(), is_latest: z.boolean(), is_latest_draft: z.boolean() }),
    links,
    is_published: z.boolean(),
    is_draft: z.boolean().optional().meta({ description: 'Packages only.' }),
    status: z.enum(['draft', 'new_version_draft', 'published']).optional().meta({ description: 'Packages only.' }),
    custom_fields: z.record(z.string(), z.unknown()).optional().meta({ description: 'Packages only.' }),
    relationship: z
      .union([
        z.object({ resources: z.array(z.object({ id: z.string() })) }).meta({ description: 'Packages: the resources attached to this version.' }),
        z
          .object({ packages: z.array(z.object({ id: z.string() })) })
          .meta({ description: "A published resource read on its own: the package holding it, as its latest version the caller may read." }),
      ])
      .optional(),
    expires_at: z.string().optional(),
    errors: z.array(fieldIssue).optional().meta({ description: 'Metadata problems that block publication (drafts).' }),
    ui: z.record(z.string(), z.unknown()).optional().meta({ description: 'Only with a UI media type in `Accept`.' }),
  })
  .meta({ description: 'A Knowledge Resource or Knowledge Package, draft or published.' });

export const jsonLd = z.looseObject({ '@context': z.unknown(), '@type': z.string() }).meta({ description: 'schema.org JSON-LD of a published record.' });

const bucket = z.object({ key: z.string(), doc_count: z.number().int(), label: z.string(), is_selected: z.boolean() });

export const searchResult = z
  .object({
    aggregations: z.record(z.string(), z.object({ label: z.string(), buckets: z.array(bucket) })),
    hits: z.object({ hits: z.array(record), total: z.number().int() }),
    links: z.object({ self: z.string(), prev: z.string().optional(), next: z.string().optional() }).optional(),
    sortBy: z.string().optional(),
  })
  .meta({ description: '`links` and `sortBy` are left out with a UI media type and on package-resource listings.' });

export const fileEntry = z
  .looseObject({
    key: z.string(),
    created: z.string(),
    updated: z.string(),
    status: z.enum(['pending', 'completed']),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    links,
    checksum: z.string().optional().meta({ description: '`md5:<hex>`, once completed.' }),
    mimetype: z.string().optional(),
    size: z.number().int().optional(),
    file_id: z.string().optional(),
    version_id: z.string().optional(),
    bucket_id: z.string().optional(),
    storage_class: z.string().optional(),
  })
  .meta({ description: 'A file of a draft or record; the content members appear once it is completed.' });

export const fileList = z.object({
  enabled: z.boolean(),
  default_preview: z.string().nullable(),
  order: z.array(z.string()),
  entries: z.array(fileEntry),
  links,
});

export const accessLink = z.object({
  id: z.string(),
  permission: z.enum(['view', 'preview', 'edit']),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  token: z.string().meta({ description: 'Present as `?token=` to act with this link.' }),
});

export const accessLinkList = z.object({ hits: z.object({ hits: z.array(accessLink), total: z.number().int() }) });

export const resourceErrors = z.object({ errors: z.array(z.unknown()) }).meta({ description: 'Empty when every resource was added or removed.' });

export const health = z.object({ status: z.literal('ok') });

export const readiness = z.object({
  status: z.enum(['ready', 'not ready', 'stopping']),
  failing: z.array(z.string()),
  checks: z.record(z.string(), z.enum(['ok', 'failing'])).optional(),
});

export const requestPage = z
  .object({
    aggregations: z.object({}),
    hits: z.object({ hits: z.array(z.never()), total: z.literal(0) }),
    links: z.object({ self: z.string() }),
    sortBy: z.string(),
  })
  .meta({ description: 'A page of requests, InvenioRDM-shaped; always empty here.' });
