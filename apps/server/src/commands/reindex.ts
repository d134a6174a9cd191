/** `krs reindex`: rebuilds the search index from the database and says what it had to leave out. */
import { parseCommandLine, printJson, progress, withService, type Command } from './command.ts';

/** Exit status when the index was rebuilt without some records (each named in the summary). */
export const EXIT_SKIPPED = 1;

export const reindex: Command = {
  name: 'reindex',
  summary: 'reindex                          rebuild the search index from the database',
  usage: `usage: krs reindex [--json]

Rebuilds the search index from the database, with progress on stderr. A record the index cannot
take is left out and named; the exit status is then ${EXIT_SKIPPED}.`,
  async run(args) {
    const { values } = parseCommandLine(args, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
    const line = progress();
    const report = await withService(async (composed) => {
      const r = await composed.rebuildSearch((p) => line.update(`reindexing: ${p.done}/${p.total} records`));
      await composed.saveSearchSnapshot();
      return r;
    });
    line.done();
    if (values.json) printJson({ records: report.parents, skipped: report.skipped });
    else if (report.skipped.length === 0) process.stdout.write(`${report.parents} records reindexed\n`);
    else {
      const lines = report.skipped.map((s) => `  ${s.id}${s.id === s.parentId ? '' : ` (parent ${s.parentId})`}: ${s.reason}\n`);
      process.stdout.write(`${report.parents} records reindexed, ${report.skipped.length} skipped (not searchable until fixed and reindexed):\n${lines.join('')}`);
    }
    return report.skipped.length === 0 ? 0 : EXIT_SKIPPED;
  },
};
