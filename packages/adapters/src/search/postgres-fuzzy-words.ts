/**
 * A query's fuzzy words expanded from the PostgreSQL index's vocabulary (`search_vocab`): each
 * word's expansions are the domain's `fuzzyExpansions` over the vocabulary's words that start with
 * its letter and are near its length (its slice).
 *
 * Most of a letter's slice are the records' id suffixes (3 179 words for `glacer~` at 100k, two of
 * them its expansions): reading them into Node and measuring each cost the main thread 3-4 ms a
 * query. So a slice's words come to Node only when they may be near (`mayBeNear`), and a word's
 * expansions are kept, with how many words its slice held, for as long as the slice holds as many:
 * the vocabulary is only ever added to (no word is removed, see the index's schema), so a slice
 * of committed words that holds as many words as it did holds the same ones. A query then counts
 * its slice (an index-only count) instead of reading it.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { fuzzyDistance, type QueryNode } from '@krs/domain/search';
import { expandInSlices } from './expand-in-slices.ts';
import { fuzzyWords } from './fts-query.ts';
import type { FuzzyExpansions } from './postgres-text.ts';

type Db = Kysely<object>;

/** Vocabulary rows read per query for all its fuzzy words together, as in the SQLite engine. */
const VOCABULARY_ROWS_PER_QUERY = 20_000;

/** Words whose expansions are kept at most: past it, all are forgotten (a few kB each). */
const KEPT_WORDS = 1_000;

/** A word's expansions, and how many words its slice held when they were measured. */
export type KeptExpansions = Map<string, { held: number; words: string[] }>;

/**
 * Each fuzzy word's expansion. Past the rows a query may read, a word expands to itself. `kept`
 * is read and written outside a transaction only: a transaction's own words, or an older snapshot
 * of its own, may hold as many words as the slice kept and still others.
 */
export async function expandFuzzy(db: Db, query: QueryNode, kept: KeptExpansions): Promise<FuzzyExpansions> {
  const expansions = new Map<string, string[]>();
  let budget = VOCABULARY_ROWS_PER_QUERY;
  for (const word of fuzzyWords(query)) {
    if (expansions.has(word)) continue;
    if (budget <= 0) {
      expansions.set(word, [word]);
      continue;
    }
    const first = word.codePointAt(0) ?? 0;
    const length = [...word].length;
    const distance = fuzzyDistance(word);
    // The rows the query may read of the slice (with more than the budget, some of them: the same
    // ones whether counted or read, in one statement).
    const slice = sql`select word from search_vocab where word >= ${String.fromCodePoint(first)} and word < ${String.fromCodePoint(first + 1)}
      and char_length(word) between ${length - distance} and ${length + distance} limit ${budget}`;
    const known = db.isTransaction ? undefined : kept.get(word);
    const row = (
      await sql<{ held: number; words: string[] | null }>`select held, case when held = ${known?.held ?? -1} and held < ${budget} then null
          else array(select word from (${slice}) s where ${mayBeNear(word, distance)}) end as words
        from (select count(*)::integer as held from (${slice}) s) c`.execute(db)
    ).rows[0];
    const held = row?.held ?? 0;
    // A slice the budget cuts is read in part, and which part a word added to it may change: not kept.
    const whole = held < budget;
    budget -= held;
    const near = row?.words;
    const found = near === null || near === undefined ? (known?.words ?? []) : await expandInSlices(word, near);
    if (!db.isTransaction && near !== null && near !== undefined && whole) {
      if (kept.size >= KEPT_WORDS) kept.clear();
      kept.set(word, { held, words: found });
    }
    expansions.set(word, found.length > 0 ? found : [word]);
  }
  return expansions;
}

/**
 * Whether a vocabulary word (the column `word`) may lie within `distance` edits of `term`: each of
 * its characters that `term` lacks takes an edit, so more of them than the distance rule it out
 * (an id suffix's digits, for a word of letters). For a term whose UTF-16 units are each a
 * character, as `editDistance` counts: a character outside that plane is two units `term` lacks,
 * counted once here, which still leaves every near word in. Else every word may be near.
 */
function mayBeNear(term: string, distance: number): RawBuilder<boolean> {
  if (/[\uD800-\uDFFF]/.test(term)) return sql<boolean>`true`;
  return sql<boolean>`char_length(translate(word, ${term}, '')) <= ${distance}`;
}
