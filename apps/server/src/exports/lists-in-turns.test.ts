import { describe, expect, it } from 'vitest';
import type { PublishedRecord, RecordView, Slicing } from '@krs/domain';
import { createLinks } from '../links.ts';
import { oaiDcXml, oaiDcXmlInTurns } from '../oai/oai-dc.ts';
import { toCsl, toCslInTurns } from './csl-json.ts';
import { dataCiteXml, dataCiteXmlInTurns, toDataCite, toDataCiteInTurns } from './datacite.ts';
import { toJsonLd, toJsonLdInTurns } from './json-ld.ts';
import { flatMapInTurns } from './lists-in-turns.ts';

/** Always due: every place a mapping may give the loop back, it does. */
function countingSlicing(): Slicing & { turns: number } {
  const s = { turns: 0, due: () => true, turn: async () => void s.turns++ };
  return s;
}

const links = createLinks('http://krs.test');
const person = (i: number) => ({
  person_or_org: i % 7 === 0 ? { type: 'organizational', name: `Group ${i}` } : { type: 'personal', given_name: `Given${i}`, family_name: `Family${i}`, identifiers: i % 3 === 0 ? [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }] : [] },
  affiliations: i % 2 === 0 ? [{ name: `Institute ${i}` }] : [],
  ...(i % 5 === 0 ? { role: { id: 'editor' } } : {}),
});
const record = {
  state: 'published',
  id: 'abcde-fghij',
  kind: 'resource',
  parentId: 'parnt-00001',
  versionIndex: 1,
  created: '2026-03-01T10:00:00.000Z',
  updated: '2026-03-01T10:05:00.123Z',
  publishedAt: '2026-03-02T08:00:00.000Z',
  access: { record: 'public', files: 'public', embargo: { active: false, until: null, reason: null } },
  files: { enabled: false, defaultPreview: null, order: [] },
  pids: { doi: { identifier: '10.1234/abc', provider: 'datacite' } },
  metadata: {
    title: 'Many people',
    publication_date: '2024-06-01',
    resource_type: { id: 'dataset' },
    // An entry naming no one is left out by every mapping.
    creators: [...Array.from({ length: 1500 }, (_, i) => person(i)), { person_or_org: { type: 'personal' } }],
    contributors: Array.from({ length: 700 }, (_, i) => person(i)),
    related_identifiers: Array.from({ length: 1200 }, (_, i) => ({ identifier: `https://example.org/${i}`, scheme: i % 4 === 0 ? 'nonsense' : 'url', relation_type: { id: 'references' } })),
  },
} as unknown as PublishedRecord;
const view = { record, parent: { id: 'parnt-00001' }, versions: { index: 1, isLatest: true, isLatestDraft: true }, issues: [] } as unknown as RecordView;

describe('exports mapped in turns', () => {
  it('flatMapInTurns is flatMap, with turns between slices', async () => {
    const slicing = countingSlicing();
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const f = (i: unknown) => ((i as number) % 3 === 0 ? [] : [i, -(i as number)]);
    expect(await flatMapInTurns(items, f, slicing)).toEqual(items.flatMap(f));
    expect(slicing.turns).toBeGreaterThan(10);
  });

  it('map a record of thousands of people and related works as the mappings made in one go do', async () => {
    const dataCite = toDataCite(view, links);
    expect(await toDataCiteInTurns(view, links, countingSlicing())).toEqual(dataCite);
    expect(await dataCiteXmlInTurns(view, links, countingSlicing().turn)).toEqual(dataCiteXml(dataCite));
    expect(await toJsonLdInTurns(view, links, [], countingSlicing())).toEqual(toJsonLd(view, links));
    expect(await toCslInTurns(view, links, countingSlicing())).toEqual(toCsl(view, links));
    expect(await oaiDcXmlInTurns(view, links, countingSlicing().turn)).toEqual(oaiDcXml(view, links));
  });
});
