/**
 * Candidates read from an engine's stored documents and decided by the domain's evaluator, in
 * their order. Small ones a slice of the loop at a time (`evaluateInSlices`); a large one (the
 * largest legal record is about 1.9 MB of JSON) is parsed, matched and scored in slices of its own,
 * since parsing and deciding it at once held the loop for 70-220 ms a query.
 */
import { largeValueSlices, parseJsonInTurns, type SearchDocument } from '@krs/domain';
import { decideBodyInTurns, matchesQuery, type QueryNode } from '@krs/domain/search';
import { evaluateInSlices } from './evaluate-in-slices.ts';

/** Above this many characters of JSON, a candidate is decided in turns of its own. */
export const LARGE_CANDIDATE_CHARS = 64 * 1024;

/**
 * The candidates that match `query`, in order. `scores` receives the evaluator's score of each
 * large match, reckoned on the way so that ranking does not read it again at once.
 */
export async function decideCandidates(rows: readonly { doc: string }[], query: QueryNode, scores: Map<SearchDocument, number>): Promise<SearchDocument[]> {
  const matched: SearchDocument[] = [];
  let small: { doc: string }[] = [];
  const decideSmall = async () => {
    matched.push(...(await evaluateInSlices(small, (r) => {
      const doc = JSON.parse(r.doc) as SearchDocument;
      return matchesQuery(query, doc) ? doc : null;
    })));
    small = [];
  };
  for (const row of rows) {
    if (row.doc.length <= LARGE_CANDIDATE_CHARS) {
      small.push(row);
      continue;
    }
    await decideSmall();
    const slicing = largeValueSlices();
    const doc = (await parseJsonInTurns(row.doc, slicing)) as SearchDocument;
    const decision = await decideBodyInTurns(query, doc.body, slicing);
    if (!decision.matches) continue;
    scores.set(doc, decision.score);
    matched.push(doc);
  }
  await decideSmall();
  return matched;
}
