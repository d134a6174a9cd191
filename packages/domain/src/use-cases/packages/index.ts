import type { Identity } from '../../model/types.ts';
import type { CoreDeps } from '../deps.ts';
import type { ListingInput } from '../listing-params.ts';
import { associate, dissociate } from './context.ts';
import { addDraftResources, importResources, removeDraftResources } from './draft-resources.ts';
import { listContextResources, listDraftResources, listPublishedResources } from './list-package-resources.ts';
import { getReview, listRequests } from './requests.ts';

export type { ItemError } from './draft-resources.ts';

export function bind(deps: CoreDeps) {
  return {
    associate: (who: Identity, packageId: string, ids: string[]) => associate(deps, who, packageId, ids),
    dissociate: (who: Identity, packageId: string, ids: string[]) => dissociate(deps, who, packageId, ids),
    addResources: (who: Identity, packageId: string, ids: string[]) => addDraftResources(deps, who, packageId, ids),
    removeResources: (who: Identity, packageId: string, ids: string[]) => removeDraftResources(deps, who, packageId, ids),
    importResources: (who: Identity, packageId: string) => importResources(deps, who, packageId),
    draftResources: (who: Identity, packageId: string, input: ListingInput) => listDraftResources(deps, who, packageId, input),
    publishedResources: (who: Identity, packageId: string, input: ListingInput) => listPublishedResources(deps, who, packageId, input),
    contextResources: (who: Identity, parentId: string, input: ListingInput) => listContextResources(deps, who, parentId, input),
    requests: (who: Identity, packageId: string) => listRequests(deps, who, packageId),
    review: (who: Identity, packageId: string) => getReview(deps, who, packageId),
  };
}
