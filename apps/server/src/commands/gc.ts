/** `krs gc [--grace-minutes <n>]`: the operator's sweep of stored file content nothing points at. */
import { parseCommandLine, printJson, UsageError, withService, type Command } from './command.ts';

export const gc: Command = {
  name: 'gc',
  summary: 'gc [--grace-minutes <n>]         delete stored file content no record points at',
  usage: `usage: krs gc [--grace-minutes <n>] [--json]

Deletes stored file content no draft or published version points at, written more than n
minutes ago (default 60, so uploads still on their way are left alone).`,
  async run(args) {
    const { values } = parseCommandLine(args, { 'grace-minutes': { type: 'string' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
    const raw = values['grace-minutes'] ?? '60';
    if (!/^\d+$/.test(raw)) throw new UsageError(`--grace-minutes takes a whole number, got "${raw}"`);
    const r = await withService(({ core }) => core.files.collectGarbage(Number(raw)));
    if (values.json) printJson(r);
    else process.stdout.write(`removed ${r.removed} unreferenced blobs (${r.removedBytes} bytes), kept ${r.kept}\n`);
  },
};
