import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
