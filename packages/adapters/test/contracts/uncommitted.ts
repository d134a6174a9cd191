import type { UnitOfWork } from '@krs/domain';
import { parent } from './builders.ts';

/**
 * What `read` gives while a unit of work has written (parent `p1` to revision 2) and not yet
 * committed; resolves once that unit has committed.
 */
export async function readWhileUncommitted<T>(uow: UnitOfWork, read: () => Promise<T>): Promise<T> {
  let commit = () => {};
  let written = () => {};
  const wrote = new Promise<void>((ok) => (written = ok));
  const unit = uow.run(async (tx) => {
    await tx.records.saveParent(parent('p1', { revisionId: 2 }), 1);
    written();
    await new Promise<void>((ok) => (commit = ok));
  });
  await wrote;
  const during = await read();
  commit();
  await unit;
  return during;
}
