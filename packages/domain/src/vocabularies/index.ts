export * from './vocabulary-lookup.ts';
export * from './parse-vocabulary-file.ts';
export { defaultEntry } from './defaults.ts';
export { shapeMismatch } from './vocabulary-shapes.ts';
export { vocabularyIdsUsed } from './vocabulary-uses.ts';
export { matchText, sortKey, tagToken } from './vocabulary-listing.ts';
