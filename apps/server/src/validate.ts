/**
 * The one request-validation wrapper: zod checks JSON types, and any failure becomes the same
 * DomainError the domain throws, so clients see one error shape.
 */
import { zValidator } from '@hono/zod-validator';
import { DomainError, type FieldIssue } from '@krs/domain';
import type { ZodType } from 'zod';

type Target = 'json' | 'query' | 'param';

function issuesOf(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): FieldIssue[] {
  const byField = new Map<string, string[]>();
  for (const issue of error.issues) {
    const field = issue.path.length === 0 ? '_schema' : issue.path.map(String).join('.');
    byField.set(field, [...(byField.get(field) ?? []), issue.message]);
  }
  return [...byField].map(([field, messages]) => ({ field, messages }));
}

export function validate<T extends ZodType, K extends Target>(target: K, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      const message = target === 'query' ? 'Invalid querystring parameters.' : 'A validation error occurred.';
      throw new DomainError('invalid', `request.${target}`, message, issuesOf(result.error));
    }
  });
}
