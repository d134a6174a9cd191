import { describe, expect, it } from 'vitest';
import type { Slicing } from '@krs/domain';
import { TextIndex, TITLE_AND_TEXT, TITLE_ONLY, type IndexedText, type Staged, type TextState, type WordMatch } from '../src/search/minisearch-text.ts';
import { valueLine } from '../src/search/minisearch-value-lines.ts';
import { RowArraysPool } from '../src/search/row-arrays.ts';
import { seeded } from './contracts/random-search.ts';

/** Every place the steps may give the loop back, they do. */
const always: Slicing = { due: () => true, turn: async () => undefined };

const WORDS = ['sea', 'ice', 'sheet', 'seas', 'season', 'glacier', 'glacial', 'Müller', 'muller', 'Straße', 'ﬁsh', 'Ørsted', '한국', 'café', 'cafe\u0301', 'Ａｂｃ', 'x²', 'ΣΑΣ', 'İstanbul', '2020', 'a1'];

/** A document's title and lines of words by path, some values long enough to be cut inside, some documents of many lines. */
function randomText(random: () => number): Omit<IndexedText, 'id'> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(pick([' ', '-', ', ']));
  const lines: string[] = [];
  const values = random() < 0.3 ? 400 + Math.floor(random() * 800) : Math.floor(random() * 12);
  for (let i = 0; i < values; i++) lines.push(valueLine(Math.floor(random() * 6), words(random() < 0.02 ? 1500 : 1 + Math.floor(random() * 5))));
  return { title: random() < 0.1 ? '' : words(1 + Math.floor(random() * 4)), text: lines.join('\n') };
}

/** The word index's contents, each word's fields and postings in order of field and short id: what any order of the same changes leaves. */
function contents(state: TextState): [string, [number, [number, number][]][]][] {
  const out: [string, [number, [number, number][]][]][] = [];
  let at = 0;
  for (const term of state.terms) {
    const fields: [number, [number, number][]][] = [];
    for (let n = state.postings[at++] ?? 0; n > 0; n--) {
      const fieldId = state.postings[at++] ?? 0;
      const postings: [number, number][] = [];
      for (let p = state.postings[at++] ?? 0; p > 0; p--) postings.push(fieldId >= 2 ? [state.postings[at++] ?? 0, 1] : [state.postings[at++] ?? 0, state.postings[at++] ?? 0]);
      fields.push([fieldId, postings.sort((a, b) => a[0] - b[0])]);
    }
    out.push([term, fields.sort((a, b) => a[0] - b[0])]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

const QUERIES: [string[], WordMatch][] = [
  [['sea'], 'exact'],
  [['sea', 'ice'], 'exact'],
  [['muller'], 'exact'],
  [['gla'], 'prefix'],
  [['s'], 'prefix'],
  [['glacer'], 'fuzzy'],
  [['seas'], 'fuzzy'],
];

/** Each query's rows and scores, on all fields and on the title. */
async function answers(index: TextIndex, capacity: number): Promise<[number[], number[]][]> {
  const pool = new RowArraysPool();
  const out: [number[], number[]][] = [];
  for (const [words, match] of QUERIES) {
    for (const fields of [TITLE_AND_TEXT, TITLE_ONLY]) {
      const arrays = pool.take();
      const found = await index.scoreAll(words, fields, match, capacity, arrays, () => 2);
      const rows: number[] = [];
      for (let row = 0; row < capacity; row++) if (found.marks[row] === 1) rows.push(row);
      out.push([rows, rows.map((row) => found.scores[row] ?? 0)]);
      pool.give(arrays);
    }
  }
  return out;
}

describe('MiniSearch add and remove in steps', () => {
  it("leave the index as MiniSearch's own add and remove do: words, postings, field lengths, averages and scores (seeded)", async () => {
    for (const seed of [1, 2, 3, 4]) {
      const random = seeded(seed);
      const atOnce = new TextIndex();
      const inSteps = new TextIndex();
      const held = new Map<number, Omit<IndexedText, 'id'>>();
      let rewritten = false;
      for (let op = 0; op < 30; op++) {
        const row = Math.floor(random() * 8);
        const before = held.get(row);
        if (random() < 0.3) {
          // A removal: `drop`, against hiding the row then taking its words out.
          if (before === undefined) continue;
          atOnce.drop({ id: row, ...before });
          const short = inSteps.hide(row) as number;
          await inSteps.purge(short, { id: row, ...before }, always);
          held.delete(row);
        } else {
          const doc = randomText(random);
          if (before !== undefined) atOnce.drop({ id: row, ...before });
          atOnce.put({ id: row, ...doc });
          const staged: Staged = await inSteps.stage(doc, always);
          const short = before === undefined ? undefined : inSteps.hide(row);
          inSteps.show(staged, row);
          if (short !== undefined && before !== undefined) await inSteps.purge(short, { id: row, ...before }, always);
          held.set(row, doc);
          rewritten ||= before !== undefined;
        }
        const [want, got] = [atOnce.exportState(), inSteps.exportState()];
        expect(got.scalars).toEqual(want.scalars);
        // Bit for bit: the field lengths were added and taken away in the same order.
        expect(Array.from(got.averages)).toEqual(Array.from(want.averages));
        expect(got.documents).toEqual(want.documents);
        expect(got.lengths).toEqual(want.lengths);
        // Until a document is replaced, the term tree is the same down to its order; a rewrite
        // adds the new words before taking out the old, so maps may hold the same in another order.
        if (!rewritten) expect(got.terms).toEqual(want.terms);
        expect(contents(got)).toEqual(contents(want));
        const [wanted, given] = [await answers(atOnce, 8), await answers(inSteps, 8)];
        expect(given.map(([rows]) => rows)).toEqual(wanted.map(([rows]) => rows));
        if (!rewritten) expect(given).toEqual(wanted);
        else {
          // A prefix or fuzzy word's expansions are summed in the tree's order: after a rewrite,
          // the same sums in another order, equal to the last bit or two.
          const [exact, near] = [given.flatMap(([, scores], i) => (QUERIES[i >> 1]?.[1] === 'exact' ? scores : [])), wanted.flatMap(([, scores], i) => (QUERIES[i >> 1]?.[1] === 'exact' ? scores : []))];
          expect(exact).toEqual(near);
          for (const [i, [, scores]] of given.entries()) for (const [j, score] of scores.entries()) expect(Math.abs(score - (wanted[i]?.[1][j] ?? 0))).toBeLessThanOrEqual(1e-12 * Math.abs(score));
        }
      }
      expect(rewritten).toBe(true);
    }
  });

  it('hide a document from every search until it is shown whole, and from the moment its removal begins', async () => {
    const random = seeded(9);
    const index = new TextIndex();
    const others = Array.from({ length: 5 }, () => randomText(random));
    for (const [row, doc] of others.entries()) index.put({ id: row, ...doc });
    const empty = await answers(index, 8);
    let turns = 0;
    const checking: Slicing = {
      due: () => true,
      turn: async () => {
        turns++;
        expect(await answers(index, 8)).toEqual(empty);
      },
    };
    const large = { title: 'sea glacier', text: Array.from({ length: 300 }, (_, i) => valueLine(i % 4, `sea ice glacial ${WORDS[i % WORDS.length]}`)).join('\n') };
    const staged = await index.stage(large, checking);
    expect(await answers(index, 8)).toEqual(empty);
    index.show(staged, 6);
    const shown = await answers(index, 8);
    expect(shown).not.toEqual(empty);
    const reference = new TextIndex();
    for (const [row, doc] of others.entries()) reference.put({ id: row, ...doc });
    reference.put({ id: 6, ...large });
    expect(shown).toEqual(await answers(reference, 8));
    const short = index.hide(6) as number;
    expect(await answers(index, 8)).toEqual(empty);
    await index.purge(short, { id: 6, ...large }, checking);
    expect(turns).toBeGreaterThan(4);
  });
});
