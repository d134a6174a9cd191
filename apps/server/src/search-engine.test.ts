import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEmbeddedSearch } from './search-engine.ts';

describe('the SQLite search index state', () => {
  it('resumes from its own checkpoint, and rebuilds an index written in an older layout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-search-state-'));
    try {
      const search = openEmbeddedSearch('sqlite', dir);
      expect(await search.resume()).toBeNull();
      await search.checkpoint('2026-05-01T00:00:00.000Z');
      expect(await search.resume()).toBe('2026-05-01T00:00:00.000Z');
      // Written before the index stored exact shapes: its boxes alone would answer bbox wrongly.
      writeFileSync(join(dir, 'search-state.json'), JSON.stringify({ engine: 'sqlite', watermark: '2026-05-01T00:00:00.000Z' }));
      expect(await search.resume()).toBeNull();
      search.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the SQLite search index of an older layout', () => {
  it('is removed with its checkpoint at start-up, so every record is indexed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-search-layout-'));
    try {
      const first = openEmbeddedSearch('sqlite', dir);
      await first.checkpoint('2026-05-01T00:00:00.000Z');
      await first.close();
      // The file says it has layout 3 (the one before field paths had an index of their own):
      // SQLite keeps `user_version` at bytes 60-63 of its header.
      const fd = openSync(join(dir, 'search.sqlite'), 'r+');
      writeSync(fd, Uint8Array.of(0, 0, 0, 3), 0, 4, 60);
      closeSync(fd);
      const again = openEmbeddedSearch('sqlite', dir);
      expect(await again.resume()).toBeNull();
      expect((await again.index.search({ filter: { kinds: ['resource'], viewerId: null }, q: 'metadata.description:ice', bbox: null, sort: 'newest', page: 1, size: 10, aggregations: [] })).total).toBe(0);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the MiniSearch snapshot', () => {
  it('resumes from the snapshot saved at shutdown, and removes the JSON snapshot no release reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krs-search-snapshot-'));
    try {
      writeFileSync(join(dir, 'search-snapshot.json'), '{"format":"krs-minisearch-3"}');
      const first = openEmbeddedSearch('minisearch', dir);
      expect(await first.resume()).toBeNull();
      await first.persist('2026-05-01T00:00:00.000Z');
      expect(existsSync(join(dir, 'search-snapshot.json'))).toBe(false);
      expect(await openEmbeddedSearch('minisearch', dir).resume()).toBe('2026-05-01T00:00:00.000Z');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
