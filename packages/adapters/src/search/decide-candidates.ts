/**
 * Candidates read from an engine's stored documents and decided by the domain's evaluator, in
 * their order: small ones a slice of the loop at a time (`evaluateInSlices`), a large one (the
 * largest legal record is about 1.9 MB of JSON) parsed, matched and scored in slices of its own,
 * since parsing and deciding it at once held the loop for 70-250 ms a query.
 */
import { largeValueSlices, parseJsonInTurns, type SearchDocument } from '@krs/domain';
import { decideBodyInTurns, matchesQuery, type BodyDecision, type QueryNode } from '@krs/domain/search';
import { evaluateInSlices } from './evaluate-in-slices.ts';

/** Above this many characters of JSON, a candidate is decided in turns of its own. */
export const LARGE_CANDIDATE_CHARS = 64 * 1024;

/** A stored document's JSON text, parsed and decided in slices: its body and the evaluator's decision. */
export async function decideLargeText(query: QueryNode, text: string): Promise<{ doc: SearchDocument; decision: BodyDecision }> {
  const slicing = largeValueSlices();
  const doc = (await parseJsonInTurns(text, slicing)) as SearchDocument;
  return { doc, decision: await decideBodyInTurns(query, doc.body, slicing) };
}

/**
 * `evaluateInSlices` over `items`, except that an item `isLarge` says is large is decided by
 * `large`, which takes turns of its own, between the slices of the others. Items are drawn from
 * `items` as they are decided, never gathered first: a generator reading bodies in batches keeps
 * only a batch in memory.
 */
export async function evaluateLargeApart<T, R>(items: Iterable<T>, isLarge: (item: T) => boolean, small: (item: T) => R | null, large: (item: T) => Promise<R | null>): Promise<R[]> {
  const kept: R[] = [];
  const iterator = items[Symbol.iterator]();
  /** The large item the small ones' run stopped at, if any. */
  let stoppedAt: { item: T } | null = null;
  const untilLarge = function* (): Generator<T> {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      if (isLarge(next.value)) {
        stoppedAt = { item: next.value };
        return;
      }
      yield next.value;
    }
  };
  for (;;) {
    stoppedAt = null;
    kept.push(...(await evaluateInSlices(untilLarge(), small)));
    // Set by the generator as it ran, which the narrowing above cannot see.
    const stop = stoppedAt as { item: T } | null;
    if (stop === null) return kept;
    const decided = await large(stop.item);
    if (decided !== null) kept.push(decided);
  }
}

/**
 * The candidates that match `query`, in order. `scores` receives the evaluator's score of each
 * large match, reckoned on the way so that ranking does not read it again at once.
 */
export function decideCandidates(rows: readonly { doc: string }[], query: QueryNode, scores: Map<SearchDocument, number>): Promise<SearchDocument[]> {
  return evaluateLargeApart(
    rows,
    (r) => r.doc.length > LARGE_CANDIDATE_CHARS,
    (r) => {
      const doc = JSON.parse(r.doc) as SearchDocument;
      return matchesQuery(query, doc) ? doc : null;
    },
    async (r) => {
      const { doc, decision } = await decideLargeText(query, r.doc);
      if (!decision.matches) return null;
      scores.set(doc, decision.score);
      return doc;
    },
  );
}
