/**
 * Binds every use case to its dependencies. The server and the CLI see only this object.
 */
import type { Identity, RecordKind, VocabularyEntry, VocabularyType } from './model/types.ts';
import type { DraftInput, ExpectedRevision } from './model/record.ts';
import type { AnswerMemory, ReadBuffers } from './ports.ts';
import * as links from './use-cases/access-links.ts';
import { createDraft } from './use-cases/create-draft.ts';
import { deleteDraft } from './use-cases/delete-draft.ts';
import type { CoreDeps } from './use-cases/deps.ts';
import { editPublished } from './use-cases/edit-published.ts';
import { commitFile } from './use-cases/files/commit-file.ts';
import { deleteFile } from './use-cases/files/delete-file.ts';
import { importFiles } from './use-cases/files/import-files.ts';
import { getFile, listFiles, readFileContent, shownFiles, type ByteRange, type FileSide } from './use-cases/files/read-files.ts';
import { startUploads } from './use-cases/files/start-uploads.ts';
import { uploadContent } from './use-cases/files/upload-content.ts';
import { draftReadStamp, getDraft } from './use-cases/get-draft.ts';
import { getRecord, publishedReadStamp } from './use-cases/get-record.ts';
import { harvest, harvestOne, sitemapPage, sitemapParts, type HarvestPosition, type HarvestQuery } from './use-cases/harvest.ts';
import { importVocabulary, importVocabularyFile, listVocabulary, removeVocabularyEntries } from './use-cases/import-vocabulary.ts';
import type { ListingInput } from './use-cases/listing-params.ts';
import { getVocabularyEntry, searchVocabulary, type VocabularyListingInput } from './use-cases/search-vocabulary.ts';
import { resolvePaging, resolveSort } from './use-cases/listing-params.ts';
import { latestVersion, listVersions } from './use-cases/list-versions.ts';
import { newVersion } from './use-cases/new-version.ts';
import { afterProjections, projectionHealth, reindex, type ReindexProgress, type SkippedRecord } from './use-cases/project-search.ts';
import { collectGarbage, sweepPartialUploads } from './use-cases/files/collect-garbage.ts';
import { createLinkTokens } from './use-cases/link-tokens.ts';
import { liftLapsedEmbargoes } from './use-cases/lift-embargoes.ts';
import { publishDraft } from './use-cases/publish-draft.ts';
import { reserveDoi } from './use-cases/reserve-doi.ts';
import { listingReadStamp, searchRecords, searchUserRecords } from './use-cases/search-records.ts';
import { updateDraft } from './use-cases/update-draft.ts';
import { authenticate, createToken, createUser, listTokens, revokeTokens, type TokenChoice } from './use-cases/users.ts';
import * as packages from './use-cases/packages/index.ts';
import { checkReadiness } from './use-cases/operations/check-readiness.ts';
import { verifyStore, type VerifyOptions } from './use-cases/operations/verify-store.ts';

export function createCore(deps: CoreDeps) {
  const linkTokens = createLinkTokens(deps.settings.linkSecret);
  return {
    records: {
      createDraft: (who: Identity, kind: RecordKind, input: DraftInput) => createDraft(deps, who, kind, input),
      getDraft: (who: Identity, kind: RecordKind, id: string, memory?: AnswerMemory) => getDraft(deps, who, kind, id, memory),
      /** What a kept answer of `getDraft` to this caller must match to be served again (model/read-stamp.ts). */
      draftReadStamp: (who: Identity, kind: RecordKind, id: string) => draftReadStamp(deps, who, kind, id),
      updateDraft: (who: Identity, kind: RecordKind, id: string, input: DraftInput, ifMatch?: ExpectedRevision) => updateDraft(deps, who, kind, id, input, ifMatch),
      deleteDraft: (who: Identity, kind: RecordKind, id: string, ifMatch?: ExpectedRevision) => deleteDraft(deps, who, kind, id, ifMatch),
      publish: (who: Identity, kind: RecordKind, id: string, ifMatch?: ExpectedRevision) => publishDraft(deps, who, kind, id, ifMatch),
      edit: (who: Identity, kind: RecordKind, id: string) => editPublished(deps, who, kind, id),
      reserveDoi: (who: Identity, kind: RecordKind, id: string) => reserveDoi(deps, who, kind, id),
      newVersion: (who: Identity, kind: RecordKind, id: string) => newVersion(deps, who, kind, id),
      get: (who: Identity, kind: RecordKind, id: string, memory?: AnswerMemory) => getRecord(deps, who, kind, id, memory),
      /** What a kept anonymous answer of `get` must match to be served again (model/read-stamp.ts). */
      readStamp: (kind: RecordKind, id: string) => publishedReadStamp(deps, kind, id),
      versions: async (who: Identity, kind: RecordKind, id: string, input: { page?: number; size?: number; sort?: string | null; memory?: AnswerMemory }) =>
        listVersions(deps, who, kind, id, { ...resolvePaging(input), ...(input.memory ? { memory: input.memory } : {}) }, resolveSort('versions', input.sort, null)),
      latest: (who: Identity, kind: RecordKind, id: string, memory?: AnswerMemory) => latestVersion(deps, who, kind, id, memory),
      /** Writes down the embargoes whose day has come (reads already treat them as lifted). */
      liftLapsedEmbargoes: () => liftLapsedEmbargoes(deps),
      search: (who: Identity, kinds: RecordKind[], input: ListingInput) => searchRecords(deps, who, kinds, input),
      /** What a kept anonymous answer of `search` must match to be served again (see `listingReadStamp`). */
      listingReadStamp: () => listingReadStamp(deps),
      /**
       * The store's change stamp (see the port): while it has not moved, no row has changed, so
       * a read stamp or a token found at that change stamp still holds. Null when the store cannot tell.
       */
      changeStamp: () => deps.repos.records.changeStamp(),
      searchOwn: (who: Identity, kind: RecordKind, input: ListingInput) => searchUserRecords(deps, who, kind, input),
    },
    files: {
      list: (who: Identity, kind: RecordKind, id: string, side: FileSide) => listFiles(deps, who, kind, id, side),
      /** What a published version's page and exports list: its files, or none (`closed`) when this reader may not read them. */
      shown: (who: Identity, kind: RecordKind, id: string) => shownFiles(deps, who, kind, id),
      start: (who: Identity, kind: RecordKind, id: string, keys: string[]) => startUploads(deps, who, kind, id, keys),
      upload: (who: Identity, kind: RecordKind, id: string, key: string, body: AsyncIterable<Uint8Array>, length?: number) =>
        uploadContent(deps, who, kind, id, key, body, length),
      commit: (who: Identity, kind: RecordKind, id: string, key: string) => commitFile(deps, who, kind, id, key),
      get: (who: Identity, kind: RecordKind, id: string, side: FileSide, key: string) => getFile(deps, who, kind, id, side, key),
      content: (who: Identity, kind: RecordKind, id: string, side: FileSide, key: string, range: ByteRange | null, buffers?: ReadBuffers) =>
        readFileContent(deps, who, kind, id, side, key, range, buffers),
      delete: (who: Identity, kind: RecordKind, id: string, key: string) => deleteFile(deps, who, kind, id, key),
      importFromPrevious: (who: Identity, kind: RecordKind, id: string) => importFiles(deps, who, kind, id),
      /** An operator's sweep (`krs gc`), not an API action: it takes no identity. */
      collectGarbage: (graceMinutes: number) => collectGarbage(deps, graceMinutes),
      /** Run at start-up: temp data of uploads a crash cut short. */
      sweepPartialUploads: (graceMinutes: number) => sweepPartialUploads(deps, graceMinutes),
    },
    accessLinks: {
      create: (who: Identity, kind: RecordKind, id: string, input: links.AccessLinkInput) => links.createAccessLink(deps, linkTokens, who, kind, id, input),
      list: (who: Identity, kind: RecordKind, id: string) => links.listAccessLinks(deps, linkTokens, who, kind, id),
      get: (who: Identity, kind: RecordKind, id: string, linkId: string) => links.getAccessLink(deps, linkTokens, who, kind, id, linkId),
      update: (who: Identity, kind: RecordKind, id: string, linkId: string, input: links.AccessLinkInput) =>
        links.updateAccessLink(deps, linkTokens, who, kind, id, linkId, input),
      delete: (who: Identity, kind: RecordKind, id: string, linkId: string) => links.deleteAccessLink(deps, who, kind, id, linkId),
    },
    packages: packages.bind(deps),
    users: {
      create: (email: string) => createUser(deps, email),
      createToken: (email: string, name?: string) => createToken(deps, email, name),
      listTokens: (email: string) => listTokens(deps, email),
      revokeTokens: (email: string, choice: TokenChoice) => revokeTokens(deps, email, choice),
      authenticate: (token: string) => authenticate(deps, token),
      /** The identity of a request: its user (from `authenticate`) and the links whose genuine tokens it presents. */
      identify: async (userId: string | null, presentedLinkTokens: readonly string[]): Promise<Identity> => ({
        userId,
        linkIds: await linkTokens.linkIdsOf(presentedLinkTokens),
      }),
    },
    vocabularies: {
      import: (type: VocabularyType, entries: VocabularyEntry[], onProgress?: (done: number, total: number) => void) =>
        importVocabulary(deps, type, entries, onProgress),
      importFile: (type: VocabularyType, text: string, format: 'yaml' | 'csv', onProgress?: (done: number, total: number) => void) =>
        importVocabularyFile(deps, type, text, format, onProgress),
      list: (type: VocabularyType) => listVocabulary(deps, type),
      remove: (type: VocabularyType, ids: readonly string[]) => removeVocabularyEntries(deps, type, ids),
      /** By InvenioRDM vocabulary id (`resourcetypes`); see vocabulary-ids.ts. */
      search: (vocabularyId: string, input: VocabularyListingInput) => searchVocabulary(deps, vocabularyId, input),
      getEntry: (vocabularyId: string, id: string) => getVocabularyEntry(deps, vocabularyId, id),
    },
    /** What OAI-PMH harvesters see; anonymous by nature, so it takes no identity. */
    harvest: {
      list: (query: HarvestQuery) => harvest(deps, query),
      get: (id: string, memory?: AnswerMemory) => harvestOne(deps, id, memory),
      /** The public latest versions' pages, for sitemaps; anonymous as harvesting is. */
      sitemap: (query: { after?: HarvestPosition; rows: number }) => sitemapPage(deps, query),
      /** The sitemap's parts of `rows` versions each, for its index. */
      sitemapParts: (rows: number) => sitemapParts(deps, rows),
      /** The first version in update order, for the repository's earliest datestamp. */
      earliest: async () => (await deps.repos.records.listPositionsByUpdate({ limit: 1 }))[0]?.updated ?? null,
    },
    search: {
      reindex: (options?: { since?: string; onProgress?: (p: ReindexProgress) => void }) => reindex(deps.repos, deps.search, options),
      /** Records the index is missing because they could not be projected. */
      health: () => projectionHealth(deps.search).report(),
      onSkip: (listener: (skipped: SkippedRecord) => void) => projectionHealth(deps.search).onSkip(listener),
      /** Resolves once the projections of the writes answered so far have ended (before closing the index). */
      settled: () => afterProjections(deps.search),
    },
    /** An operator's view of the stores, not API actions: they take no identity. */
    operations: {
      readiness: (timeoutMs: number) => checkReadiness(deps, timeoutMs),
      verify: (options?: VerifyOptions) => verifyStore(deps, options),
    },
  };
}

export type Core = ReturnType<typeof createCore>;
