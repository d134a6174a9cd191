export { createDb, type DbHandle } from './sql/create-db.ts';
export { migrateToLatest, createMigrator } from './sql/migrate.ts';
export { createSqlUnitOfWork } from './sql/unit-of-work.ts';
export { createSqlRepositories } from './sql/repositories.ts';
export { createFsFileStorage } from './fs-file-storage.ts';
export { createNanoidIds } from './nanoid-ids.ts';
export { createSystemClock } from './system-clock.ts';
export * from './search/index.ts';
