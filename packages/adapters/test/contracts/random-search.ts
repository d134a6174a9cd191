/**
 * Seeded random documents and queries for comparing an engine with the domain's evaluator: a
 * small vocabulary (words outside ASCII among them) so that queries hit, titles that are strings,
 * lists or objects, lists in lists, dotted keys beside the nested keys they name, dates and
 * version indexes that are values, objects or not numbers, and every leaf kind under AND/OR/NOT.
 */
import type { SearchDocument } from '@krs/domain';

/** A linear congruential generator: the same seed gives the same documents and queries. */
export function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const WORDS = ['sea', 'ice', 'sheet', 'melt', 'water', 'level', 'levels', 'glacier', 'balance', 'Müller', 'muller', 'x', 'ab', 'abc', 'seas', 'zeta', 'a1', '2020',
  'Straße', 'ﬁsh', 'fish', 'Ørsted', 'łódź', '한국', 'café', 'cafe\u0301', 'Ａｂｃ', 'x²', 'a\u{E001}b', 'Æble', 'naïve'];
const DATES = ['2020', '2020-06', '2020-06-15', '2021-01-01', '2019-12-31', 'abc', '2022-01-01T00:00:00Z'];
const INDEXES: unknown[] = [1, 2, 3.5, -1, '3a', 'x', '10', { n: 2 }, [1, 'y'], null];
const FIELDS = [null, null, null, 'metadata.title', 'metadata.title', 'metadata.title.en', 'metadata.keywords', 'metadata.subjects', 'metadata.subjects.subject', 'metadata',
  'metadata.description', 'metadata.creators.person_or_org.name', 'metadata.custom.a.b', 'metadata.custom', 'created'];

export function randomSearch(random: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const text = (n: number) => Array.from({ length: 1 + Math.floor(random() * n) }, () => pick(WORDS)).join(pick([' ', ' ', '-', ', ']));
  const value = (depth: number): unknown => {
    const r = random();
    if (depth > 2 || r < 0.5) return text(4);
    if (r < 0.7) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
    if (r < 0.8) return { en: text(3), fr: text(2) };
    if (r < 0.9) return [{ subject: text(2) }, text(2)];
    return pick([null, 12, true, '']);
  };
  const document = (i: number): SearchDocument => {
    const id = `d${i}`;
    const metadata: Record<string, unknown> = { title: random() < 0.7 ? text(4) : value(1) };
    for (const key of ['description', 'keywords', 'subjects']) if (random() < 0.6) metadata[key] = value(0);
    if (random() < 0.5) metadata['creators'] = [{ person_or_org: { name: text(2) } }, { person_or_org: { name: text(2) } }];
    if (random() < 0.3) metadata['custom'] = { 'a.b': text(2), a: random() < 0.5 ? { b: text(2) } : text(1), n: 12, e: [] };
    if (random() < 0.6) metadata['publication_date'] = random() < 0.8 ? pick(DATES) : { start: pick(DATES) };
    if (random() < 0.5) metadata['dates'] = [{ date: random() < 0.8 ? pick(DATES) : { start: pick(DATES) } }];
    const created = random() < 0.3 ? { created: random() < 0.7 ? pick(DATES) : { at: pick(DATES) } } : {};
    return {
      key: `published:${id}`, id, kind: 'resource', state: 'published', parentId: `p${i}`, ownerId: 'o', versionIndex: 1, isLatest: true, inUserListing: true,
      isUserLatest: true, isPublic: true, readers: [], created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z', resourceType: null, accessStatus: 'open',
      bounds: [], body: { id, metadata, versions: random() < 0.8 ? { index: pick(INDEXES) } : {}, ...created },
    };
  };
  const word = () => pick(WORDS).toLowerCase();
  const leaf = (): string => {
    const r = random();
    const field = pick(FIELDS);
    const on = field === null ? '' : `${field}:`;
    if (r < 0.3) return `${on}${word()}`;
    if (r < 0.45) return `${on}${word().slice(0, 1 + Math.floor(random() * 3))}*`;
    if (r < 0.55) return `${on}${word()}-${word().slice(0, 2)}*`;
    if (r < 0.65) return `${on}${word()}~`;
    if (r < 0.8) return `${on}"${text(3).replace(/[,-]/g, ' ')}"`;
    if (r < 0.85) return `${on}${word()}-${word()}`;
    if (r < 0.9) return `_exists_:${field ?? 'metadata.title.en'}`;
    const ranged = pick(['metadata.publication_date', 'metadata.dates.date', 'versions.index', 'created']);
    const bound = () => (ranged === 'versions.index' ? pick(['*', '1', '2', '3', '-5', 'x']) : pick(['*', '2020', '2020-06', '2021', 'abc']));
    return `${ranged}:${pick(['[', '{'])}${bound()} TO ${bound()}${pick([']', '}'])}`;
  };
  const query = (depth = 0): string => {
    const r = random();
    if (depth > 1 || r < 0.5) return leaf();
    if (r < 0.7) return `(${query(depth + 1)} AND ${query(depth + 1)})`;
    if (r < 0.9) return `(${query(depth + 1)} OR ${query(depth + 1)})`;
    return `NOT ${query(depth + 1)}`;
  };
  return { document, query };
}
