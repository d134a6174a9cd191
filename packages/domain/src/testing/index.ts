export * from './in-memory-repositories.ts';
export * from './in-memory-file-storage.ts';
export * from './fixed-clock.ts';
export * from './sequential-ids.ts';
export * from './in-memory-search-index.ts';
export * from './largest-legal-metadata.ts';
