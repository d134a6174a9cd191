import { describe, expect, it } from 'vitest';
import type { HarvestPage } from '../src/index.ts';
import { as, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');

async function publish(core: ReturnType<typeof makeCore>['core'], kind: 'resource' | 'package', metadata: Record<string, unknown> = validMetadata, access?: Record<string, unknown>) {
  const draft = await core.records.createDraft(alice, kind, { metadata, files: { enabled: false }, ...(access ? { access } : {}) });
  return (await core.records.publish(alice, kind, draft.record.id)).record;
}

async function walk(core: ReturnType<typeof makeCore>['core'], limit: number, query: Omit<Parameters<typeof core.harvest.list>[0], 'limit'> = {}) {
  const pages: HarvestPage[] = [];
  let page = await core.harvest.list({ ...query, limit });
  pages.push(page);
  while (page.next !== null) {
    page = await core.harvest.list({ ...query, limit, after: page.next });
    pages.push(page);
  }
  return pages;
}

describe('harvest (what OAI-PMH serves)', () => {
  it('walks every published version once, in update order, a page at a time, the last page saying it is last', async () => {
    const { core } = makeCore();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await publish(core, 'resource', { ...validMetadata, title: `Record ${i}` })).id);
    const pages = await walk(core, 2);
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.items.map((i) => i.id))).toEqual(ids);
    expect(pages.at(-1)?.next).toBeNull();
    // A page that happens to end the walk exactly is known to be the last one.
    expect((await walk(core, 5)).map((p) => p.items.length)).toEqual([5]);
  });

  it('ends a page of large versions early, and reads a walk of them a few at a time, still handing out every version once', async () => {
    const sizing = makeCore();
    const one = await publish(sizing.core, 'resource', { ...validMetadata, title: 'Record 0' });
    const size = (await sizing.repos.records.storedSizes('published', [one.id])).get(one.id) as number;
    // Room for two versions of this size, not three.
    const { core, repos } = makeCore({ settings: { maxHarvestBytes: Math.floor(2.5 * size) } });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await publish(core, 'resource', { ...validMetadata, title: `Record ${i}` })).id);
    const readInFull: number[] = [];
    const byIds = repos.records.getPublishedByIds;
    repos.records.getPublishedByIds = async (wanted) => {
      readInFull.push(wanted.length);
      return byIds(wanted);
    };
    const pages = await walk(core, 100);
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flatMap((p) => p.items.map((i) => i.id))).toEqual(ids);
    expect(Math.max(...readInFull)).toBe(2);
    // A sitemap part of seven versions walks all seven, two at a time.
    const steps = [await core.harvest.sitemap({ rows: 7 })];
    let walked = steps[0]?.walked ?? 0;
    while (walked < 7 && steps.at(-1)?.next) {
      const step = await core.harvest.sitemap({ rows: 7 - walked, after: steps.at(-1)?.next ?? undefined });
      walked += step.walked;
      steps.push(step);
    }
    expect(steps.map((s) => s.walked)).toEqual([2, 2, 2, 1]);
    expect(steps.flatMap((s) => s.entries.map((e) => e.id))).toEqual(ids);
  });

  it('gives restricted versions without their metadata, so harvesters treat them as deleted', async () => {
    const { core } = makeCore();
    const open = await publish(core, 'resource');
    const closed = await publish(core, 'resource', validMetadata, { record: 'restricted', files: 'restricted' });
    const [page] = await walk(core, 10);
    const byId = new Map(page?.items.map((i) => [i.id, i]));
    expect(byId.get(open.id)?.view?.record.metadata['title']).toBe(validMetadata.title);
    expect(byId.get(closed.id)?.view).toBeNull();
    expect((await core.harvest.get(closed.id))?.view).toBeNull();
    expect(await core.harvest.get('no-such-id')).toBeNull();
  });

  it('filters by set (kind, resource type) and by update bounds', async () => {
    const { core } = makeCore();
    const resource = await publish(core, 'resource');
    const pkg = await publish(core, 'package', { ...validMetadata, resource_type: { id: 'knowledge' } });
    const ids = async (query: Parameters<typeof walk>[2]) => (await walk(core, 1, query)).flatMap((p) => p.items.map((i) => i.id));
    expect(await ids({ set: { kind: 'package' } })).toEqual([pkg.id]);
    expect(await ids({ set: { kind: 'resource' } })).toEqual([resource.id]);
    expect(await ids({ set: { resourceType: 'dataset' } })).toEqual([resource.id]);
    expect(await ids({ set: { resourceType: 'nothing' } })).toEqual([]);
    expect(await ids({ from: pkg.updated })).toEqual([pkg.id]);
    expect(await ids({ until: resource.updated })).toEqual([resource.id]);
    expect((await core.harvest.get(pkg.id))?.sets).toEqual([{ kind: 'package' }, { resourceType: 'knowledge' }]);
    expect(await core.harvest.earliest()).toBe(resource.updated);
  });
});

describe('sitemap (what search engines are pointed at)', () => {
  async function everything(core: ReturnType<typeof makeCore>['core'], rows: number) {
    const pages = [await core.harvest.sitemap({ rows })];
    for (let next = pages[0]?.next; next; next = pages.at(-1)?.next) pages.push(await core.harvest.sitemap({ rows, after: next }));
    return pages;
  }

  it('lists public latest versions only, a page at a time, each once', async () => {
    const { core } = makeCore();
    const first = await publish(core, 'resource');
    const pkg = await publish(core, 'package');
    await publish(core, 'resource', validMetadata, { record: 'restricted', files: 'restricted' });
    const later = await core.records.newVersion(alice, 'resource', first.id);
    await core.records.updateDraft(alice, 'resource', later.record.id, { metadata: validMetadata, files: { enabled: false } });
    const second = (await core.records.publish(alice, 'resource', later.record.id)).record;
    const others: string[] = [];
    for (let i = 0; i < 3; i++) others.push((await publish(core, 'resource')).id);
    const pages = await everything(core, 2);
    expect(pages.every((p) => p.entries.length <= 2)).toBe(true);
    const listed = pages.flatMap((p) => p.entries.map((e) => e.id));
    expect(listed.sort()).toEqual([pkg.id, second.id, ...others].sort());
    expect(pages.flatMap((p) => p.entries).find((e) => e.id === pkg.id)?.kind).toBe('package');
  });

  it('cuts the walk into parts of so many versions, each dated by its last change, which together list every page once', async () => {
    const { core, clock } = makeCore();
    expect(await core.harvest.sitemapParts(2)).toEqual([]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await publish(core, i % 2 === 0 ? 'resource' : 'package')).id);
      clock.advance(1000);
    }
    const parts = await core.harvest.sitemapParts(2);
    expect(parts).toHaveLength(3);
    expect(parts[0]?.after).toBeUndefined();
    const listed: string[] = [];
    for (const part of parts) {
      const page = await core.harvest.sitemap({ rows: 2, after: part.after });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      expect(part.lastmod).toBe(page.entries.map((e) => e.updated).sort().at(-1));
      listed.push(...page.entries.map((e) => e.id));
    }
    expect(listed.sort()).toEqual([...ids].sort());
    // Exactly a whole number of parts: no empty part after the last.
    ids.push((await publish(core, 'resource')).id);
    expect(await core.harvest.sitemapParts(2)).toHaveLength(3);
  });

  it('lists a record under an embargo on the record from the embargo day on', async () => {
    const { core, clock } = makeCore();
    const embargoed = await publish(core, 'resource', validMetadata, { record: 'restricted', files: 'restricted', embargo: { active: true, until: '2026-06-01', reason: null } });
    expect((await core.harvest.sitemap({ rows: 10 })).entries).toEqual([]);
    clock.advance(Date.parse('2026-06-01T00:00:00.000Z') - Date.parse(clock.now()));
    expect((await core.harvest.sitemap({ rows: 10 })).entries.map((e) => e.id)).toEqual([embargoed.id]);
  });
});
