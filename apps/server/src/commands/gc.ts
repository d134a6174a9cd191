/** `krs gc [--grace-minutes <n>]`: the operator's sweep of stored file content nothing points at. */
import type { Core } from '@krs/domain';

export const GC_USAGE = 'krs gc [--grace-minutes <n>]             (delete stored file content no record points at and temp data of interrupted uploads, untouched for n minutes; default 60)';

/** The one line the command prints; throws a message for the usage error. */
export async function gc(core: Core, args: string[]): Promise<string> {
  const at = args.indexOf('--grace-minutes');
  const raw = at >= 0 ? args[at + 1] ?? '' : '60';
  if (!/^\d+$/.test(raw)) throw new Error(`--grace-minutes takes a whole number, got "${raw}"`);
  const r = await core.files.collectGarbage(Number(raw));
  return `removed ${r.removed} unreferenced blobs (${r.removedBytes} bytes) and ${r.partialUploads.removed} interrupted uploads (${r.partialUploads.bytes} bytes), kept ${r.kept}`;
}
