import { describe, expect, it } from 'vitest';
import type { FileOwner } from '@krs/domain';
import { fileEntry } from './builders.ts';
import { closingAfterEach, type MakeRepositories } from './fixture.ts';

const draftSide: FileOwner = { recordId: 'r1', state: 'draft' };
const publishedSide: FileOwner = { recordId: 'r1', state: 'published' };
const otherRecord: FileOwner = { recordId: 'r2', state: 'draft' };

export function fileRepositoryContract(name: string, make: MakeRepositories): void {
  describe(`file repository contract: ${name}`, () => {
    const open = closingAfterEach(make);
    const files = async () => (await open()).repos.files;

    it('pages through every owner\'s entries in (updated, state, record, key) order, from a time on', async () => {
      const f = await files();
      const at = (minute: number) => `2026-01-01T00:0${minute}:00.000Z`;
      await f.save(otherRecord, fileEntry('b.txt', { updated: at(2) }));
      await f.save(publishedSide, fileEntry('a.txt', { updated: at(1) }));
      await f.save(draftSide, fileEntry('z.txt', { updated: at(1) }));
      await f.save(draftSide, fileEntry('a.txt', { updated: at(1) }));
      await f.save(draftSide, fileEntry('old.txt', { updated: at(0) }));
      const names = (page: { owner: FileOwner; entry: { key: string } }[]) => page.map((o) => `${o.owner.state}:${o.owner.recordId}:${o.entry.key}`);
      const first = await f.listAll({ updatedSince: at(1), limit: 2 });
      expect(names(first)).toEqual(['draft:r1:a.txt', 'draft:r1:z.txt']);
      const last = first[1]!;
      const next = await f.listAll({ updatedSince: at(1), limit: 2, after: { updated: last.entry.updated, state: last.owner.state, recordId: last.owner.recordId, key: last.entry.key } });
      expect(names(next)).toEqual(['published:r1:a.txt', 'draft:r2:b.txt']);
      expect((await f.listAll({ limit: 10 })).map((o) => o.entry.key)).toEqual(['old.txt', 'a.txt', 'z.txt', 'a.txt', 'b.txt']);
      expect(next[1]?.entry).toEqual(await f.get(otherRecord, 'b.txt'));
    });

    it('round-trips a committed entry with its blob and metadata', async () => {
      const f = await files();
      const entry = fileEntry('map.png', {
        status: 'completed',
        blob: { id: '0b6c2a1e-9f7d-4c1a-8e2b-3d4f5a6b7c8d', size: 12345, md5: '5d41402abc4b2a76b9719d911017c592' },
        metadata: { width: 640, height: 480 },
        mimetype: 'image/png',
        fileId: 'f-1',
        versionId: 'v-1',
        storageClass: 'L',
      });
      await f.save(draftSide, entry);
      expect(await f.get(draftSide, 'map.png')).toEqual(entry);
      expect(await f.list(draftSide)).toEqual([entry]);
    });

    it('lists each blob id some entry points at, once, across owners and states', async () => {
      const f = await files();
      expect(await f.referencedBlobIds()).toEqual(new Set());
      const blob = (id: string) => ({ id, size: 1, md5: '0cc175b9c0f1b6a831c399e269772661' });
      await f.save(draftSide, fileEntry('a.txt', { blob: blob('blob-a') }));
      await f.save(publishedSide, fileEntry('a.txt', { status: 'completed', blob: blob('blob-a') }));
      await f.save(otherRecord, fileEntry('b.txt', { blob: blob('blob-b') }));
      await f.save(otherRecord, fileEntry('pending.txt'));
      expect(await f.referencedBlobIds()).toEqual(new Set(['blob-a', 'blob-b']));
      await f.deleteAll(otherRecord);
      expect(await f.referencedBlobIds()).toEqual(new Set(['blob-a']));
    });

    it('tells whether any entry of any owner still points at a blob', async () => {
      const f = await files();
      const blob = (id: string) => ({ id, size: 1, md5: '0cc175b9c0f1b6a831c399e269772661' });
      expect(await f.referencesBlob('blob-a')).toBe(false);
      await f.save(draftSide, fileEntry('a.txt', { blob: blob('blob-a') }));
      await f.save(publishedSide, fileEntry('a.txt', { status: 'completed', blob: blob('blob-a') }));
      await f.save(otherRecord, fileEntry('pending.txt'));
      await f.delete(draftSide, 'a.txt');
      expect(await f.referencesBlob('blob-a')).toBe(true);
      await f.deleteAll(publishedSide);
      expect(await f.referencesBlob('blob-a')).toBe(false);
      expect(await f.referencesBlob('blob-b')).toBe(false);
    });

    it('reads back, lists and deletes an entry whose key holds a lone surrogate (stored before keys were checked)', async () => {
      const f = await files();
      const key = 'bad\ud800name.txt';
      await f.save(draftSide, fileEntry(key));
      expect((await f.get(draftSide, key))?.key).toBe(key);
      expect((await f.list(draftSide)).map((e) => e.key)).toEqual([key]);
      await f.delete(draftSide, key);
      expect(await f.list(draftSide)).toEqual([]);
    });

    it('keeps entries per owner: state and record id', async () => {
      const f = await files();
      await f.save(draftSide, fileEntry('a.txt'));
      await f.save(publishedSide, fileEntry('a.txt', { status: 'completed' }));
      await f.save(otherRecord, fileEntry('z.txt'));
      expect((await f.get(draftSide, 'a.txt'))?.status).toBe('pending');
      expect((await f.get(publishedSide, 'a.txt'))?.status).toBe('completed');
      expect(await f.get(otherRecord, 'a.txt')).toBeNull();
      expect(await f.count(draftSide)).toBe(1);
      expect(await f.count({ recordId: 'none', state: 'draft' })).toBe(0);
      expect(await f.list({ recordId: 'none', state: 'draft' })).toEqual([]);
    });

    it('replaces an entry saved again under the same key', async () => {
      const f = await files();
      await f.save(draftSide, fileEntry('a.txt'));
      await f.save(draftSide, fileEntry('a.txt', { status: 'completed', mimetype: 'text/plain' }));
      expect(await f.count(draftSide)).toBe(1);
      expect(await f.get(draftSide, 'a.txt')).toEqual(fileEntry('a.txt', { status: 'completed', mimetype: 'text/plain' }));
    });

    it('lists entries ordered by key', async () => {
      const f = await files();
      for (const key of ['b.txt', 'B.txt', 'a.txt', 'a b.txt', 'é.txt']) await f.save(draftSide, fileEntry(key));
      expect((await f.list(draftSide)).map((e) => e.key)).toEqual(['B.txt', 'a b.txt', 'a.txt', 'b.txt', 'é.txt']);
    });

    it('deletes one entry or all of an owner, leaving other owners alone', async () => {
      const f = await files();
      await f.save(draftSide, fileEntry('a.txt'));
      await f.save(draftSide, fileEntry('b.txt'));
      await f.save(publishedSide, fileEntry('a.txt'));
      await f.delete(draftSide, 'b.txt');
      await f.delete(draftSide, 'missing.txt');
      expect((await f.list(draftSide)).map((e) => e.key)).toEqual(['a.txt']);
      await f.deleteAll(draftSide);
      await f.deleteAll(otherRecord);
      expect(await f.count(draftSide)).toBe(0);
      expect(await f.count(publishedSide)).toBe(1);
    });

    it('does not let callers change stored entries by mutating them', async () => {
      const f = await files();
      const entry = fileEntry('a.txt', { metadata: { width: 1 } });
      await f.save(draftSide, entry);
      entry.status = 'completed';
      const got = await f.get(draftSide, 'a.txt');
      if (got?.metadata) got.metadata['width'] = 2;
      expect(await f.get(draftSide, 'a.txt')).toEqual(fileEntry('a.txt', { metadata: { width: 1 } }));
    });
  });
}
