export * from './vocabulary-lookup.ts';
export * from './parse-vocabulary-file.ts';
export { defaultEntry } from './defaults.ts';
