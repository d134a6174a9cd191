export * from './normalize-metadata.ts';
export * from './publish-requirements.ts';
export * from './new-version-metadata.ts';
export { isEdtf } from './edtf.ts';
export { identifierProblem, isEmail } from './identifiers.ts';
export { METADATA_LIMITS, CUSTOM_FIELD_LIMITS, capIssues } from './limits.ts';
export { sanitizeHtml, type SanitizeStats } from './sanitize-html.ts';
export { withoutEmails } from './privacy.ts';
