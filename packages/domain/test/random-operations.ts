/**
 * Random sequences of what depositors do, on any stores: drafts created and edited, files
 * started, uploaded (with lengths told right and wrong), committed, deleted and imported,
 * publications, edits, new versions, deletions, access links, and packages gathering resources,
 * by the owner, by someone else and by a link holder, a few at once. Whatever the order, no step
 * may fail with anything but a domain error, and afterwards the stores must hold together: every
 * file entry's bytes there with their recorded size and md5, the search index what the database
 * implies (`krs verify`), no published version listing a pending file, and every record a
 * listing names readable by whoever the listing was for.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { isDomainError, type Core, type Identity, type RecordKind } from '../src/index.ts';

type Who = 'owner' | 'other' | 'holder' | 'anonymous';
type Kind = RecordKind;

/** Metadata a step sends: complete, incomplete (a draft with issues), or naming unknown vocabulary. */
const METADATA = {
  valid: (n: number) => ({
    title: `Flood mapping ${n}`,
    publication_date: '2025-03-01',
    resource_type: { id: 'dataset' },
    creators: [{ person_or_org: { type: 'personal', given_name: 'Ada', family_name: `Obi ${n}` } }],
    description: `<p>Water over the delta, take ${n}.</p>`,
    subjects: [{ subject: 'flood' }],
  }),
  untitled: () => ({ publication_date: '2025', creators: [] }),
  unknownVocabulary: (n: number) => ({ title: `Unknown type ${n}`, publication_date: '2025', resource_type: { id: 'no-such-type' }, creators: [] }),
  manyCreators: (n: number) => ({
    ...METADATA.valid(n),
    creators: Array.from({ length: 200 }, (_, i) => ({ person_or_org: { type: 'personal', given_name: 'Ada', family_name: `Author ${i}` } })),
  }),
};
type MetadataChoice = keyof typeof METADATA;

const ACCESS = {
  public: { record: 'public', files: 'public' },
  restricted: { record: 'restricted', files: 'restricted' },
  filesRestricted: { record: 'public', files: 'restricted' },
  embargoed: { record: 'public', files: 'restricted', embargo: { active: true, until: '2999-01-01', reason: 'Until the campaign ends' } },
} as const;
type AccessChoice = keyof typeof ACCESS;

const KEYS = ['a.csv', 'b.txt', 'c.tif'] as const;

/** The length an upload announces: its own, one short, one long, or none. */
type Told = 'exact' | 'short' | 'long' | 'none';

export type Step =
  | { op: 'create'; who: Who; kind: Kind; metadata: MetadataChoice; files: boolean; access: AccessChoice }
  | { op: 'update'; who: Who; kind: Kind; at: number; metadata: MetadataChoice | null; files: boolean | null; access: AccessChoice | null }
  | { op: 'start'; who: Who; kind: Kind; at: number; keys: string[] }
  | { op: 'upload'; who: Who; kind: Kind; at: number; key: string; text: string; told: Told }
  | { op: 'commit' | 'deleteFile'; who: Who; kind: Kind; at: number; key: string }
  | { op: 'deposit'; who: Who; kind: Kind; at: number; key: string; text: string; told: Told; until: 'start' | 'upload' | 'commit' }
  | { op: 'revise'; who: Who; kind: Kind; at: number; drop: string | null; add: string | null; publish: boolean }
  | { op: 'import' | 'publish' | 'edit' | 'newVersion' | 'deleteDraft'; who: Who; kind: Kind; at: number }
  | { op: 'link'; who: Who; kind: Kind; at: number; permission: 'view' | 'preview' | 'edit' }
  | { op: 'unlink'; who: Who; at: number }
  | { op: 'associate' | 'dissociate' | 'addResources' | 'removeResources'; who: Who; at: number; resources: number[] }
  | { op: 'importResources'; who: Who; at: number };

const who = fc.oneof(
  { arbitrary: fc.constant<Who>('owner'), weight: 8 },
  { arbitrary: fc.constantFrom<Who>('other', 'holder', 'anonymous'), weight: 2 },
);
const kind = fc.oneof({ arbitrary: fc.constant<Kind>('resource'), weight: 3 }, { arbitrary: fc.constant<Kind>('package'), weight: 1 });
// Mostly the last few records, so that steps meet the same ones.
const at = fc.oneof({ arbitrary: fc.nat({ max: 2 }), weight: 4 }, { arbitrary: fc.nat({ max: 30 }), weight: 1 });
const metadata = fc.oneof(
  { arbitrary: fc.constant<MetadataChoice>('valid'), weight: 6 },
  { arbitrary: fc.constantFrom<MetadataChoice>('untitled', 'unknownVocabulary', 'manyCreators'), weight: 1 },
);
const access = fc.oneof({ arbitrary: fc.constant<AccessChoice>('public'), weight: 4 }, { arbitrary: fc.constantFrom<AccessChoice>('restricted', 'filesRestricted', 'embargoed'), weight: 1 });
const told = fc.oneof({ arbitrary: fc.constant<Told>('exact'), weight: 4 }, { arbitrary: fc.constantFrom<Told>('short', 'long', 'none'), weight: 1 });
const key = fc.oneof({ arbitrary: fc.constantFrom(...KEYS), weight: 9 }, { arbitrary: fc.constantFrom('', '../x', 'bad\ud800name', 'x'.repeat(300)), weight: 1 });

/** What an upload of some text names, in the order its fields are drawn. */
const upload = { who, kind, at, key, text: fc.string({ maxLength: 64 }), told };

export const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('create' as const), who, kind, metadata, files: fc.boolean(), access }), weight: 3 },
  {
    arbitrary: fc.record({ op: fc.constant('update' as const), who, kind, at, metadata: fc.option(metadata), files: fc.option(fc.boolean()), access: fc.option(access) }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('start' as const), who, kind, at, keys: fc.array(key, { minLength: 1, maxLength: 2 }) }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('upload' as const), ...upload }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constantFrom('commit' as const, 'deleteFile' as const), who, kind, at, key }), weight: 4 },
  {
    arbitrary: fc.record({
      op: fc.constant('deposit' as const),
      ...upload,
      until: fc.oneof({ arbitrary: fc.constant('commit' as const), weight: 3 }, { arbitrary: fc.constantFrom('start' as const, 'upload' as const), weight: 1 }),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ op: fc.constantFrom('import' as const, 'edit' as const, 'newVersion' as const, 'deleteDraft' as const), who, kind, at }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('publish' as const), who, kind, at }), weight: 4 },
  {
    arbitrary: fc.record({ op: fc.constant('revise' as const), who, kind, at, drop: fc.option(key), add: fc.option(key), publish: fc.boolean() }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('link' as const), who, kind, at, permission: fc.constantFrom('view' as const, 'preview' as const, 'edit' as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('unlink' as const), who, at }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constantFrom('associate' as const, 'dissociate' as const, 'addResources' as const, 'removeResources' as const),
      who,
      at,
      resources: fc.array(at, { minLength: 1, maxLength: 3 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('importResources' as const), who, at }), weight: 1 },
);

/** The seed and a factor on the number of runs; other seeds explore further (`KRS_RANDOM_SEED=7 KRS_RANDOM_RUNS_TIMES=20`). */
export const RANDOM_SEED = Number(process.env['KRS_RANDOM_SEED'] ?? 20261128);
export const runsTimes = (runs: number): number => runs * Number(process.env['KRS_RANDOM_RUNS_TIMES'] ?? 1);

/** Steps a long enough set of runs gets through at least once each, or it tested little. */
export const STEPS_THAT_MUST_HAPPEN: readonly Step['op'][] = ['deposit', 'publish', 'revise', 'edit', 'deleteFile', 'import', 'deleteDraft', 'link', 'associate', 'addResources', 'dissociate'];

/** Steps in batches: the steps of one batch run at once, as clients racing each other. */
export const batches = (maxBatches: number): fc.Arbitrary<Step[][]> =>
  fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: maxBatches, size: 'max' });

/** The people of a run: the one who makes most of the records, and someone else (who makes some too). */
export interface People {
  owner: Identity;
  other: Identity;
}

interface Known {
  ids: Record<Kind, string[]>;
  /** The ids published so far: where edits, new versions and links mostly go. */
  published: Record<Kind, string[]>;
  /** Steps that succeeded, by operation: a run where nothing got through tests nothing. */
  done: Map<Step['op'], number>;
  /** Access links made so far: the record they are on, their id and token. */
  links: { kind: Kind; id: string; linkId: string; token: string }[];
}

const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

async function* chunks(text: string): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  // In two pieces: a cut between a character's bytes must not change what is stored.
  yield bytes.subarray(0, Math.floor(bytes.length / 2));
  yield bytes.subarray(Math.floor(bytes.length / 2));
}

function toldLength(text: string, told: Told): number | undefined {
  const length = new TextEncoder().encode(text).length;
  return told === 'exact' ? length : told === 'short' ? Math.max(0, length - 1) : told === 'long' ? length + 1 : undefined;
}

async function identity(core: Core, people: People, known: Known, w: Who): Promise<Identity> {
  if (w === 'owner') return people.owner;
  if (w === 'other') return people.other;
  if (w === 'anonymous') return { userId: null, linkIds: [] };
  return core.users.identify(people.other.userId, known.links.map((l) => l.token));
}

/** Numbers each step's metadata, so that writes differ from what they replace. */
let counter = 0;

const tally = (known: Known, op: Step['op']) => known.done.set(op, (known.done.get(op) ?? 0) + 1);

/** Runs one step; a domain error is an answer like any other, anything else is the step's failure. */
async function run(core: Core, people: People, known: Known, s: Step): Promise<void> {
  const me = await identity(core, people, known, s.who);
  const n = ++counter;
  const idOf = (k: Kind, i: number) => {
    const ids = known.ids[k];
    // Counted from the newest: the records a client just made are the ones it goes on with.
    return ids.length === 0 ? 'zzzzz-zzzzz' : (ids[ids.length - 1 - (i % ids.length)] as string);
  };
  // A published id three times in four; otherwise any id, as a client may name a draft's.
  const publishedOf = (k: Kind, i: number) => (i % 4 === 3 ? idOf(k, i) : pick(known.published[k], i) ?? idOf(k, i));
  switch (s.op) {
    case 'create': {
      const view = await core.records.createDraft(me, s.kind, { metadata: METADATA[s.metadata](n), files: { enabled: s.files }, access: { ...ACCESS[s.access] } });
      known.ids[s.kind].push(view.record.id);
      return;
    }
    case 'update':
      await core.records.updateDraft(me, s.kind, idOf(s.kind, s.at), {
        ...(s.metadata === null ? {} : { metadata: METADATA[s.metadata](n) }),
        ...(s.files === null ? {} : { files: { enabled: s.files } }),
        ...(s.access === null ? {} : { access: { ...ACCESS[s.access] } }),
      });
      return;
    case 'start':
      await core.files.start(me, s.kind, idOf(s.kind, s.at), s.keys);
      return;
    case 'upload':
      await core.files.upload(me, s.kind, idOf(s.kind, s.at), s.key, chunks(s.text), toldLength(s.text, s.told));
      return;
    case 'deposit': {
      // A client's three steps for one file, one after another, or the first of them only.
      const id = idOf(s.kind, s.at);
      await core.files.start(me, s.kind, id, [s.key]);
      if (s.until === 'start') return;
      await core.files.upload(me, s.kind, id, s.key, chunks(s.text), toldLength(s.text, s.told));
      if (s.until === 'upload') return;
      await core.files.commit(me, s.kind, id, s.key);
      return;
    }
    case 'revise': {
      // A new version keeping the last one's files but one, perhaps with another added.
      const draft = (await core.records.newVersion(me, s.kind, publishedOf(s.kind, s.at))).record.id;
      known.ids[s.kind].push(draft);
      await core.files.importFromPrevious(me, s.kind, draft);
      tally(known, 'import');
      if (s.drop !== null) {
        await core.files.delete(me, s.kind, draft, s.drop);
        tally(known, 'deleteFile');
      }
      if (s.add !== null) {
        await core.files.start(me, s.kind, draft, [s.add]);
        await core.files.upload(me, s.kind, draft, s.add, chunks(s.add), toldLength(s.add, 'exact'));
        await core.files.commit(me, s.kind, draft, s.add);
      }
      await core.records.updateDraft(me, s.kind, draft, { metadata: METADATA.valid(n) });
      if (s.publish) {
        await core.records.publish(me, s.kind, draft);
        known.published[s.kind].push(draft);
      }
      return;
    }
    case 'commit':
      await core.files.commit(me, s.kind, idOf(s.kind, s.at), s.key);
      return;
    case 'deleteFile':
      await core.files.delete(me, s.kind, idOf(s.kind, s.at), s.key);
      return;
    case 'import':
      await core.files.importFromPrevious(me, s.kind, idOf(s.kind, s.at));
      return;
    case 'publish': {
      const id = idOf(s.kind, s.at);
      await core.records.publish(me, s.kind, id);
      known.published[s.kind].push(id);
      return;
    }
    case 'edit':
      await core.records.edit(me, s.kind, publishedOf(s.kind, s.at));
      return;
    case 'newVersion':
      known.ids[s.kind].push((await core.records.newVersion(me, s.kind, publishedOf(s.kind, s.at))).record.id);
      return;
    case 'deleteDraft':
      await core.records.deleteDraft(me, s.kind, idOf(s.kind, s.at));
      return;
    case 'link': {
      const id = publishedOf(s.kind, s.at);
      const made = await core.accessLinks.create(me, s.kind, id, { permission: s.permission });
      known.links.push({ kind: s.kind, id, linkId: made.link.id, token: made.token });
      return;
    }
    case 'unlink': {
      const link = pick(known.links, s.at);
      if (link !== undefined) await core.accessLinks.delete(me, link.kind, link.id, link.linkId);
      return;
    }
    case 'importResources':
      await core.packages.importResources(me, idOf('package', s.at));
      return;
    default: {
      const resources = s.resources.map((i) => idOf('resource', i));
      await core.packages[s.op](me, idOf('package', s.at), resources);
    }
  }
}

/**
 * Every batch in turn, the steps of each at once. Throws the first failure that is not a domain
 * error, naming its step. With several cores (nodes over the same stores), each step goes to the
 * next node in turn, as a balancer would send a client's requests.
 */
export async function runBatches(cores: readonly Core[], people: People, plan: Step[][]): Promise<Known> {
  const known: Known = { ids: { resource: [], package: [] }, published: { resource: [], package: [] }, links: [], done: new Map() };
  // Something to work on from the first step: a published resource with a file, a draft
  // resource with files and one without, and a package draft.
  const prelude: Step[][] = [
    [{ op: 'create', who: 'owner', kind: 'resource', metadata: 'valid', files: true, access: 'public' }],
    [{ op: 'deposit', who: 'owner', kind: 'resource', at: 0, key: 'a.csv', text: 'x,y\n1,2\n', told: 'exact', until: 'commit' }],
    [{ op: 'publish', who: 'owner', kind: 'resource', at: 0 }],
    [{ op: 'create', who: 'owner', kind: 'resource', metadata: 'valid', files: true, access: 'public' }],
    [{ op: 'create', who: 'owner', kind: 'resource', metadata: 'valid', files: false, access: 'public' }],
    [{ op: 'create', who: 'owner', kind: 'package', metadata: 'valid', files: false, access: 'public' }],
  ];
  let sent = 0;
  for (const batch of [...prelude, ...plan]) {
    await Promise.all(
      batch.map(async (s) => {
        const core = cores[sent++ % cores.length] as Core;
        try {
          await run(core, people, known, s);
          tally(known, s.op);
        } catch (e) {
          if (isDomainError(e)) return;
          throw new Error(`${JSON.stringify(s)} failed on node ${cores.indexOf(core)}: ${e instanceof Error ? e.stack : String(e)}`);
        }
      }),
    );
  }
  return known;
}

const read = async <T>(what: Promise<T>): Promise<T | null> => {
  try {
    return await what;
  } catch (e) {
    if (isDomainError(e)) return null;
    throw e;
  }
};

/**
 * What must hold after any run: the stores agree with each other, nothing published lists a
 * pending file or lacks its bytes, and each listing's records read for its reader.
 */
export async function expectConsistent(core: Core, people: People, ids: Known['ids']): Promise<void> {
  await core.search.settled();
  const report = await core.operations.verify();
  expect(report.files.problems, 'file entries whose bytes are missing or differ').toEqual([]);
  expect(report.index?.problems ?? [], 'search documents the database does not imply, or lacks').toEqual([]);
  const anonymous: Identity = { userId: null, linkIds: [] };
  for (const k of ['resource', 'package'] as const) {
    for (const id of ids[k]) {
      // Each person reads what they may: the owner of a record can always list its files.
      for (const reader of [people.owner, people.other]) {
        const published = await read(core.records.get(reader, k, id));
        if (published !== null) {
          // Its versions: one of each number, at most one the latest (none when the reader may not see it), and this one among them.
          const versions = await core.records.versions(reader, k, id, { size: 100 });
          const numbers = versions.hits.map((h) => h.versions.index);
          expect(new Set(numbers).size, `${k} ${id}: version numbers ${numbers.join(', ')}`).toBe(numbers.length);
          expect(versions.hits.filter((h) => h.versions.isLatest).length, `${k} ${id}: latest versions`).toBeLessThanOrEqual(1);
          expect(numbers).toContain(published.versions.index);
        }
        const files = published === null ? null : await read(core.files.list(reader, k, id, 'published'));
        for (const entry of files?.entries ?? []) {
          expect(entry.status, `${k} ${id}: ${entry.key} published`).toBe('completed');
          const content = await core.files.content(reader, k, id, 'published', entry.key, null);
          const bytes = new Uint8Array(await new Response(content.body).arrayBuffer());
          expect(bytes.length, `${k} ${id}: ${entry.key}'s bytes`).toBe(entry.blob?.size);
        }
        // A draft reads for whoever may edit it whenever it exists.
        await read(core.records.getDraft(reader, k, id));
      }
    }
    for (const reader of [people.owner, people.other]) {
      const own = await core.records.searchOwn(reader, k, { size: 100 });
      for (const hit of own.hits) {
        const id = hit.record.id;
        const view = hit.record.state === 'published' ? await core.records.get(reader, k, id) : await core.records.getDraft(reader, k, id);
        expect(view.record.id).toBe(id);
      }
    }
    const everyone = await core.records.search(anonymous, [k], { size: 100 });
    expect(everyone.hits.length).toBe(Math.min(everyone.total, 100));
    for (const hit of everyone.hits) expect((await core.records.get(anonymous, k, hit.record.id)).record.id).toBe(hit.record.id);
  }
}
