export * from './normalize-metadata.ts';
export * from './publish-requirements.ts';
export * from './new-version-metadata.ts';
export { isEdtf } from './edtf.ts';
export { identifierProblem } from './identifiers.ts';
