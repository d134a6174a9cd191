import { atLeast, requireLevel } from '../model/access.ts';
import type { Identity, RecordKind } from '../model/types.ts';
import type { RecordView } from '../model/views.ts';
import type { CoreDeps } from './deps.ts';
import { levelFor, loadDraft, loadParent, previewOf, viewOf } from './lookup.ts';

/** Owners, package managers and `preview`/`edit` link holders read drafts. */
export async function getDraft(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string): Promise<RecordView> {
  const draft = await loadDraft(deps.repos, kind, id);
  const parent = await loadParent(deps.repos, draft.parentId);
  const level = await levelFor(deps.repos, identity, parent, deps.clock.now());
  requireLevel(identity, level, 'preview');
  return atLeast(level, 'edit') ? viewOf(draft, parent) : previewOf(viewOf(draft, parent));
}
