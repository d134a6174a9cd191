/**
 * Embargoes lift by themselves: every read already treats a lapsed one as lifted. This sweep
 * writes the lift down (as InvenioRDM's scheduled lift does), so that search, listings and
 * harvests, which read what is stored, follow. The server runs it at start-up, as each UTC day
 * begins and every hour.
 */
import { liftedAt } from '../model/embargo.ts';
import { touchParent } from '../model/record.ts';
import type { CoreDeps } from './deps.ts';
import { projectAfterWrite } from './project-search.ts';

const BATCH = 200;

/** Lifts every lapsed embargo; returns how many published versions were lifted. */
export async function liftLapsedEmbargoes(deps: CoreDeps): Promise<number> {
  let lifted = 0;
  for (;;) {
    const now = deps.clock.now();
    const ids = await deps.repos.records.listLapsedEmbargoes(now.slice(0, 10), BATCH);
    if (ids.length === 0) return lifted;
    const parents = await deps.uow.run(async (tx) => {
      const touched = new Set<string>();
      for (const id of ids) {
        const record = await tx.records.getPublished(id);
        if (!record) continue;
        const opened = liftedAt(record, now);
        if (opened === record) continue;
        await tx.records.savePublished({ ...opened, updated: now, revisionId: record.revisionId + 1 }, record.revisionId);
        if (!touched.has(record.parentId)) {
          const parent = await tx.records.getParent(record.parentId);
          if (parent) await tx.records.saveParent(touchParent(parent, now), parent.revisionId);
          touched.add(record.parentId);
        }
        lifted++;
      }
      return [...touched];
    });
    await projectAfterWrite(deps, parents);
    if (ids.length < BATCH) return lifted;
  }
}
