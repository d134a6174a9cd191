/**
 * Documents and queries as PostgreSQL text search sees them. A document's words become a tsvector
 * of the domain's own tokens (not PostgreSQL's parsers, which stem and drop words), title words
 * weighted A, each value's words at consecutive positions with a gap between values. On that
 * vector, terms, prefixes, title fields, phrases, `_exists_` (each field path with a value is a
 * lexeme of its own, `$` and the path, which no word can be), fuzzy terms (expanded from the
 * vocabulary of indexed words) and AND/OR/NOT mean in PostgreSQL exactly what the domain's
 * evaluator makes them mean, so such queries are answered in SQL alone. The vector also holds the
 * buckets of the document's date range values (postgres-range-lexemes.ts), which ranges beside
 * words are narrowed by.
 */
import { turnWhenDue, type Slicing } from '@krs/domain';
import { fieldPaths, flatten, flattenInTurns, runSteps, tokenize, type FlatDoc, type QueryNode, type Steps } from '@krs/domain/search';
import { rangeLexemes } from './postgres-range-lexemes.ts';

/** A tsvector holds at most 1 MiB, lexemes of at most 2047 bytes, positions up to 16383, 256 per lexeme. */
const MAX_VECTOR_BYTES = 900 * 1024;
const MAX_LEXEME_BYTES = 2000;
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 256;

export interface DocumentWords {
  /** tsvector input text. */
  vector: string;
  /**
   * Whether every word holds all its positions, so a phrase (`<->`) matches exactly where the
   * evaluator's would. Past the limits above, words keep their lexeme (terms stay exact) and
   * title words their weight, but phrases need the evaluator.
   */
  positionsExact: boolean;
  /** The document's distinct words, for the vocabulary fuzzy terms expand from. */
  words: string[];
  /** The field paths holding a value (and their ancestors), whose lexemes the vector holds. */
  paths: string[];
  /**
   * How many words and path lexemes the vector holds, which ranking damps by: its lexemes but the
   * word pairs (`pairLexeme`), which are not words.
   */
  lexemes: number;
  /**
   * tsvector input text of the title's words with every position the vector holds for them
   * (title and others): their part of any rank is exact from it, without the whole vector.
   */
  titleWords: string;
  /**
   * tsvector input text of the other words and pairs the vector holds at two positions or more,
   * with those positions: with `titleWords`, every lexeme whose part of a rank is not the one of a
   * single untitled position, so a one-lexeme rank is exact from the row (see the engine's
   * `rowScoreSql`). Null past REPEATS_LENGTH characters: such a document's rank is read from its vector.
   */
  repeats: string | null;
  /**
   * Each path holding values: its words and word pairs (`pairLexeme`) with the positions the vector
   * gives them, and whether the path also has members with values (see postgres-fields.ts). Null when `positionsExact` is not.
   */
  fields: FieldWords[] | null;
}

/**
 * The paths `metadata.title:` reads (`fieldValues` in the domain): the title's own values, or
 * where it holds none, its members' (`metadata.title.en`).
 */
const titlePaths = (flat: FlatDoc): ((path: string) => boolean) =>
  flat.has('metadata.title') ? (path) => path === 'metadata.title' : (path) => path.startsWith('metadata.title.');

/** A path's words and word pairs at their positions in the vector, and whether it also has members holding values. */
export type FieldWords = [path: string, words: Map<string, number[]>, mixed: boolean];

/** The vector of a document body, or null when even its distinct words pass the tsvector's size. */
export function documentWords(body: unknown): DocumentWords | null {
  return runSteps(documentWordsSteps(flatten(body)));
}

/**
 * `documentWords` in slices with turns between them, for a large record: the largest legal one
 * took 12-46 ms of CPU in one go (flattening, tokenizing and placing 100,000 values' words).
 */
export async function documentWordsInTurns(body: unknown, slicing: Slicing): Promise<DocumentWords | null> {
  const flat = await flattenInTurns(body, turnWhenDue(slicing));
  const steps = documentWordsSteps(flat);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    if (slicing.due()) await slicing.turn();
  }
}

/** Values worded between two steps: a fraction of a millisecond. */
const VALUES_PER_STEP = 512;

function* documentWordsSteps(flat: FlatDoc): Steps<DocumentWords | null> {
  const isTitlePath = titlePaths(flat);
  const paths = [...flat.keys()];
  const ordered = [...paths.filter(isTitlePath), ...paths.filter((p) => !isTitlePath(p))];
  const positions = new Map<string, string[]>();
  const pairs = new Map<string, string[]>();
  let position = 0;
  let positionsExact = true;
  const parents = new Set<string>();
  for (const path of paths) for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) parents.add(path.slice(0, i));
  const fields: FieldWords[] = [];
  let worded = 0;
  for (const path of ordered) {
    const title = isTitlePath(path);
    const own = new Map<string, number[]>();
    if (path !== '') fields.push([path, own, parents.has(path)]);
    for (const value of flat.get(path) ?? []) {
      if (++worded % VALUES_PER_STEP === 0) yield;
      // A gap between values: a phrase never spans two of them, as in the evaluator.
      position++;
      // The value's previous word with its position, while every word since the gap has one.
      let previous: string | null = null;
      for (const word of tokenize(value)) {
        if (Buffer.byteLength(word) > MAX_LEXEME_BYTES) return null;
        let list = positions.get(word);
        if (list === undefined) positions.set(word, (list = []));
        if (position >= MAX_POSITION) {
          // A title word without a position would lose its weight: title queries would miss it.
          if (title) return null;
          positionsExact = false;
          previous = null;
          continue;
        }
        position++;
        const at = title ? `${position}A` : String(position);
        if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(at);
        else positionsExact = false;
        const mine = own.get(word);
        if (mine === undefined) own.set(word, [position]);
        else mine.push(position);
        if (previous !== null) {
          // The pair sits at its second word's position, weighted as its words are (a value's
          // words are all title words or none).
          const pair = pairLexeme(previous, word);
          let pairList = pairs.get(pair);
          if (pairList === undefined) pairs.set(pair, (pairList = []));
          if (pairList.length < MAX_POSITIONS_PER_LEXEME && Buffer.byteLength(pair) <= MAX_LEXEME_BYTES) pairList.push(at);
          else positionsExact = false;
          // The path's own pair too: a two-word phrase within a field is one lexeme of `field_words`.
          const ownPair = own.get(pair);
          if (ownPair === undefined) own.set(pair, [position]);
          else ownPair.push(position);
        }
        previous = word;
      }
    }
  }
  yield;
  const words = [...positions.keys()];
  const pathLexemes = new Map<string, string[]>();
  let bytes = 0;
  const pathNames = fieldPaths(flat);
  for (const path of pathNames) {
    const name = `$${path}`;
    if (Buffer.byteLength(name) > MAX_LEXEME_BYTES) return null;
    pathLexemes.set(name, []);
    bytes += Buffer.byteLength(name) + 8;
  }
  for (const [word, list] of positions) bytes += Buffer.byteLength(word) + 8 + 2 * list.length;
  for (const [pair, list] of pairs) bytes += Buffer.byteLength(pair) + 8 + 2 * list.length;
  const buckets = new Map(rangeLexemes(flat).map((name): [string, string[]] => [name, []]));
  for (const name of buckets.keys()) bytes += Buffer.byteLength(name) + 8;
  const lexemes = words.length + pathNames.length;
  yield;
  if (bytes <= MAX_VECTOR_BYTES) {
    const vector = [vectorText(positions), vectorText(pairs), vectorText(pathLexemes), vectorText(buckets)].filter((part) => part !== '').join(' ');
    const titleWords = [vectorText(titled(positions)), vectorText(titled(pairs))].filter((part) => part !== '').join(' ');
    const allRepeats = [vectorText(repeated(positions)), vectorText(repeated(pairs))].filter((part) => part !== '').join(' ');
    const repeats = allRepeats.length <= REPEATS_LENGTH ? allRepeats : null;
    return { vector, positionsExact, words, paths: pathNames, lexemes, titleWords, repeats, fields: positionsExact ? fields : null };
  }
  // Too large with every position: the words alone, title words keeping theirs for their weight,
  // and no pairs (a phrase that may match such a document goes to the evaluator).
  let lexemeBytes = [...pathLexemes.keys(), ...buckets.keys()].reduce((sum, name) => sum + Buffer.byteLength(name) + 8, 0);
  const titleOnly = new Map<string, string[]>();
  for (const [word, list] of positions) {
    const titled = list.filter((p) => p.endsWith('A'));
    titleOnly.set(word, titled);
    lexemeBytes += Buffer.byteLength(word) + 8 + 2 * titled.length;
  }
  return lexemeBytes <= MAX_VECTOR_BYTES
    ? { vector: [vectorText(titleOnly), vectorText(pathLexemes), vectorText(buckets)].filter((part) => part !== '').join(' '), positionsExact: false, words, paths: pathNames, lexemes, titleWords: vectorText(titled(titleOnly)), repeats: '', fields: null }
    : null;
}

/**
 * The lexeme of two words next to each other in one value: the two-word phrase `"a b"` as one
 * lexeme, which the GIN index answers exactly (no positions to read), and which the counts and
 * title scores the writes keep per lexeme answer as they answer a word. It starts with a space,
 * which no word (letters and digits) holds, so no word, prefix or path lexeme is one.
 */
export const pairLexeme = (a: string, b: string): string => ` ${a} ${b}`;

/**
 * The longest `repeats` kept, in characters: it is in the row, which every counting pass reads; a
 * typical record's is a few dozen.
 */
const REPEATS_LENGTH = 512;

/** The words without a title position held at two positions or more, with those positions. */
const repeated = (positions: Map<string, string[]>) => new Map([...positions].filter(([, list]) => list.length > 1 && !list.some((p) => p.endsWith('A'))));

/** The words with a title position, with all their positions. */
const titled = (positions: Map<string, string[]>) => new Map([...positions].filter(([, list]) => list.some((p) => p.endsWith('A'))));

function vectorText(positions: Map<string, string[]>): string {
  const parts: string[] = [];
  for (const [word, list] of positions) parts.push(list.length === 0 ? lexeme(word) : `${lexeme(word)}:${list.join(',')}`);
  return parts.join(' ');
}

/**
 * Whether a word can be a lexeme at all. Longer ones are in no vector (a document holding one has
 * none), and tsquery refuses them: a query naming one is left to the evaluator.
 */
const fits = (w: string) => Buffer.byteLength(w) <= MAX_LEXEME_BYTES;

/** A lexeme in tsvector or tsquery text: the domain's words are letters and digits only, quoted all the same. */
export const lexeme = (w: string) => `'${w.replace(/['\\]/g, (c) => `\\${c}`)}'`;

/** Fields a query can name that the vector answers: all words, or the title's (weight A). */
const weightOf = (field: string | null): '' | 'A' | null => (field === null ? '' : field === 'metadata.title' ? 'A' : null);

export interface ExactQuery {
  /** tsquery text deciding the query on the vector. */
  match: string;
  /** Whether it holds a phrase, which only documents with `positionsExact` decide in SQL. */
  phrases: boolean;
  /**
   * Whether it holds a phrase of more than two words (`a <-> b <-> c`), which needs the words'
   * positions; a two-word phrase is its pair's lexeme (`pairLexeme`), which the GIN index decides.
   */
  positional: boolean;
  /**
   * Whether every leaf is a title field (weight A): the title's words then decide the query as the
   * whole vector would (they hold every position of every word with a title position).
   */
  titleOnly: boolean;
}

/** Each fuzzy query word's expansion: the indexed words it stands for (see `fuzzyExpansions`). */
export type FuzzyExpansions = ReadonlyMap<string, readonly string[]>;

/**
 * The query as tsquery text when the vector decides it exactly as the evaluator would, else null
 * (ranges, fields other than the title, words-less terms).
 */
export function exactQuery(node: QueryNode, fuzzy: FuzzyExpansions = new Map()): ExactQuery | null {
  let phrases = false;
  let positional = false;
  let titleOnly = true;
  const walk = (n: QueryNode): string | null => {
    switch (n.type) {
      case 'term': {
        const weight = weightOf(n.field);
        const words = tokenize(n.value);
        if (weight === null || words.length === 0 || !words.every(fits)) return null;
        if (weight !== 'A') titleOnly = false;
        if (n.match === 'fuzzy') {
          const suffix = weight === '' ? '' : `:${weight}`;
          const expanded = words.map((w) => fuzzy.get(w));
          if (expanded.some((e) => e === undefined || e.length === 0)) return null;
          return expanded.map((e) => `(${(e ?? []).map((x) => `${lexeme(x)}${suffix}`).join(' | ')})`).join(' & ');
        }
        const suffix = n.match === 'prefix' ? `:*${weight}` : weight === '' ? '' : `:${weight}`;
        return words.map((w) => `${lexeme(w)}${suffix}`).join(' & ');
      }
      case 'phrase': {
        const weight = weightOf(n.field);
        const words = tokenize(n.value);
        if (weight === null || words.length === 0 || !words.every(fits)) return null;
        if (weight !== 'A') titleOnly = false;
        if (words.length > 1) phrases = true;
        const suffix = weight === '' ? '' : `:${weight}`;
        const pair = twoWordPair(words);
        if (pair !== null) return `${lexeme(pair)}${suffix}`;
        if (words.length > 1) positional = true;
        return words.map((w) => `${lexeme(w)}${suffix}`).join(' <-> ');
      }
      case 'and':
      case 'or': {
        const parts = n.children.map(walk);
        if (parts.length === 0 || parts.some((p) => p === null)) return null;
        return parts.map((p) => `(${p})`).join(n.type === 'and' ? ' & ' : ' | ');
      }
      case 'not': {
        const child = walk(n.child);
        return child === null ? null : `!(${child})`;
      }
      case 'exists':
        titleOnly = false;
        return fits(`$${n.field}`) ? lexeme(`$${n.field}`) : null;
      default:
        return null;
    }
  };
  const match = walk(node);
  return match === null ? null : { match, phrases, positional, titleOnly };
}

/** The lexeme of a phrase of two words, or null (another length, or a pair past a lexeme's size). */
function twoWordPair(words: readonly string[]): string | null {
  const [a, b] = words;
  if (words.length !== 2 || a === undefined || b === undefined) return null;
  const pair = pairLexeme(a, b);
  return fits(pair) ? pair : null;
}

/**
 * The words a document must hold for `node` to match it, as tsquery text, or null when a query
 * of this shape can match a document without any particular word. Never narrows too much: the
 * evaluator decides afterwards. `pairs`: a phrase requires its word pairs (`pairLexeme`) rather
 * than its words, far fewer documents; only where no candidate's positions were cut, whose pairs
 * may be missing.
 */
export function requiredWords(node: QueryNode, pairs = false): string | null {
  switch (node.type) {
    case 'term': {
      if (node.match === 'fuzzy') return null;
      const words = tokenize(node.value);
      if (words.length === 0 || !words.every(fits)) return null;
      return words.map((w) => `${lexeme(w)}${node.match === 'prefix' ? ':*' : ''}`).join(' & ');
    }
    case 'phrase': {
      const words = tokenize(node.value);
      if (words.length === 0 || !words.every(fits)) return null;
      const between = pairs ? words.slice(1).map((w, i) => pairLexeme(words[i] as string, w)) : [];
      return between.length > 0 && between.every(fits) ? between.map(lexeme).join(' & ') : words.map(lexeme).join(' & ');
    }
    case 'and': {
      const parts = node.children.map((c) => requiredWords(c, pairs)).filter((p): p is string => p !== null);
      return parts.length === 0 ? null : parts.map((p) => `(${p})`).join(' & ');
    }
    case 'or': {
      const parts = node.children.map((c) => requiredWords(c, pairs));
      return parts.some((p) => p === null) || parts.length === 0 ? null : parts.map((p) => `(${p})`).join(' | ');
    }
    default:
      return null;
  }
}

/** An operand of `rankQuery`: a word, and whether it stands for every word it begins. */
export interface RankOperand {
  word: string;
  prefix: boolean;
}

/**
 * What `bestmatch` ranks by: any of the query's words not under a NOT (prefixes as prefixes), as
 * the domain's score counts them, each once; empty when there are none, and the sort is `newest`.
 */
export function rankOperands(node: QueryNode, fuzzy: FuzzyExpansions = new Map()): RankOperand[] {
  const operands = new Map<string, RankOperand>();
  const add = (word: string, prefix: boolean) => {
    const key = `${prefix ? '*' : ' '}${word}`;
    if (!operands.has(key)) operands.set(key, { word, prefix });
  };
  const walk = (n: QueryNode): void => {
    const own = n.type === 'term' || n.type === 'phrase' ? tokenize(n.value).filter(fits) : [];
    if (n.type === 'term' && n.match === 'fuzzy') for (const w of own) for (const x of fuzzy.get(w) ?? [w]) add(x, false);
    else if (n.type === 'term') for (const w of own) add(w, n.match === 'prefix');
    else if (n.type === 'phrase') {
      // A two-word phrase ranks by where the phrase itself is (its pair), not where its words are apart.
      const pair = own.length === tokenize(n.value).length ? twoWordPair(own) : null;
      if (pair !== null) add(pair, false);
      else for (const w of own) add(w, false);
    }
    else if (n.type === 'and' || n.type === 'or') n.children.forEach(walk);
  };
  walk(node);
  return [...operands.values()];
}

/** Rank operands as tsquery text (`a | b:*`). */
export const rankText = (operands: readonly RankOperand[]): string => operands.map((o) => `${lexeme(o.word)}${o.prefix ? ':*' : ''}`).join(' | ');

/** `rankOperands` as tsquery text, or null when there are none. */
export function rankQuery(node: QueryNode, fuzzy: FuzzyExpansions = new Map()): string | null {
  const operands = rankOperands(node, fuzzy);
  return operands.length === 0 ? null : rankText(operands);
}

/** A query of one lexeme: what the counts kept per lexeme answer (see the PostgreSQL engine's `search_count`). */
export interface SingleLexeme {
  lexeme: string;
  /** Whether only the title's words are asked (a title field): the documents whose title holds the word. */
  titleOnly: boolean;
}

/**
 * The one lexeme a query asks for: one word (neither a prefix nor fuzzy, which stand for several),
 * or a phrase of two words (their pair's lexeme), in any field or the title, or one `_exists_`
 * (its path's lexeme); else null.
 */
export function singleLexeme(node: QueryNode): SingleLexeme | null {
  if (node.type === 'exists') return fits(`$${node.field}`) ? { lexeme: `$${node.field}`, titleOnly: false } : null;
  if ((node.type === 'term' && node.match === 'exact') || node.type === 'phrase') {
    const weight = weightOf(node.field);
    const words = tokenize(node.value);
    const pair = node.type === 'phrase' ? twoWordPair(words) : null;
    if (pair !== null && weight !== null) return { lexeme: pair, titleOnly: weight === 'A' };
    const word = words[0];
    if (weight === null || words.length !== 1 || word === undefined || !fits(word)) return null;
    return { lexeme: word, titleOnly: weight === 'A' };
  }
  return null;
}
