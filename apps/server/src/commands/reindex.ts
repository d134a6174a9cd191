/** `krs reindex`: rebuilds the search index from the database. */
import { parseCommandLine, printJson, progress, withService, type Command } from './command.ts';

export const reindex: Command = {
  name: 'reindex',
  summary: 'reindex                          rebuild the search index from the database',
  usage: `usage: krs reindex [--json]

Rebuilds the search index from the database, with progress on stderr.`,
  async run(args) {
    const { values } = parseCommandLine(args, { json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
    const line = progress();
    const records = await withService(async (composed) => {
      const n = await composed.rebuildSearch((p) => line.update(`reindexing: ${p.done}/${p.total} records`));
      await composed.saveSearchSnapshot();
      return n;
    });
    line.done();
    if (values.json) printJson({ records });
    else process.stdout.write(`${records} records reindexed\n`);
  },
};
