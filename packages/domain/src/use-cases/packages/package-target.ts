import { requireLevel, type AccessLevel } from '../../model/access.ts';
import type { Identity, Parent } from '../../model/types.ts';
import type { Repositories } from '../../ports.ts';
import { levelFor, parentOfRecord } from '../lookup.ts';

/** The parent of a package (by any version id), with the caller's level checked. */
export async function packageParent(tx: Repositories, identity: Identity, packageId: string, wanted: AccessLevel, now: string): Promise<Parent> {
  const parent = await parentOfRecord(tx, 'package', packageId);
  requireLevel(identity, await levelFor(tx, identity, parent, now), wanted);
  return parent;
}
