export { createMiniSearchIndex } from './minisearch-index.ts';
