import type { FieldIssue } from '../errors.ts';
import { capIssues, normalizeMetadata, publishIssues } from '../model/metadata/index.ts';
import { assertDraftInputWithinLimits } from '../model/metadata/draft-input-limits.ts';
import type { DraftInput } from '../model/record.ts';
import type { Metadata, RecordKind } from '../model/types.ts';
import { createVocabularyLookup } from '../vocabularies/index.ts';
import type { CoreDeps } from './deps.ts';

/**
 * Refuses a body past the documented limits (400, nothing kept); otherwise the metadata to store
 * and every problem that would stop it from publishing, like InvenioRDM's "Save draft" reports.
 */
export async function normalizeDraftMetadata(deps: CoreDeps, kind: RecordKind, input: unknown): Promise<{ metadata: Metadata; issues: FieldIssue[] }> {
  const { metadata, issues } = await normalizeMetadata(input ?? {}, kind, createVocabularyLookup(deps.repos.vocabularies));
  return { metadata, issues: capIssues([...issues, ...publishIssues(metadata, kind)]) };
}

export function checkDraftInput(deps: CoreDeps, input: DraftInput): void {
  assertDraftInputWithinLimits(input, deps.settings.maxFiles);
}
