/**
 * The PostgreSQL statement bounds are the serving node's: the operator's commands (`krs reindex`,
 * `copy`, `verify`), composed without them, run statements as long as their work takes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabase, sessionSettings, usePostgresServer } from '../../../packages/adapters/test/postgres-fixture.ts';
import { compose } from '../src/compose.ts';
import { readConfig } from '../src/config.ts';

usePostgresServer();

async function boundsOf(boundStatements: boolean, env: NodeJS.ProcessEnv): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'krs-bounds-'));
  const composed = await compose(readConfig({ ...env, KRS_DATA_DIR: dataDir }), { boundStatements });
  try {
    return await sessionSettings(composed.db.db, ['statement_timeout', 'idle_in_transaction_session_timeout']);
  } finally {
    await composed.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('PostgreSQL statement bounds', () => {
  it('bound the serving node by KRS_PG_STATEMENT_TIMEOUT, and never the operator commands', async () => {
    const env = { KRS_DATABASE_URL: await freshDatabase(), KRS_PG_STATEMENT_TIMEOUT: '7' };
    expect(await boundsOf(true, env)).toEqual(['7s', '7s']);
    expect(await boundsOf(false, env)).toEqual(['0', '0']);
  });
});
