/**
 * SearchIndex on MiniSearch, in memory. MiniSearch holds the words (title and text) and answers
 * the free-text leaves of a query, scored from its postings into arrays by row (see
 * minisearch-text.ts); `_exists_` reads the rows of each field path, ranges a compact column of
 * the range fields' values, and NOT is the complement of what its child matched. Filters,
 * facets, order and paging run over each document's header in the domain's typed columns
 * (`HeaderTable`), as in the SQLite engine, whose rules the contract suite holds equal to
 * `runSearch`'s. Words on a field other than the title are looked up in the postings of its
 * paths (minisearch-text.ts). Where the index's answer is a superset (phrases), the candidates
 * are checked a slice at a time against the words kept per value; what has no words to look up
 * (`field:--`) by the domain's evaluator over the body kept as JSON text.
 * A large record is prepared, and a document of many words added to the word index and taken
 * out of it, in 2 ms slices (minisearch-steps.ts), hidden from searches until shown whole; writes
 * are applied one at a time in the order asked (writes-in-order.ts). A search reads its candidates
 * (each word's expansion, each expanded word's postings) and an exact answer in 2 ms slices, as of
 * one state of the index: a write shown between two slices starts it over.
 */
import {
  fieldPaths,
  fieldValues,
  firstByColumn,
  firstByColumnSteps,
  flatten,
  flattenInTurns,
  fuzzyDistance,
  inRange,
  isFuzzyMatch,
  matchesBody,
  parseQuery,
  RANGE_FIELDS,
  rangeValues,
  runSteps,
  tokenize,
  type FlatDoc,
  type QueryNode,
  type Ranker,
  type Steps,
} from '@krs/domain/search';
import {
  isLarge,
  largeValueSlices,
  stringifyJsonInTurns,
  timeSlices,
  turnWhenDue,
  type SearchDocument,
  type SearchIndex,
  type SearchRequest,
  type SearchResult,
  type Shape,
  type Slicing,
} from '@krs/domain';
import { RowArraysPool, type RowArrays } from './row-arrays.ts';
import { evaluateInSlices } from './evaluate-in-slices.ts';
import { pathToken } from './path-token.ts';
import { MiniSearchRows, needsShapes, type PreparedRow } from './minisearch-rows.ts';
import { TextIndex, TITLE_AND_TEXT, TITLE_ONLY, type IndexedText, type Scored, type Staged, type TakeTurn } from './minisearch-text.ts';
import { nextSearchTurn } from './search-turns.ts';
import { WritesInOrder } from './writes-in-order.ts';
import { readSnapshot, writeSnapshot } from './minisearch-snapshot.ts';
import { phraseInField, valueLine, type FieldPaths } from './minisearch-value-lines.ts';

type PathCode = (token: string) => number;

/** The paths a path lies below. */
function addParents(path: string, parents: Set<string>): void {
  for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) parents.add(path.slice(0, i));
}

/** The row from what was made of the document at once or in steps. */
function preparedRow(doc: SearchDocument, flat: FlatDoc, pathCode: PathCode, parents: Set<string>, made: { words: string; body: string; shapes: Shape[] | null }): PreparedRow {
  // What `metadata.title:` reads: the title's own values, else its members' (`{en, fr}`).
  const title = fieldValues(flat, 'metadata.title');
  const mixed: number[] = [];
  for (const path of flat.keys()) if (parents.has(path)) mixed.push(pathCode(pathToken(path)));
  const ranges = rangeValues(flat);
  const { key: _key, body: _body, bounds, shapes: _shapes, ...header } = doc;
  return {
    key: doc.key,
    header: structuredClone(header),
    bounds: bounds.map(([w, s, e, n]) => [w, s, e, n]),
    shapes: made.shapes,
    ranges: ranges.length > 0 ? ranges : null,
    paths: fieldPaths(flat).map((path) => pathCode(pathToken(path))),
    mixed: mixed.length > 0 ? mixed : null,
    body: made.body,
    title: title.join(' '),
    words: made.words,
  };
}

function prepare(doc: SearchDocument, pathCode: PathCode): PreparedRow {
  const flat = flatten(doc.body);
  const lines: string[] = [];
  const parents = new Set<string>();
  for (const [path, values] of flat) {
    const code = pathCode(pathToken(path));
    for (const value of values) lines.push(valueLine(code, value));
    addParents(path, parents);
  }
  return preparedRow(doc, flat, pathCode, parents, { words: lines.join('\n'), body: JSON.stringify(doc.body), shapes: needsShapes(doc) ? structuredClone(doc.shapes ?? []) : null });
}

/** Values whose lines are made, or lines joined, between two looks at the clock. */
const LINES_PER_STEP = 1024;

/**
 * `prepare` of a large record (domain turns/large-values.ts) in steps with turns between: the
 * largest legal record's flattening, lines, body and shapes take tens of milliseconds at once.
 */
async function prepareInSteps(doc: SearchDocument, pathCode: PathCode, slicing: Slicing): Promise<PreparedRow> {
  const takeTurn = turnWhenDue(slicing);
  const flat = await flattenInTurns(doc.body, takeTurn);
  const parts: string[] = [];
  const parents = new Set<string>();
  let lines: string[] = [];
  for (const [path, values] of flat) {
    const code = pathCode(pathToken(path));
    addParents(path, parents);
    for (const value of values) {
      lines.push(valueLine(code, value));
      if (lines.length < LINES_PER_STEP) continue;
      parts.push(lines.join('\n'));
      lines = [];
      await takeTurn();
    }
  }
  if (lines.length > 0) parts.push(lines.join('\n'));
  const words = parts.join('\n');
  await takeTurn();
  const body = await stringifyJsonInTurns(doc.body, slicing);
  let shapes: Shape[] | null = null;
  if (needsShapes(doc)) {
    shapes = [];
    for (const shape of doc.shapes ?? []) {
      shapes.push(structuredClone(shape));
      await takeTurn();
    }
  }
  return preparedRow(doc, flat, pathCode, parents, { words, body, shapes });
}

/**
 * Characters of a document's title and words from which it is added to the word index, or taken
 * out, in steps: about 2,500 words, a few milliseconds of work at once. A record's are a few
 * hundred.
 */
const STEPS_FROM_CHARS = 16 * 1024;

const textChars = (text: { title: string; text: string } | null) => (text === null ? 0 : text.title.length + text.text.length);

/** Rows that may match a node (`marks[row]` 1), and whether every one of them surely does. */
interface Candidates {
  marks: Uint8Array;
  exact: boolean;
}

/**
 * A search's candidate work: scores by row, the leaves whose marks are exact, the phrases as
 * searched in a row's words (on all fields, or on a field's paths).
 */
interface Scoring {
  /** Null until a leaf matched some rows. */
  scores: Float64Array | null;
  exactLeaves: Map<QueryNode, Uint8Array>;
  phrases: Map<QueryNode, string>;
  fieldPhrases: Map<QueryNode, { phrase: string; field: FieldPaths }>;
}

/** A row the evaluator checks, with the text it reads taken when the search began. */
interface Candidate {
  row: number;
  key: string | undefined;
  words: string;
  body: string;
  parsed: object | null;
}

export interface MiniSearchIndex extends SearchIndex {
  size(): number;
  /** Writes the index atomically (temp file, then rename); `watermark` is the time up to which it reflects the database. */
  saveSnapshot(file: string, watermark: string): Promise<void>;
  /**
   * Loads a snapshot and returns its watermark; null, with the index left as it was, when the
   * file is missing, from another format version, or corrupt in any way.
   */
  loadSnapshot(file: string): Promise<string | null>;
}

/**
 * Tries at reading a query's candidates (and exact answer) in slices before reading them in one piece: each is
 * started over when a write is shown between two of its slices, and a stream of small writes
 * must not keep a search from ever answering.
 */
const SLICED_TRIES = 3;
/** A range's documents compared between two looks at the slice's clock. */
const RANGE_ROWS_A_STEP = 256;

/** A write was shown between two slices of a search's reading: it starts over. */
class WrittenMeanwhile extends Error {}

/** Steps run with `takeTurn` between them. */
async function inTurns<T>(steps: Steps<T>, takeTurn: TakeTurn): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await takeTurn();
  }
}

const keepFuzzy = (word: string, derived: string) => derived === word || isFuzzyMatch(derived, word);

export interface MiniSearchOptions {
  /** The slices a large document's steps run in: one per iteration of the loop (domain turns), unless a test says otherwise. */
  slices?: () => Slicing;
  /** The slices a search reads its candidates and answer in: 2 ms, one per turn of the searches' line (search-turns.ts), unless a test says otherwise. */
  searchSlices?: () => Slicing;
}

const searchTurns = (): Slicing => timeSlices(nextSearchTurn);

export function createMiniSearchIndex({ slices = largeValueSlices, searchSlices = searchTurns }: MiniSearchOptions = {}): MiniSearchIndex {
  let rows = new MiniSearchRows();
  let text = new TextIndex();
  /**
   * Writes shown so far. The index lives in this process's memory alone and each write is shown
   * to searches in one step (a large document's words are added and taken out in steps, hidden),
   * so the count is its stamp; a write that fails part way has counted too.
   */
  let writes = 0;
  const pool = new RowArraysPool();
  // Writes, clearing, snapshots and the keys of a parent one at a time, in the order asked.
  const inOrder = new WritesInOrder();
  const pathCode = (token: string) => rows.pathCode(token);

  function addScores(scoring: Scoring, found: Scored): void {
    if (found.count === 0) return;
    const { scores } = scoring;
    // The first leaf's scores are the search's: 0 where it did not match, as they would be added
    // to zeros (a query of one word then reads its matches once, not twice).
    if (scores === null) scoring.scores = found.scores;
    else for (const row of found.hits) if (found.marks[row] === 1) scores[row] = (scores[row] ?? 0) + (found.scores[row] ?? 0);
  }

  /** Candidates for a node, or null when the index cannot narrow it (every document may match). */
  async function candidates(node: QueryNode, scoring: Scoring | null, capacity: number, arrays: RowArrays, takeTurn: TakeTurn): Promise<Candidates | null> {
    switch (node.type) {
      case 'term':
      case 'phrase': {
        const words = tokenize(node.value);
        if (words.length === 0) return null;
        const onTitle = node.field === 'metadata.title';
        const fields = onTitle ? TITLE_ONLY : TITLE_AND_TEXT;
        const match = node.type === 'term' ? node.match : 'exact';
        // Another field than the title: its words are looked for in its paths' postings.
        const field = node.field === null || onTitle ? null : rows.fieldScope(node.field, arrays.marks(capacity));
        // MiniSearch's fuzzy search walks its term tree within the edit distance; the domain's
        // rule also wants the first letter kept, checked on the words each row matched.
        const found = await text.scoreAll(words, fields, match, capacity, arrays, fuzzyDistance, match === 'fuzzy' ? keepFuzzy : null, field, takeTurn);
        // Ranked by the words in the title and text, wherever the field wants them.
        if (scoring !== null) addScores(scoring, found);
        const marks = found.inField ?? found.marks;
        // Words on any field are exactly the index's answer; a phrase also needs its words in
        // order, in one value.
        const exact = node.type === 'term';
        if (exact) scoring?.exactLeaves.set(node, marks);
        else if (field === null) scoring?.phrases.set(node, ` ${words.join(' ')} `);
        else scoring?.fieldPhrases.set(node, { phrase: ` ${words.join(' ')} `, field });
        return { marks, exact };
      }
      case 'and': {
        // Plain words on the same fields go to MiniSearch as one AND query: it intersects them
        // itself, far cheaper than building each word's full result list.
        const plain = (field: string | null) => (c: QueryNode) => c.type === 'term' && c.match === 'exact' && c.field === field && tokenize(c.value).length > 0;
        const grouped: Candidates[] = [];
        const rest: QueryNode[] = [];
        const inGroup = new Set<QueryNode>();
        for (const field of [null, 'metadata.title']) {
          const same = node.children.filter(plain(field));
          if (same.length < 2) continue;
          const group: QueryNode = { type: 'term', field, match: 'exact', value: same.map((c) => (c.type === 'term' ? c.value : '')).join(' ') };
          const found = await candidates(group, scoring, capacity, arrays, takeTurn);
          if (found === null) continue;
          grouped.push(found);
          // Each word of the group is read from the group's marks: wrong for the word alone,
          // right for this AND, the only place the evaluator reads them.
          for (const c of same) {
            inGroup.add(c);
            scoring?.exactLeaves.set(c, found.marks);
          }
        }
        for (const c of node.children) if (!inGroup.has(c)) rest.push(c);
        const parts: (Candidates | null)[] = [...grouped];
        for (const c of rest) parts.push(await candidates(c, scoring, capacity, arrays, takeTurn));
        const narrowing = parts.filter((p): p is Candidates => p !== null);
        if (narrowing.length === 0) return null;
        const marks = arrays.marks(capacity);
        for (let row = 0; row < capacity; row++) if (narrowing.every((p) => p.marks[row] === 1)) marks[row] = 1;
        return { marks, exact: narrowing.length === parts.length && narrowing.every((p) => p.exact) };
      }
      case 'or': {
        const parts: (Candidates | null)[] = [];
        for (const c of node.children) parts.push(await candidates(c, scoring, capacity, arrays, takeTurn));
        if (parts.some((p) => p === null)) return null;
        const narrowing = parts as Candidates[];
        const marks = arrays.marks(capacity);
        // A pass over every row per part: 32 of them at 100k take about 4 ms at once.
        for (const p of narrowing) {
          for (let row = 0; row < capacity; row++) if (p.marks[row] === 1) marks[row] = 1;
          const turn = takeTurn();
          if (turn !== undefined) await turn;
        }
        return { marks, exact: narrowing.every((p) => p.exact) };
      }
      case 'exists': {
        const marks = arrays.marks(capacity);
        rows.markPath(pathToken(node.field), marks);
        scoring?.exactLeaves.set(node, marks);
        return { marks, exact: true };
      }
      case 'range': {
        const marks = arrays.marks(capacity);
        if ((RANGE_FIELDS as readonly string[]).includes(node.field)) {
          // Every document's values are compared (40 ms at 20k documents in one piece): the loop
          // gets a turn between stretches of them. A write shown meanwhile starts the search over.
          let compared = 0;
          for (const [row, values] of rows.ranges) {
            if (values.some(([field, value]) => field === node.field && inRange(value, node))) marks[row] = 1;
            if (++compared % RANGE_ROWS_A_STEP === 0) await takeTurn();
          }
        }
        scoring?.exactLeaves.set(node, marks);
        return { marks, exact: true };
      }
      case 'not': {
        // Only an exact answer has an exact complement; scores of what is excluded do not count.
        const inner = await candidates(node.child, null, capacity, arrays, takeTurn);
        if (inner === null || !inner.exact) return null;
        const marks = arrays.marks(capacity);
        for (const row of rows.rows()) if (inner.marks[row] !== 1) marks[row] = 1;
        scoring?.exactLeaves.set(node, marks);
        return { marks, exact: true };
      }
      default:
        return null;
    }
  }

  /** Whether a row matches the node: exact leaves from their marks, phrases from the words kept, the rest from the body. */
  function decide(node: QueryNode, item: Candidate, scoring: Scoring): boolean {
    const marks = scoring.exactLeaves.get(node);
    if (marks !== undefined) return marks[item.row] === 1;
    switch (node.type) {
      case 'and':
        return node.children.every((c) => decide(c, item, scoring));
      case 'or':
        return node.children.some((c) => decide(c, item, scoring));
      case 'not':
        return !decide(node.child, item, scoring);
      default: {
        const phrase = scoring.phrases.get(node);
        if (phrase !== undefined) return item.words.includes(phrase);
        const inField = scoring.fieldPhrases.get(node);
        if (inField !== undefined) return phraseInField(item.words, inField.phrase, inField.field);
        item.parsed ??= JSON.parse(item.body) as object;
        return matchesBody(node, item.parsed);
      }
    }
  }

  /** Rows marked (every row when null) that meet the box; null for every row. */
  function rowsInBox(marks: Uint8Array | null, box: SearchRequest['bbox'], arrays: RowArrays): Int32Array | null {
    if (marks === null && box === null) return null;
    const capacity = rows.capacity;
    const out = arrays.rows(capacity);
    let n = 0;
    if (marks !== null) {
      // Marks are only ever set on rows in use. Four rows at a time where none is marked: a
      // word's matches are often a small part of the rows.
      const words = marks.byteOffset % 4 === 0 ? new Uint32Array(marks.buffer, marks.byteOffset, marks.length >> 2) : null;
      for (let row = 0; row < capacity; row++) {
        if ((row & 3) === 0 && words?.[row >> 2] === 0) {
          row += 3;
          continue;
        }
        if (marks[row] !== 1 || (box !== null && !rows.meetsBox(row, box))) continue;
        out[n++] = row;
      }
      return out.subarray(0, n);
    }
    for (let row = 0; row < capacity; row++) if (rows.keyOf(row) !== undefined && box !== null && rows.meetsBox(row, box)) out[n++] = row;
    return out.subarray(0, n);
  }

  /** The header's filter, facets, order and page over the rows given (every row when null). */
  function answer(given: Int32Array | null, request: SearchRequest, rank: Ranker | null, arrays: RowArrays): SearchResult {
    const selection = runSteps(rows.header.selectSteps(given, request, arrays.rows(given?.length ?? rows.capacity)));
    const k = (request.page - 1) * request.size + request.size;
    const ranked = request.sort === 'bestmatch' && rank !== null ? rank(selection.hits, k, rows.header.newest()) : null;
    return rows.header.page(selection, request, ranked);
  }

  /** `bestmatch` by the scores, equal scores by `newest`. */
  const rankBy =
    (scores: Float64Array): Ranker =>
    (hits, k, newest) =>
      firstByColumn(hits, k, scores, true, (a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || newest(a, b));

  /**
   * `read` as of one state of the index: in slices, one per turn of the searches' line, started
   * over when a write is shown meanwhile; after `SLICED_TRIES` such starts, in one piece.
   * `read` learns the count of writes it reflects.
   */
  async function ofOneState<T>(arrays: RowArrays, read: (takeTurn: TakeTurn, seen: number) => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      const seen = writes;
      const slicing = searchSlices();
      const turn = async () => {
        await slicing.turn();
        if (writes !== seen) throw new WrittenMeanwhile();
      };
      const takeTurn: TakeTurn = tries < SLICED_TRIES ? () => (slicing.due() ? turn() : undefined) : () => undefined;
      try {
        const done = await read(takeTurn, seen);
        if (writes === seen) return done;
      } catch (e) {
        if (!(e instanceof WrittenMeanwhile)) throw e;
      }
      // What this try took is dropped with it.
      arrays.reset();
    }
  }

  /** `answer` with turns between its steps (16k rows each), ranked by the scores given. */
  async function answerInTurns(given: Int32Array | null, request: SearchRequest, scores: Float64Array | null, arrays: RowArrays, takeTurn: TakeTurn): Promise<SearchResult> {
    const table = rows.header;
    const selection = await inTurns(table.selectSteps(given, request, arrays.rows(given?.length ?? rows.capacity)), takeTurn);
    const k = (request.page - 1) * request.size + request.size;
    const newest = table.newest();
    const ranked =
      request.sort === 'bestmatch' && scores !== null
        ? await inTurns(
            firstByColumnSteps(selection.hits, k, scores, true, (a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || newest(a, b)),
            takeTurn,
          )
        : null;
    return inTurns(table.pageSteps(selection, request, ranked), takeTurn);
  }

  async function searchWith(request: SearchRequest, arrays: RowArrays): Promise<SearchResult> {
    const query = parseQuery(request.q ?? '');
    // An exact answer is read whole in one state; the evaluator's candidates are decided after.
    type Read = { answered: SearchResult } | { answered: null; found: Candidates | null; scoring: Scoring; seen: number };
    const read = await ofOneState(arrays, async (takeTurn, seen): Promise<Read> => {
      const capacity = rows.capacity;
      const scoring: Scoring = { scores: null, exactLeaves: new Map(), phrases: new Map(), fieldPhrases: new Map() };
      const found = query.type === 'all' ? null : await candidates(query, scoring, capacity, arrays, takeTurn);
      if (query.type === 'all' || found?.exact === true) {
        return { answered: await answerInTurns(rowsInBox(found?.marks ?? null, request.bbox, arrays), request, scoring.scores, arrays, takeTurn) };
      }
      return { answered: null, found, scoring, seen };
    });
    if (read.answered !== null) return read.answered;
    const { found, scoring, seen } = read;
    const rank = scoring.scores === null ? null : rankBy(scoring.scores);
    // The candidates the caller may list and the box allows, checked a slice at a time. The
    // text each needs is taken now: a write between slices must not show a document twice or
    // hide one.
    const listed = rows.header.select(rowsInBox(found?.marks ?? null, request.bbox, arrays), {
      ...request,
      filter: { ...request.filter, facets: {} },
      aggregations: [],
    }).hits;
    const items = Array.from(listed, (row): Candidate => ({ row, key: rows.keyOf(row), words: rows.wordsOf(row), body: rows.bodyOf(row), parsed: null }));
    const decided = await evaluateInSlices(items, (item) => (decide(query, item, scoring) ? item : null));
    const kept = seen === writes ? decided : decided.filter((item) => rows.keyOf(item.row) === item.key);
    const given = arrays.rows(kept.length);
    for (const [i, item] of kept.entries()) given[i] = item.row;
    return answer(given, request, rank, arrays);
  }

  /** Replaces or adds each row at once: documents of a few hundred words. */
  function upsertAtOnce(prepared: readonly PreparedRow[]): void {
    writes++;
    for (const p of prepared) {
      const row = rows.rowFor(p.key);
      const before = rows.rowOf(p.key) === undefined ? null : rows.text(row);
      if (before !== null) text.drop({ id: row, ...before });
      text.put({ id: row, title: p.title, text: p.words });
      rows.set(row, p);
    }
  }

  /**
   * The same in steps: every document's words added hidden, all of them shown in one step with
   * their rows (the documents they replace hidden in the same step), then the words replaced
   * taken out. A search sees the batch whole before or whole after.
   */
  async function upsertInSteps(prepared: readonly PreparedRow[]): Promise<void> {
    const slicing = slices();
    const staged: Staged[] = [];
    for (const p of prepared) staged.push(await text.stage({ title: p.title, text: p.words }, slicing));
    writes++;
    const replaced: [short: number, doc: IndexedText][] = [];
    for (const [i, p] of prepared.entries()) {
      const row = rows.rowFor(p.key);
      const before = rows.rowOf(p.key) === undefined ? null : rows.text(row);
      const short = before === null ? undefined : text.hide(row);
      if (before !== null && short !== undefined) replaced.push([short, { id: row, ...before }]);
      text.show(staged[i] as Staged, row);
      rows.set(row, p);
    }
    for (const [short, doc] of replaced) await text.purge(short, doc, slicing);
  }

  /** Whether a row's words, or those a key's row holds, are many enough to be added or taken out in steps. */
  const manyWords = (p: PreparedRow) => p.title.length + p.words.length >= STEPS_FROM_CHARS;
  const heldManyWords = (key: string) => {
    const row = rows.rowOf(key);
    return row !== undefined && textChars(rows.text(row)) >= STEPS_FROM_CHARS;
  };

  async function prepareAllInSteps(docs: readonly SearchDocument[]): Promise<PreparedRow[]> {
    const slicing = slices();
    const prepared: PreparedRow[] = [];
    for (const doc of docs) prepared.push(isLarge(doc.body['metadata']) ? await prepareInSteps(doc, pathCode, slicing) : prepare(doc, pathCode));
    return prepared;
  }

  return {
    upsert(docs) {
      // Preparing may throw on a document it cannot take: before anything changes, so the word
      // index and the rows never disagree about which documents exist.
      let prepared: PreparedRow[] | Promise<PreparedRow[]>;
      try {
        prepared = docs.some((doc) => isLarge(doc.body['metadata'])) ? prepareAllInSteps(docs) : docs.map((doc) => prepare(doc, pathCode));
      } catch (e) {
        return Promise.reject(e);
      }
      return inOrder.run(prepared, (ready) => (ready.some(manyWords) || ready.some((p) => heldManyWords(p.key)) ? upsertInSteps(ready) : upsertAtOnce(ready)));
    },
    remove: (keys) =>
      inOrder.run(keys, (ready) => {
        writes++;
        // Every row leaves the searches now; words of many are taken out after, in steps.
        const hidden: [short: number, doc: IndexedText][] = [];
        for (const key of ready) {
          const row = rows.rowOf(key);
          if (row === undefined) continue;
          const before = rows.text(row);
          if (before !== null && textChars(before) >= STEPS_FROM_CHARS) {
            const short = text.hide(row);
            if (short !== undefined) hidden.push([short, { id: row, ...before }]);
          } else if (before !== null) text.drop({ id: row, ...before });
          rows.delete(row);
        }
        if (hidden.length === 0) return undefined;
        const slicing = slices();
        return (async () => {
          for (const [short, doc] of hidden) await text.purge(short, doc, slicing);
        })();
      }),
    // Asked after a write, it sees that write.
    keysOfParent: (parentId) => inOrder.run(parentId, (ready) => rows.keysOfParent(ready)),
    async search(request) {
      const arrays = pool.take();
      try {
        return await searchWith(request, arrays);
      } finally {
        pool.give(arrays);
      }
    },
    clear: () =>
      inOrder.run(null, () => {
        writes++;
        text.empty();
        rows.clear();
      }),
    // Held in this process's memory: if the process answers, so does the index.
    check: async () => undefined,
    stamp: () => String(writes),
    size: () => rows.size,
    // Between two writes: those asked before it are in the file, those asked meanwhile wait for it.
    saveSnapshot: (file, watermark) => inOrder.run(null, () => writeSnapshot(file, watermark, rows, text)),
    loadSnapshot: (file) =>
      inOrder.run(readSnapshot(file), (loaded) => {
        if (loaded === null) return null;
        writes++;
        rows = loaded.rows;
        text = loaded.text;
        return loaded.watermark;
      }),
  };
}
