import { describe, expect, it } from 'vitest';
import { closingAfterEach, type MakeRepositories } from './fixture.ts';

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

export function blobUploadRepositoryContract(name: string, make: MakeRepositories): void {
  describe(`blob upload repository contract: ${name}`, () => {
    const open = closingAfterEach(make);

    it('records an upload, renews it and ends it once', async () => {
      const { repos } = await open();
      const uploads = repos.blobUploads;
      expect(await uploads.list()).toEqual(new Map());
      await uploads.begin('blob-a', at(0));
      await uploads.begin('blob-b', at(1));
      expect(await uploads.renew('blob-a', at(5))).toBe(true);
      expect(await uploads.list()).toEqual(new Map([['blob-a', at(5)], ['blob-b', at(1)]]));
      expect(await uploads.end('blob-a')).toBe(true);
      expect(await uploads.end('blob-a')).toBe(false);
      expect(await uploads.renew('blob-a', at(6))).toBe(false);
      expect(await uploads.list()).toEqual(new Map([['blob-b', at(1)]]));
    });

    it('ends an upload as stale only when last renewed before the cutoff', async () => {
      const { repos } = await open();
      const uploads = repos.blobUploads;
      await uploads.begin('blob-a', at(10));
      expect(await uploads.endIfStale('blob-a', at(10))).toBe(false);
      expect(await uploads.endIfStale('missing', at(59))).toBe(false);
      expect(await uploads.list()).toEqual(new Map([['blob-a', at(10)]]));
      expect(await uploads.endIfStale('blob-a', at(11))).toBe(true);
      expect(await uploads.list()).toEqual(new Map());
      // Gone, the upload cannot come back by renewing: its commit must fail.
      expect(await uploads.renew('blob-a', at(12))).toBe(false);
      expect(await uploads.end('blob-a')).toBe(false);
    });

    it('commits and rolls back with the unit of work', async () => {
      const { repos, uow } = await open();
      await uow.run((tx) => tx.blobUploads.begin('blob-a', at(0)));
      await expect(
        uow.run(async (tx) => {
          expect(await tx.blobUploads.end('blob-a')).toBe(true);
          throw new Error('commit refused');
        }),
      ).rejects.toThrow('commit refused');
      expect(await repos.blobUploads.list()).toEqual(new Map([['blob-a', at(0)]]));
      expect(await uow.run((tx) => tx.blobUploads.end('blob-a'))).toBe(true);
      expect(await repos.blobUploads.list()).toEqual(new Map());
    });

    it('of an upload\'s end and a stale claim run concurrently, exactly one finds the upload', async () => {
      const { uow } = await open();
      for (let i = 0; i < 5; i++) {
        const id = `blob-${i}`;
        await uow.run((tx) => tx.blobUploads.begin(id, at(0)));
        const outcomes = await Promise.all([uow.run((tx) => tx.blobUploads.end(id)), uow.run((tx) => tx.blobUploads.endIfStale(id, at(30)))]);
        expect(outcomes.filter(Boolean)).toHaveLength(1);
      }
    });
  });
}
