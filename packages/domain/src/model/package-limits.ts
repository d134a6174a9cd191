/**
 * How many resources a package may hold. GEO's Knowledge Packages group a few to a few hundred
 * resources; unbounded, one body naming 200,000 ids (10 MiB of JSON) cost seconds of reads per
 * request, and a context grown past tens of thousands made every later change of the package
 * read and rewrite all of it.
 */
import { invalid } from '../errors.ts';

/** Resources in a package's context (every version's, together), and attached to one of its drafts. */
export const MAX_PACKAGE_RESOURCES = 2_000;

/**
 * Refuses, before anything is read, a body naming more distinct ids than a package may hold, or
 * a change leaving a package with more than it may hold (`resulting`, distinct ids after it).
 */
export function requirePackageSize(field: string, named: readonly string[], resulting?: number): void {
  const distinct = new Set(named).size;
  const size = resulting ?? distinct;
  if (distinct <= MAX_PACKAGE_RESOURCES && size <= MAX_PACKAGE_RESOURCES) return;
  throw invalid('package.too_many_resources', 'A validation error occurred: the package would hold more resources than it may.', [
    { field, messages: [`A package holds at most ${MAX_PACKAGE_RESOURCES} resources (${Math.max(distinct, size)} named or held).`] },
  ]);
}
