import { invalid, notFound, type FieldIssue } from '../../errors.ts';
import { assertFilesEnabled, assertFilesUnlocked, keyProblem, pendingEntry } from '../../model/files.ts';
import type { Identity, RecordKind } from '../../model/types.ts';
import type { FilesView } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget } from './file-target.ts';

/**
 * Registers pending entries for the keys; all of them or none. An empty list changes nothing, so
 * it is answered with the listing even where files are disabled or locked, as InvenioRDM does:
 * GEO's package loader starts the uploads of every record it loads, those without files too.
 */
export async function startUploads(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, keys: string[]): Promise<FilesView> {
  return deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const { record, owner } = await draftFileTarget(tx, identity, kind, id, 'edit', now);
    if (keys.length > 0) {
      assertFilesEnabled(record);
      assertFilesUnlocked(record);
    }
    const existing = await tx.files.list(owner);
    const taken = new Set(existing.map((e) => e.key));
    const issues: FieldIssue[] = [];
    keys.forEach((key, i) => {
      const problem = keyProblem(key);
      if (problem) issues.push({ field: `${i}.key`, messages: [problem] });
      else if (taken.has(key)) issues.push({ field: `${i}.key`, messages: [`File with key "${key}" already exists.`] });
      taken.add(key);
    });
    if (issues.length > 0) throw invalid('file.key', 'A validation error occurred.', issues);
    if (existing.length + keys.length > deps.settings.maxFiles) {
      throw invalid('file.count', `A record holds at most ${deps.settings.maxFiles} files.`, [
        { field: '_schema', messages: [`A record holds at most ${deps.settings.maxFiles} files.`] },
      ]);
    }
    for (const key of keys) await tx.files.save(owner, pendingEntry(key, now));
    return { kind, recordId: id, state: 'draft' as const, bucketId: record.bucketId, options: record.files, entries: await tx.files.list(owner) };
  });
}

export const fileNotFound = (key: string) => notFound('file.not_found', `File "${key}" does not exist.`);
