export { createMiniSearchIndex, type MiniSearchIndex } from './minisearch-index.ts';
export { createSqliteSearchIndex, type SqliteSearchIndex } from './sqlite-search-index.ts';
export { createPostgresSearchIndex, createPostgresSearchSchema } from './postgres-search-index.ts';
