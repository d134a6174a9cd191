/**
 * Holds an answer to the OpenAPI document: its operation is documented, its status is one the
 * operation gives, its media type one that status gives, and a JSON body matches the schema
 * documented for it. make-app's `call` runs it on every answer of the app.request() tests.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../src/openapi/document.ts';

type Json = { [key: string]: unknown };
const base = (type: string) => type.split(';')[0]?.trim().toLowerCase() ?? '';

export function conformance(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  const templates = Object.keys(doc.paths).map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const validators = new Map<string, ReturnType<Ajv2020['compile']>>();

  /** What is wrong with the answer, or an empty list. */
  return (method: string, url: string, res: { status: number; headers: Headers; text: string; json: unknown }): string[] => {
    const path = new URL(url, 'http://any').pathname;
    const template = templates.find((t) => t.path === path) ?? templates.find((t) => t.pattern.test(path));
    const op = template && (doc.paths[template.path] as Json | undefined)?.[method.toLowerCase()];
    // Paths the app does not have answer the documented 404/405 of the whole API, and every path
    // the documented OPTIONS 204.
    if (op === undefined) return [404, 405].includes(res.status) || (method === 'OPTIONS' && res.status === 204) ? [] : [`${method} ${path} is not documented`];
    const responses = (op as { responses: Json }).responses;
    let answer = responses[String(res.status)] as Json | undefined;
    if (answer === undefined) return [`${method} ${path} answered ${res.status}, documented ${Object.keys(responses).join(', ')}`];
    if (typeof answer['$ref'] === 'string') answer = (doc.components.responses as Json)[(answer['$ref'] as string).split('/').pop() ?? ''] as Json;
    if (res.text === '' || method === 'HEAD') return [];
    const content = (answer?.['content'] ?? {}) as Record<string, { schema?: object }>;
    const type = base(res.headers.get('content-type') ?? '');
    const documented = Object.keys(content).find((t) => base(t) === type || t === '*/*');
    if (documented === undefined) return [`${method} ${path} ${res.status} as ${type}, documented ${Object.keys(content).join(', ')}`];
    const schema = content[documented]?.schema;
    if (schema === undefined || res.json === null || !type.endsWith('json')) return [];
    const key = JSON.stringify(schema);
    let validate = validators.get(key);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      validators.set(key, validate);
    }
    return validate(res.json) ? [] : [`${method} ${path} ${res.status} body does not match its schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`];
  };
}
