import type { FieldIssue } from '../errors.ts';
import { normalizeMetadata } from '../model/metadata/index.ts';
import type { Metadata, RecordKind } from '../model/types.ts';
import { createVocabularyLookup } from '../vocabularies/index.ts';
import type { CoreDeps } from './deps.ts';

export function normalizeDraftMetadata(deps: CoreDeps, kind: RecordKind, input: unknown): Promise<{ metadata: Metadata; issues: FieldIssue[] }> {
  return normalizeMetadata(input ?? {}, kind, createVocabularyLookup(deps.repos.vocabularies));
}
