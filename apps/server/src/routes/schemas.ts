/** Request shapes. Only JSON types are checked here; every business rule lives in the domain. */
import { z } from 'zod';
import type { AnswerMemory, DraftInput, ListingInput } from '@krs/domain';

const visibility = z.enum(['public', 'restricted']);

export const draftBody = z.object({
  access: z
    .object({
      record: visibility.optional(),
      files: visibility.optional(),
      embargo: z
        .object({ active: z.boolean().optional(), until: z.string().nullable().optional(), reason: z.string().nullable().optional() })
        .optional(),
    })
    .optional(),
  files: z
    .object({ enabled: z.boolean().optional(), default_preview: z.string().nullable().optional(), order: z.array(z.string()).optional() })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  pids: z.record(z.string(), z.unknown()).optional(),
  custom_fields: z.record(z.string(), z.unknown()).optional(),
});

export type DraftBody = z.infer<typeof draftBody>;

export function toDraftInput(body: DraftBody): DraftInput {
  return {
    access: body.access,
    files: body.files && { enabled: body.files.enabled, defaultPreview: body.files.default_preview, order: body.files.order },
    metadata: body.metadata ?? undefined,
    pids: body.pids,
    customFields: body.custom_fields,
  };
}

/** A single `{key}` object is taken as a one-item array (some clients send that). */
export const fileKeysBody = z.union([z.array(z.object({ key: z.string() })), z.object({ key: z.string() }).transform((one) => [one])]);

export const accessLinkBody = z.object({
  permission: z.string().optional(),
  expires_at: z.string().nullable().optional(),
});

export const recordsBody = z.object({ records: z.array(z.object({ id: z.string() })) });
export const resourcesBody = z.object({ resources: z.array(z.object({ id: z.string() })) });

const booleanText = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']))
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const positiveInt = z.string().regex(/^\d+$/, 'Must be a whole number.').transform(Number);

export const listingQuery = z.object({
  q: z.string().optional(),
  bbox: z.string().optional(),
  sort: z.string().optional(),
  size: positiveInt.optional(),
  page: positiveInt.optional(),
  allversions: booleanText.optional(),
});

export const pagingQuery = z.object({ size: positiveInt.optional(), page: positiveInt.optional() });
export const versionsQuery = pagingQuery.extend({ sort: z.string().optional() });

type ListingQuery = z.infer<typeof listingQuery>;

/** Facet filters are repeatable query parameters named like the facet. */
export function toListingInput(query: ListingQuery, all: (name: string) => string[] | undefined, memory: AnswerMemory | undefined): ListingInput {
  const facets: NonNullable<ListingInput['facets']> = {};
  for (const name of ['resource_type', 'access_status', 'record_type'] as const) {
    const values = all(name);
    if (values && values.length > 0) facets[name] = values;
  }
  return { q: query.q ?? null, bbox: query.bbox ?? null, sort: query.sort ?? null, size: query.size, page: query.page, allVersions: query.allversions, facets, ...(memory ? { memory } : {}) };
}
