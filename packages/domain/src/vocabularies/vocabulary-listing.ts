/**
 * How a vocabulary is listed and matched: every store orders and filters by these same keys, so
 * a picker pages through the same entries in the same order on each of them.
 */
import type { VocabularyEntry } from '../model/types.ts';
import { tokenize } from '../search/match-query.ts';

/**
 * Which entries a listing keeps: each of `words` is a whole word of the entry, each of `prefixes`
 * starts one, and, when `tags` are given, the entry carries at least one of them (InvenioRDM's
 * `tags` filter: `resourcetypes?tags=depositable`, `licenses?tags=recommended`).
 */
export interface VocabularyFilter {
  words: string[];
  prefixes: string[];
  tags: string[];
}

export interface VocabularyPageQuery extends VocabularyFilter {
  offset: number;
  limit: number;
  /**
   * Counting stops here (`offset + limit` never exceeds it): past the paging window an exact
   * total would cost a walk over the whole type for a number no page can reach. InvenioRDM's
   * search engine reports totals so capped too.
   */
  countLimit: number;
}

export interface VocabularyPage {
  entries: VocabularyEntry[];
  /** Entries of the type the filter keeps, all pages together, or `countLimit` when more. */
  total: number;
}

/** The title a listing sorts by: English, else the first one given, else the id. */
export const listingTitle = (e: VocabularyEntry): string => e.title['en'] ?? Object.values(e.title)[0] ?? e.id;

/**
 * The order of a listing, as text a store can index: the title's words (case and accents
 * folded, as search folds them), then the id. Words hold only letters and digits, so the U+0001
 * separator puts "Book" before "Book section" and keeps ids apart from title words.
 */
export const sortKey = (e: VocabularyEntry): string => `${tokenize(listingTitle(e)).join(' ')}\u0001${e.id}`;

const utf8 = new TextEncoder();

/**
 * A tag as a token of `matchText`: U+0002 and the hex of its UTF-8 bytes. Tags are any text (a
 * license CSV's `all`, a GEO focus area's id); hex keeps them exact and free of spaces and of
 * LIKE's wildcards, and the U+0002 keeps a word or a typed prefix from ever matching one.
 */
export const tagToken = (tag: string): string => `\u0002${Array.from(utf8.encode(tag), (b) => b.toString(16).padStart(2, '0')).join('')}`;

/** The words an entry is found by, space-delimited on both sides: its id's and every title's, then its tags' tokens. */
export const matchText = (e: VocabularyEntry): string => {
  const words = new Set([...tokenize(e.id), ...Object.values(e.title).flatMap(tokenize), ...(e.tags ?? []).map(tagToken)]);
  return ` ${[...words].join(' ')} `;
};

/**
 * The test of a filter on `matchText`, which holds only letters, digits, tag tokens and spaces,
 * so each test is a plain substring. The tags' tokens are made once, not once an entry.
 */
const matcherOf = (f: VocabularyFilter): ((text: string) => boolean) => {
  const tagged = f.tags.map((t) => ` ${tagToken(t)} `);
  return (text) =>
    f.words.every((w) => text.includes(` ${w} `)) && f.prefixes.every((p) => text.includes(` ${p}`)) && (tagged.length === 0 || tagged.some((t) => text.includes(t)));
};

export const filterOf = (q: string | null | undefined, suggest: string | null | undefined, tags: readonly string[] = []): VocabularyFilter => ({
  words: [...new Set(tokenize(q ?? ''))],
  prefixes: [...new Set(tokenize(suggest ?? ''))],
  tags: [...new Set(tags)],
});

// Code-unit order, as SQL's BINARY (SQLite) and "C" (PostgreSQL) collations sort these keys.
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** An entry with its listing keys, built once where the same entries are listed again and again. */
export interface KeyedEntry {
  key: string;
  text: string;
  entry: VocabularyEntry;
}

/** Entries with their keys, in listing order. */
export function keyedInOrder(entries: Iterable<VocabularyEntry>): KeyedEntry[] {
  const out: KeyedEntry[] = [];
  for (const entry of entries) out.push({ key: sortKey(entry), text: matchText(entry), entry });
  return out.sort((a, b) => byCodeUnits(a.key, b.key));
}

/** A page of entries held in memory (the shipped defaults, the in-memory store): the reference the SQL stores match. */
export function pageOfKeyed(ordered: readonly KeyedEntry[], q: VocabularyPageQuery): VocabularyPage {
  const entries: VocabularyEntry[] = [];
  let total = 0;
  const matches = matcherOf(q);
  for (const k of ordered) {
    if (!matches(k.text)) continue;
    if (total >= q.offset && entries.length < q.limit) entries.push(k.entry);
    total++;
  }
  return { entries, total: Math.min(total, q.countLimit) };
}
