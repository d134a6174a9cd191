import { invalid } from '../../errors.ts';
import { assertFilesEnabled, assertFilesUnlocked } from '../../model/files.ts';
import type { Identity, RecordKind } from '../../model/types.ts';
import type { FilesView } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget } from './file-target.ts';

/** Copies the latest published version's committed files into a new-version draft (keys it already has are kept). */
export async function importFiles(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<FilesView> {
  return deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const { record, parent, owner } = await draftFileTarget(tx, identity, kind, id, 'edit', now);
    assertFilesEnabled(record);
    assertFilesUnlocked(record);
    if (parent.latestPublishedId === null) {
      throw invalid('files.import_nothing', 'There is no previous version to import files from.');
    }
    const existing = new Set((await tx.files.list(owner)).map((e) => e.key));
    const previous = await tx.files.list({ recordId: parent.latestPublishedId, state: 'published' });
    for (const entry of previous) {
      if (!existing.has(entry.key) && entry.status === 'completed') await tx.files.save(owner, { ...entry, created: now, updated: now });
    }
    return { kind, recordId: id, state: 'draft' as const, bucketId: record.bucketId, options: record.files, entries: await tx.files.list(owner) };
  });
}
