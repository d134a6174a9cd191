/** `krs reindex`: rebuilds the search index from the database and says what it had to leave out. */
import type { Composed } from '../compose.ts';

/** Exit status when the index was rebuilt without some records (each named in the summary). */
export const EXIT_SKIPPED = 1;

export interface ReindexOutput {
  /** The summary. */
  out(text: string): void;
  /** Progress. */
  progress(text: string): void;
}

/** Returns the exit status: 0 when every record is in the index, EXIT_SKIPPED otherwise. */
export async function reindexCommand(composed: Composed, output: ReindexOutput): Promise<number> {
  let shown = false;
  const report = await composed.rebuildSearch((p) => {
    shown = true;
    output.progress(`\rreindexing: ${p.done}/${p.total} records`);
  });
  if (shown) output.progress('\n');
  await composed.saveSearchSnapshot();
  if (report.skipped.length === 0) {
    output.out(`${report.parents} records reindexed\n`);
    return 0;
  }
  const lines = report.skipped.map((s) => `  ${s.id}${s.id === s.parentId ? '' : ` (parent ${s.parentId})`}: ${s.reason}\n`);
  output.out(`${report.parents} records reindexed, ${report.skipped.length} skipped (not searchable until fixed and reindexed):\n${lines.join('')}`);
  return EXIT_SKIPPED;
}
