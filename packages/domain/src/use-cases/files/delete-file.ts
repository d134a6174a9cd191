import { assertFilesEnabled, assertFilesUnlocked } from '../../model/files.ts';
import type { Identity, RecordKind } from '../../model/types.ts';
import type { CoreDeps } from '../deps.ts';
import { draftFileTarget, findEntry } from './file-target.ts';
import { fileNotFound } from './start-uploads.ts';
import { unreferencedAfter } from './release-blob.ts';

/** Removes a file entry from a draft; its bytes go only if no entry of any version still points at them. */
export async function deleteFile(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, key: string): Promise<void> {
  const orphan = await deps.uow.run(async (tx) => {
    const target = await draftFileTarget(tx, identity, kind, id, 'edit', deps.clock.now());
    assertFilesEnabled(target.record);
    assertFilesUnlocked(target.record);
    const entry = await findEntry(tx.files, target.owner, key);
    if (!entry) throw fileNotFound(key);
    await tx.files.delete(target.owner, entry.key);
    return unreferencedAfter(tx, entry.blob?.id ?? null);
  });
  if (orphan !== null) await deps.storage.delete(orphan);
}
