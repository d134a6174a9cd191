/** The IIIF Presentation routes' rows of the route description table (operations.ts; exports/iiif.ts). */
import { z } from 'zod';
import type { Operation } from './operations.ts';

const resource = z.looseObject({ '@id': z.string(), '@type': z.literal('dctypes:Image'), format: z.string(), width: z.number().int(), height: z.number().int() });
const annotation = z.looseObject({ '@id': z.string(), '@type': z.literal('oa:Annotation'), motivation: z.literal('sc:painting'), resource, on: z.string() });
const canvasFields = { '@id': z.string(), '@type': z.literal('sc:Canvas'), label: z.string(), width: z.number().int(), height: z.number().int(), images: z.array(annotation) };
const sequenceFields = { '@id': z.string(), '@type': z.literal('sc:Sequence'), label: z.string(), canvases: z.array(z.looseObject(canvasFields)) };
const context = z.literal('http://iiif.io/api/presentation/2/context.json');

export const iiifCanvas = z.looseObject({ '@context': context, ...canvasFields }).meta({ description: 'A IIIF Presentation 2.1 canvas painted with one image file.' });
export const iiifAnnotation = annotation.extend({ '@context': context }).meta({ description: 'A IIIF Presentation 2.1 annotation painting one image file on its canvas.' });
export const iiifSequence = z.looseObject({ '@context': context, ...sequenceFields }).meta({ description: 'A IIIF Presentation 2.1 sequence: one canvas per image, in display order.' });
export const iiifManifest = z
  .looseObject({
    '@context': context,
    '@id': z.string(),
    '@type': z.literal('sc:Manifest'),
    label: z.string(),
    metadata: z.array(z.object({ label: z.string(), value: z.string() })),
    description: z.string().optional(),
    license: z.string().optional(),
    related: z.object({ '@id': z.string(), format: z.literal('text/html') }),
    sequences: z.array(z.looseObject(sequenceFields)),
  })
  .meta({ description: 'A IIIF Presentation 2.1 manifest of a record and its images.' });

const IDENTIFIER = '`package:<id>` or `record:<id>` for a published version, `package-draft:<id>` or `draft:<id>` for a draft, as the `self_iiif_*` links name them (either kind answers under any of them; `draft:record:<id>` too).';
/** 429 and 503: the record read is taken from the answers' memory bound (docs/operations.md, "Answers"). */
const ERRORS = [401, 403, 404, 406, 429, 500, 503] as const;

export const iiifOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/iiif/{identifier}/manifest',
    summary: 'A IIIF manifest of a record',
    description: `${IDENTIFIER} One canvas per committed image whose size was read at commit, painted with the file's content (no IIIF Image service). Same access as reading the record and its files. \`application/json\`, or \`application/ld+json\` with the IIIF context as profile when \`Accept\` asks for JSON-LD.`,
    tags: ['IIIF'],
    access: 'optional',
    responses: [{ status: 200, description: 'The manifest.', body: { kind: 'json', schema: iiifManifest } }],
    errors: ERRORS,
  },
  {
    method: 'get',
    path: '/api/iiif/{identifier}/sequence/default',
    summary: "A record's IIIF sequence",
    description: IDENTIFIER,
    tags: ['IIIF'],
    access: 'optional',
    responses: [{ status: 200, description: 'The sequence.', body: { kind: 'json', schema: iiifSequence } }],
    errors: ERRORS,
  },
  {
    method: 'get',
    path: '/api/iiif/{identifier}/canvas/{key}',
    summary: 'The IIIF canvas of one image file',
    description: IDENTIFIER,
    tags: ['IIIF'],
    access: 'optional',
    responses: [{ status: 200, description: 'The canvas.', body: { kind: 'json', schema: iiifCanvas } }],
    errors: ERRORS,
  },
  {
    method: 'get',
    path: '/api/iiif/{identifier}/annotation/{key}',
    summary: 'The IIIF annotation painting one image file on its canvas',
    description: `${IDENTIFIER} The annotation's \`@id\` in the canvas, served as the canvas is.`,
    tags: ['IIIF'],
    access: 'optional',
    responses: [{ status: 200, description: 'The annotation.', body: { kind: 'json', schema: iiifAnnotation } }],
    errors: ERRORS,
  },
];
