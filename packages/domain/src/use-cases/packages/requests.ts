/**
 * What a package's `requests` and `review` links lead to. Nothing here opens requests (reviews,
 * access or curation requests): drafts are published by those who may edit them, never through a
 * review, so a published package lists no requests and a draft has no review.
 */
import { notFound } from '../../errors.ts';
import type { Identity } from '../../model/types.ts';
import type { RecordView } from '../../model/views.ts';
import type { CoreDeps } from '../deps.ts';
import { getDraft } from '../get-draft.ts';
import { getRecord } from '../get-record.ts';

/** The published package, for whoever may read it, and its requests: none. */
export async function listRequests(deps: CoreDeps, identity: Identity, packageId: string): Promise<{ view: RecordView; requests: [] }> {
  return { view: await getRecord(deps, identity, 'package', packageId), requests: [] };
}

/** A draft's review request, for whoever may read the draft: there is none. */
export async function getReview(deps: CoreDeps, identity: Identity, packageId: string): Promise<never> {
  await getDraft(deps, identity, 'package', packageId);
  throw notFound('review.none', 'This draft has no review request: drafts are published directly, without review.');
}
