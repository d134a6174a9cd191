/**
 * Field queries in the PostgreSQL engine (`metadata.description:ice`, a creator's name, a path
 * below a field, phrases, prefixes and fuzzy words within one) decided by a GIN-indexed vector of
 * their own, `field_words`, written with the document in its transaction: no candidate's body is
 * read. They mean what the domain's evaluator makes them mean (`match-query.ts`), as the SQLite
 * engine's field index does (field-query.ts):
 * - each word of a value at the path numbered n (`search_path`) is the lexeme `n word`, at the
 *   position the document's main vector gives the word there: a path's values keep the gap the
 *   main vector leaves between values, so a phrase (`'n sea' <-> 'n ice'`) never runs from one
 *   value into the next, and lexemes of two paths differ, so none runs from one path into another;
 * - a word of path n starting with `glac` is the prefix `'n glac':*` (the space after the number
 *   keeps path 1 from path 12);
 * - the lexeme `n` alone marks a document where path n holds values of its own beside members
 *   holding values (`subjects` as both `"ice"` and `{subject: "sea"}`): the evaluator then reads
 *   the path's own values only, which the query says as `own | (below & !'n')`.
 * A document whose positions were cut (see `DocumentWords.positionsExact`) has no such vector and
 * is left to the evaluator, as for phrases.
 */
import { sql, type Kysely } from 'kysely';
import { tokenize, type QueryNode } from '@krs/domain/search';
import { fieldLeaf, isFieldLeaf, namedFields, type FieldPaths, type FieldSyntax } from './field-query.ts';
import { pairLexeme, type FieldWords } from './postgres-text.ts';

/** What a tsvector may hold (see postgres-text.ts): the vector is left out past it, and the document goes to the evaluator. */
const MAX_VECTOR_BYTES = 900 * 1024;
const MAX_LEXEME_BYTES = 2047;

export const fieldLexeme = (pathId: number, word: string): string => `${pathId} ${word}`;

/**
 * The lexeme of a two-word phrase within path n, `n` and the words' pair (`pairLexeme`): exact in
 * the GIN index, as a word is, where `'n a' <-> 'n b'` read each candidate's vector to check the
 * positions; and counted by the writes as a word is. Null for another number of words, or a pair
 * longer than a lexeme (no document whose field words are kept holds it).
 */
export function fieldPair(pathId: number, words: readonly string[]): string | null {
  const [a, b] = words;
  if (words.length !== 2 || a === undefined || b === undefined) return null;
  const lexeme = fieldLexeme(pathId, pairLexeme(a, b));
  return Buffer.byteLength(lexeme) <= MAX_LEXEME_BYTES ? lexeme : null;
}

/**
 * The one lexeme of `field_words` a query of one field leaf asks for, when there is one: a word
 * or two-word phrase of a field holding no paths below it; null otherwise.
 */
export function singleFieldLexeme(node: QueryNode, paths: ReadonlyMap<string, FieldPaths>): string | null {
  if (node.type !== 'phrase' && !(node.type === 'term' && node.match === 'exact')) return null;
  if (!isFieldLeaf(node)) return null;
  const found = paths.get(node.field);
  if (found === undefined || found.own === null || found.below.length > 0) return null;
  const words = tokenize(node.value);
  if (words.length === 1 && node.type === 'term') {
    const lexeme = fieldLexeme(found.own, words[0] as string);
    return Buffer.byteLength(lexeme) <= MAX_LEXEME_BYTES ? lexeme : null;
  }
  return node.type === 'phrase' ? (words.length === 1 ? fieldLexeme(found.own, words[0] as string) : fieldPair(found.own, words)) : null;
}

/** A lexeme in tsvector or tsquery text; words are letters and digits, quoted all the same. */
const quoted = (lexeme: string) => `'${lexeme.replace(/['\\]/g, (c) => `\\${c}`)}'`;

/**
 * The document's field vector as tsvector input text ('' when it holds no values), or null when
 * it cannot hold every word with its positions.
 */
export function fieldVector(fields: readonly FieldWords[] | null, pathIds: ReadonlyMap<string, number>): string | null {
  if (fields === null) return null;
  const parts: string[] = [];
  let bytes = 0;
  for (const [path, words, mixed] of fields) {
    const id = pathIds.get(path);
    if (id === undefined) throw new Error(`search index: no number for the field path ${JSON.stringify(path)}`);
    if (mixed) parts.push(quoted(String(id)));
    for (const [word, positions] of words) {
      // The domain's words are letters and digits: nothing to escape.
      const lexeme = fieldLexeme(id, word);
      const size = Buffer.byteLength(lexeme);
      bytes += size + 8 + 2 * positions.length;
      if (size > MAX_LEXEME_BYTES || bytes > MAX_VECTOR_BYTES) return null;
      parts.push(`'${lexeme}':${positions.join(',')}`);
    }
  }
  return parts.join(' ');
}

/** The numbers of each field a query's field leaves name: its own path's, and those of every path below it. */
export async function fieldPathsOf(db: Kysely<object>, query: QueryNode): Promise<Map<string, FieldPaths>> {
  const names = [...new Set(namedFields(query))];
  if (names.length === 0) return new Map();
  const rows = (
    await sql<{ name: string; id: number; path: string }>`select f.name, p.id, p.path from search_path p
      join unnest(${names}::text[]) f(name) on p.path = f.name or starts_with(p.path, f.name || '.')`.execute(db)
  ).rows;
  const out = new Map<string, { own: number | null; below: number[] }>(names.map((name) => [name, { own: null, below: [] }]));
  for (const row of rows) {
    const paths = out.get(row.name);
    if (paths === undefined) continue;
    if (row.path === row.name) paths.own = row.id;
    else paths.below.push(row.id);
  }
  return out;
}

/** Each fuzzy query word's expansion into indexed words. */
type Expansions = ReadonlyMap<string, readonly string[]>;

/**
 * Lexemes one query may name in `field_words`: a fuzzy word on a field with a hundred paths below
 * it is each of its expansions in each path. Past this the evaluator decides the query.
 */
const LEXEMES_PER_QUERY = 20_000;

/** Path numbers start at 1: the mark of path 0 is in no vector. */
const NOTHING = quoted('0');

const TSQUERY: FieldSyntax = {
  word: (id, word) => quoted(fieldLexeme(id, word)),
  prefix: (id, word) => `${quoted(fieldLexeme(id, word))}:*`,
  phrase: (id, words) => {
    const pair = fieldPair(id, words);
    return pair !== null ? quoted(pair) : words.map((w) => quoted(fieldLexeme(id, w))).join(' <-> ');
  },
  mark: (id) => quoted(String(id)),
  and: ' & ',
  or: ' | ',
  without: (expression, mark) => `(${expression}) & !${mark}`,
  nothing: NOTHING,
};

/**
 * A query made of field leaves alone (and AND/OR/NOT of them) as tsquery text over
 * `field_words`, or null when a leaf has no words (the evaluator's rules for those hold no
 * index), a word is longer than a lexeme, or the query names too many lexemes.
 */
export function fieldTsquery(node: QueryNode, paths: ReadonlyMap<string, FieldPaths>, fuzzy: Expansions): string | null {
  let budget = LEXEMES_PER_QUERY;
  const leaf = (n: Extract<QueryNode, { type: 'term' | 'phrase' }> & { field: string }): string | null =>
    // A word past what a lexeme holds is in no vector either (its document has none): the evaluator's.
    tokenize(n.value).some((w) => Buffer.byteLength(fieldLexeme(Number.MAX_SAFE_INTEGER, w)) > MAX_LEXEME_BYTES)
      ? null
      : fieldLeaf(n, paths.get(n.field), fuzzy, TSQUERY, (lexemes) => (budget -= lexemes));
  const walk = (n: QueryNode): string | null => {
    switch (n.type) {
      case 'term':
      case 'phrase':
        return isFieldLeaf(n) ? leaf(n) : null;
      case 'and':
      case 'or': {
        const parts = n.children.map(walk);
        if (parts.length === 0 || parts.some((p) => p === null)) return null;
        return parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(${p})`).join(n.type === 'and' ? ' & ' : ' | ');
      }
      case 'not': {
        const child = walk(n.child);
        return child === null ? null : `!(${child})`;
      }
      default:
        return null;
    }
  };
  const query = walk(node);
  if (query === null || budget < 0) return null;
  return query;
}
