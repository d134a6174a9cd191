export { createMiniSearchIndex, type MiniSearchIndex } from './minisearch-index.ts';
export { createSqliteSearchIndex, type SqliteSearchIndex } from './sqlite-search-index.ts';
