/**
 * Documents for the MiniSearch snapshot tests: words sharing prefixes (so the term tree has
 * deep, branching nodes), descriptions, restricted rows with readers, boxes and polygons, range
 * values and resource types, subjects (some holding words of their own beside members).
 * Deterministic: the snapshot fixture of an older format was written from them, without the subjects.
 */
import type { SearchDocument } from '@krs/domain';
import { searchDocument } from './contracts/builders.ts';

const WORDS = ['glacier', 'glacial', 'glaciers', 'glade', 'sea', 'seal', 'season', 'ice', 'icefield', 'iceberg', 'flood', 'floods', 'flow', 'mapping', 'map', 'maple', 'drought', 'delta', 'deltaic', 'amazon', 'müller', 'ålesund'];

/** From the title's words, so the other fields are those the fixture was written from. */
function subjects(title: string, i: number): unknown[] {
  const [first, second] = title.split(' ');
  return i % 5 === 0 ? [first, { subject: second }] : [{ subject: `${first} ${second}` }];
}

export function snapshotCorpus(n = 120): SearchDocument[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = () => WORDS[Math.floor(next() * WORDS.length)] ?? 'sea';
  return Array.from({ length: n }, (_, i) => {
    const id = `d${i}`;
    const title = `${pick()} ${pick()} ${pick()}`;
    const west = Math.floor(next() * 300) - 150;
    const south = Math.floor(next() * 120) - 60;
    const restricted = i % 9 === 0;
    const polygon = i % 4 === 0;
    const created = new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString();
    return searchDocument(id, title, {
      ...(restricted ? { isPublic: false, readers: ['o', `reader-${i}`], accessStatus: 'restricted' as const } : {}),
      created,
      updated: created,
      resourceType: i % 3 === 0 ? { id: 'dataset', label: 'Dataset' } : null,
      bounds: [[west, south, west + 5, south + 5]],
      ...(polygon ? { shapes: [{ type: 'polygon' as const, rings: [[west, south, west + 5, south, west + 5, south + 5, west, south]] }] } : {}),
      body: { id, metadata: { title, description: `${pick()} ${pick()} of the ${pick()}`, publication_date: created.slice(0, 10), creators: [{ name: `${pick()}, ${pick()}` }], subjects: subjects(title, i) } },
    });
  });
}
