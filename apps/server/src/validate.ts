/**
 * The one request-validation wrapper: zod checks JSON types, and any failure becomes the same
 * DomainError the domain throws, so clients see one error shape and never zod's own body.
 */
import { zValidator } from '@hono/zod-validator';
import { DomainError, type FieldIssue } from '@krs/domain';
import type { ZodType } from 'zod';
import { jsonBody } from './json-body.ts';

type Target = 'json' | 'query' | 'param';

const MESSAGES: Readonly<Record<Target, string>> = {
  json: 'A validation error occurred.',
  query: 'Invalid querystring parameters.',
  param: 'A validation error occurred.',
};

interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** zod issues -> `[{field, messages}]`: dotted paths with list indexes as numbers, `_schema` at the root, one entry per field. */
export function fieldIssues(issues: readonly IssueLike[]): FieldIssue[] {
  const byField = new Map<string, string[]>();
  for (const issue of issues) {
    const field = issue.path.length === 0 ? '_schema' : issue.path.map((p) => (typeof p === 'symbol' ? (p.description ?? '') : String(p))).join('.');
    const messages = byField.get(field) ?? [];
    if (!messages.includes(issue.message)) messages.push(issue.message);
    byField.set(field, messages);
  }
  return [...byField].map(([field, messages]) => ({ field, messages }));
}

/**
 * `validate('json', schema)` also enforces the body rules of json-body.ts (415 for a non-JSON
 * Content-Type, 413 over 10 MiB, 400 for text that does not parse, empty body as `{}`), so a route
 * is correct even where that middleware is not mounted; Hono's validator alone would skip a
 * non-JSON body silently and answer malformed JSON with its own plain-text 400.
 */
export function validate<T extends ZodType, K extends Target>(target: K, schema: T) {
  const check = zValidator(target, schema, (result) => {
    if (!result.success) throw new DomainError('invalid', `request.${target}`, MESSAGES[target], fieldIssues(result.error.issues));
  });
  if (target !== 'json') return check;
  const withBodyRules: typeof check = async (c, next) => {
    let out: Response | void = undefined;
    await jsonBody(c, async () => {
      out = await check(c, next);
    });
    return out;
  };
  return withBodyRules;
}
