/** `krs gc [--grace-minutes <n>]`: the operator's sweep of stored file content nothing points at. */
import type { Core } from '@krs/domain';
import { parseCommandLine, printJson, UsageError, withService, type Command } from './command.ts';

type GarbageReport = Awaited<ReturnType<Core['files']['collectGarbage']>>;

/** The line the command prints for a sweep. */
export const gcSummary = (r: GarbageReport): string =>
  `removed ${r.removed} unreferenced blobs (${r.removedBytes} bytes) and ${r.partialUploads.removed} interrupted uploads (${r.partialUploads.bytes} bytes), kept ${r.kept}; ended ${r.abandonedUploads} uploads untouched for the grace period`;

export const gc: Command = {
  name: 'gc',
  summary: 'gc [--grace-minutes <n>]         delete stored file content no record points at, and interrupted uploads',
  usage: `usage: krs gc [--grace-minutes <n>] [--json]

Deletes stored file content no draft or published version points at, and the temp data of
uploads a crash cut short, untouched for more than n minutes (default 60). An upload on its way
keeps its content: it marks itself alive in the database every minute while bytes flow, until
its entry is committed. One untouched for more than n minutes (its node crashed, or its client
stalled) is ended and its content deleted; should it go on, it fails and must be sent again.`,
  async run(args) {
    const { values } = parseCommandLine(args, { 'grace-minutes': { type: 'string' }, json: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
    const raw = values['grace-minutes'] ?? '60';
    if (!/^\d+$/.test(raw)) throw new UsageError(`--grace-minutes takes a whole number, got "${raw}"`);
    const r = await withService(({ core }) => core.files.collectGarbage(Number(raw)));
    if (values.json) printJson(r);
    else process.stdout.write(`${gcSummary(r)}\n`);
  },
};
