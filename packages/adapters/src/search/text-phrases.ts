/**
 * Queries FTS5 answers as an AND of phrases searched in the text columns, which the index can
 * score from the phrases' occurrences (`fts5Phrases` in fts5-doclist.ts, `phrasesRelevanceSteps`
 * in term-relevance.ts) instead of FTS5's `bm25()`: several plain words (`flood mapping
 * sentinel`, `sea-ice`), a phrase (`"sea ice"`), and ANDs of those.
 */
import { tokenize, type QueryNode } from '@krs/domain/search';
import { PATH_TOKEN_PREFIX } from './path-token.ts';

/**
 * The phrases of the query's FTS5 expression (each its words), in the order FTS5 numbers them;
 * null for any other shape (one plain word has a path of its own; NOT, OR, prefixes, fuzzy words
 * and fields keep theirs). Words outside lowercase ASCII letters and digits are left to FTS5,
 * which may split or fold them otherwise than `tokenize`, and so are words shaped like a path
 * token: one may stand in the `paths` column, which the phrases' documents are not checked
 * against.
 */
export function textPhrases(node: QueryNode): string[][] | null {
  const phrases = phrasesOf(node);
  if (phrases === null || (phrases.length === 1 && phrases[0]?.length === 1)) return null;
  return phrases.every((words) => words.every((w) => /^[a-z0-9]+$/.test(w) && !w.startsWith(PATH_TOKEN_PREFIX))) ? phrases : null;
}

function phrasesOf(node: QueryNode): string[][] | null {
  switch (node.type) {
    case 'term': {
      if (node.field !== null || node.match !== 'exact') return null;
      // Several words of one term are ANDed, each a phrase (see `matchText`).
      const words = tokenize(node.value);
      return words.length === 0 ? null : words.map((w) => [w]);
    }
    case 'phrase': {
      if (node.field !== null) return null;
      const words = tokenize(node.value);
      return words.length === 0 ? null : [words];
    }
    case 'and': {
      const phrases: string[][] = [];
      for (const child of node.children) {
        const of = child.type === 'not' ? null : phrasesOf(child);
        if (of === null) return null;
        phrases.push(...of);
      }
      return phrases.length === 0 ? null : phrases;
    }
    default:
      return null;
  }
}
