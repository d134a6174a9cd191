import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPgDb } from '@krs/adapters';
import { searchDocument } from '../../../packages/adapters/test/contracts/builders.ts';
import { freshDatabase, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { openPostgresSearch } from './search-engine.ts';

usePostgresServer();

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

describe('the PostgreSQL search index state', () => {
  it("gathers the planner's statistics after every record was projected at once, and not after a start that only caught up", async () => {
    const handle = createPgDb(await freshDatabase());
    closing.push(() => handle.close());
    const search = await openPostgresSearch(handle.db);
    const analyze = vi.spyOn(search.index, 'analyze');
    const docs = (from: number, n: number) => Array.from({ length: n }, (_, i) => searchDocument(`d${from + i}`, `Record ${from + i}`));

    // A first start on an empty index: every record projected, then the checkpoint.
    expect(await search.resume()).toBe('1970-01-01T00:00:00.000Z');
    await search.index.upsert(docs(0, 30));
    await search.checkpoint(new Date().toISOString());
    expect(analyze).toHaveBeenCalledTimes(1);

    // A later start finds documents and only catches up.
    expect(await search.resume()).not.toBe('1970-01-01T00:00:00.000Z');
    await search.index.upsert(docs(30, 5));
    await search.checkpoint(new Date().toISOString());
    expect(analyze).toHaveBeenCalledTimes(1);

    // `krs reindex` projects everything again without asking where to resume.
    await search.checkpoint(new Date().toISOString());
    expect(analyze).toHaveBeenCalledTimes(2);
  });
});
