export * from './errors.ts';
export * from './model/types.ts';
export type * from './ports.ts';
export type * from './model/views.ts';
export { createCore, type Core } from './core.ts';
export type { CoreDeps, CoreSettings } from './use-cases/deps.ts';
export type { DraftInput, ExpectedRevision } from './model/record.ts';
export type { HarvestItem, HarvestPage, HarvestPosition, HarvestQuery, HarvestSet, SitemapEntry, SitemapPage, SitemapPart } from './use-cases/harvest.ts';
export { RESULT_WINDOW, type ListingInput } from './use-cases/listing-params.ts';
export type { ByteRange, FileSide } from './use-cases/files/read-files.ts';
export type { AccessLinkInput } from './use-cases/access-links.ts';
export type { ItemError } from './use-cases/packages/index.ts';
export type { ProjectionReport, ReindexProgress, SearchHealth, SkippedRecord } from './use-cases/project-search.ts';
/** For a store that writes search documents in the same transaction as the records (PostgreSQL). */
export { projectParents } from './use-cases/project-search.ts';
export type { GarbageReport } from './use-cases/files/collect-garbage.ts';
export { sha256Hex, type TokenChoice, type TokenSummary } from './use-cases/users.ts';
export { wellFormed } from './model/files.ts';
export { accessStatus, type AccessStatus } from './model/access-status.ts';
export { anonymousReadStamp, ownerDraftReadStamp, representationTag } from './model/read-stamp.ts';
export { DEPENDENCIES, type Dependency, type Readiness } from './use-cases/operations/check-readiness.ts';
export { withinMs } from './use-cases/operations/within-ms.ts';
export type { FileProblem, IndexProblem, VerifyOptions, VerifyProgress, VerifyReport } from './use-cases/operations/verify-store.ts';
export { METADATA_LIMITS } from './model/metadata/limits.ts';
export { MAX_PACKAGE_RESOURCES } from './model/package-limits.ts';
export type { VocabularyListing, VocabularyListingInput } from './use-cases/search-vocabulary.ts';
export { MAX_VOCABULARY_TAG_LENGTH, MAX_VOCABULARY_TAGS } from './use-cases/search-vocabulary.ts';
export type { VocabularyFilter, VocabularyPage, VocabularyPageQuery } from './vocabularies/vocabulary-listing.ts';
export { VOCABULARY_IDS } from './vocabularies/vocabulary-ids.ts';
/** Large values' work in slices with turns of the event loop between them, for every layer. */
export {
  encodeOnce,
  isLarge,
  jsonText,
  LARGE_JSON_CHARS,
  largeValueSlices,
  markLarge,
  memberSpanInTurns,
  nextIteration,
  parseJsonInTurns,
  stringifyJsonInTurns,
  timeSlices,
  turnWhenDue,
  type Slicing,
} from './turns/index.ts';
