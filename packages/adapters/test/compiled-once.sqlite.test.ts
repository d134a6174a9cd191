import { describe, expect, it } from 'vitest';
import { createDb, migrateToLatest } from '../src/index.ts';
import { compiledOnce } from '../src/sql/compiled-once.ts';

const insert = compiledOnce<{ type: string; id: string; data: string }, never>(['type', 'id', 'data'], (db, row) =>
  db.insertInto('vocabulary').values({ ...row, sort_key: '', match_text: '' }),
);
// `'languages'` is fixed by the query, not a value of the call.
const languageData = compiledOnce<{ id: string }, { data: string }>(['id'], (db, { id }) =>
  db.selectFrom('vocabulary').select('data').where('type', '=', 'languages').where('id', '=', id),
);

describe('compiledOnce', () => {
  it("puts each call's values where the markers were and keeps the values the query fixes, on every handle of a database", async () => {
    const { db, close } = createDb(':memory:');
    try {
      await migrateToLatest(db);
      const result = await insert(db, { type: 'languages', id: 'eng', data: '{"id":"eng"}' });
      expect(Number(result.numAffectedRows)).toBe(1);
      await db.transaction().execute(async (trx) => {
        await insert(trx, { type: 'subjects', id: 'eng', data: '{"id":"other"}' });
      });
      expect((await languageData(db, { id: 'eng' })).rows).toEqual([{ data: '{"id":"eng"}' }]);
      expect((await languageData(db, { id: 'fra' })).rows).toEqual([]);
      expect(await db.selectFrom('vocabulary').select(['type', 'id']).orderBy('type').execute()).toEqual([
        { type: 'languages', id: 'eng' },
        { type: 'subjects', id: 'eng' },
      ]);
    } finally {
      await close();
    }
  });
});
