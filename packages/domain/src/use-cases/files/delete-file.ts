import { assertFilesEnabled, assertFilesUnlocked } from '../../model/files.ts';
import type { Identity, RecordKind } from '../../model/types.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget } from './file-target.ts';
import { fileNotFound } from './start-uploads.ts';

/** Removes a file entry from a draft. Committed bytes may be shared with published versions and stay. */
export async function deleteFile(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, key: string): Promise<void> {
  const orphan = await deps.uow.run(async (tx) => {
    const target = await draftFileTarget(tx, identity, kind, id, 'edit', deps.clock.now());
    assertFilesEnabled(target.record);
    assertFilesUnlocked(target.record);
    const entry = await tx.files.get(target.owner, key);
    if (!entry) throw fileNotFound(key);
    await tx.files.delete(target.owner, key);
    // Pending bytes were never committed, so nothing else can point at them.
    return entry.status === 'pending' ? (entry.blob?.id ?? null) : null;
  });
  if (orphan !== null) await deps.storage.delete(orphan);
}
