import { describe, expect, it } from 'vitest';
import { anonymousReadStamp } from '../src/index.ts';
import { anon, as, makeCore, validMetadata } from './make-core.ts';

const alice = as('alice');

async function publishedResource(core: ReturnType<typeof makeCore>['core'], access?: { [key: string]: unknown }) {
  const draft = await core.records.createDraft(alice, 'resource', { metadata: validMetadata, files: { enabled: false }, ...(access ? { access } : {}) });
  return core.records.publish(alice, 'resource', draft.record.id);
}

describe('read stamps of published versions', () => {
  it('are the stamp a public version was read at, and null for an unknown id or another kind', async () => {
    const { core } = makeCore();
    const published = await publishedResource(core);
    const view = await core.records.get(anon, 'resource', published.record.id);
    const stamp = await core.records.readStamp('resource', published.record.id);
    expect(stamp).not.toBeNull();
    expect(anonymousReadStamp(view)).toBe(stamp);
    expect(await core.records.readStamp('package', published.record.id)).toBeNull();
    expect(await core.records.readStamp('resource', 'nope')).toBeNull();
  });

  it('change with an edit, a new version (the old one is no longer the latest) and an access link', async () => {
    const { core } = makeCore();
    const { record } = await publishedResource(core);
    const stamps = [await core.records.readStamp('resource', record.id)];
    await core.records.edit(alice, 'resource', record.id);
    // An open edit draft changes what the published version says of its drafts.
    stamps.push(await core.records.readStamp('resource', record.id));
    await core.records.updateDraft(alice, 'resource', record.id, { metadata: { ...validMetadata, title: 'Edited title' }, files: { enabled: false } });
    await core.records.publish(alice, 'resource', record.id);
    stamps.push(await core.records.readStamp('resource', record.id));
    const next = await core.records.newVersion(alice, 'resource', record.id);
    await core.records.updateDraft(alice, 'resource', next.record.id, { metadata: validMetadata, files: { enabled: false } });
    await core.records.publish(alice, 'resource', next.record.id);
    stamps.push(await core.records.readStamp('resource', record.id));
    expect((await core.records.get(anon, 'resource', record.id)).versions.isLatest).toBe(false);
    await core.accessLinks.create(alice, 'resource', record.id, { permission: 'view' });
    stamps.push(await core.records.readStamp('resource', record.id));
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(anonymousReadStamp(await core.records.get(anon, 'resource', record.id))).toBe(stamps.at(-1));
  });

  it('are withheld from views that read differently by caller or by date: restricted, under embargo', async () => {
    const { core, clock } = makeCore();
    const restricted = await publishedResource(core, { record: 'restricted', files: 'restricted' });
    expect(anonymousReadStamp(await core.records.get(alice, 'resource', restricted.record.id))).toBeNull();
    const embargoed = await publishedResource(core, { record: 'public', files: 'restricted', embargo: { active: true, until: '2026-06-01', reason: null } });
    expect(anonymousReadStamp(await core.records.get(anon, 'resource', embargoed.record.id))).toBeNull();
    // From its day on the embargo reads as lifted: that view holds until the lift is written down.
    clock.advance(Date.parse('2026-06-01T00:00:00.000Z') - Date.parse(clock.now()));
    const lifted = await core.records.get(anon, 'resource', embargoed.record.id);
    expect(lifted.record.access.embargo.active).toBe(false);
    const before = anonymousReadStamp(lifted);
    expect(before).toBe(await core.records.readStamp('resource', embargoed.record.id));
    await core.records.liftLapsedEmbargoes();
    expect(await core.records.readStamp('resource', embargoed.record.id)).not.toBe(before);
  });
});
