import { createPgDb, createPostgresSearchIndex, createPostgresSearchSchema } from '../src/index.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';
import { freshDatabase } from './postgres-fixture.ts';

searchIndexContract('postgres', async () => {
  const handle = createPgDb(await freshDatabase());
  await createPostgresSearchSchema(handle.db);
  return Object.assign(createPostgresSearchIndex(handle.db), { close: () => void handle.close() });
});
