/**
 * `krs verify [--since <time>] [--limit <n>] [--json]`: re-hashes stored file content against
 * the recorded md5 and size and compares the search index with the database. Exit status 1 when
 * anything is wrong, so a scheduler can alert on it.
 */
import type { Core, VerifyReport } from '@krs/domain';
import { formatBytes, progressLine } from './progress.ts';
import { UsageError, withService, type Command } from './command.ts';

export interface VerifyArgs {
  since?: string;
  limit?: number;
  json: boolean;
}

/** Throws a message for the usage line on anything it cannot read. */
export function parseVerifyArgs(args: string[]): VerifyArgs {
  const out: VerifyArgs = { json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--json') out.json = true;
    else if (arg === '--since') {
      const raw = args[++i] ?? '';
      const time = Date.parse(raw);
      if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(time)) throw new Error(`--since takes an ISO 8601 date or time, got "${raw}"`);
      out.since = new Date(time).toISOString();
    } else if (arg === '--limit') {
      const raw = args[++i] ?? '';
      if (!/^[1-9]\d*$/.test(raw)) throw new Error(`--limit takes a whole number above 0, got "${raw}"`);
      out.limit = Number(raw);
    } else throw new Error(`unknown argument "${arg}"`);
  }
  return out;
}

export function describeReport(report: VerifyReport, args: VerifyArgs): string {
  const lines: string[] = [];
  const f = report.files;
  lines.push(`files: ${f.checked} entries checked, ${f.blobs} blobs (${formatBytes(f.bytes)}) re-hashed, ${f.problems.length} problems`);
  for (const p of f.problems) lines.push(`  ${p.kind.padEnd(10)} ${p.owner.state} ${p.owner.recordId} ${JSON.stringify(p.key)} (blob ${p.blobId}): ${p.message}`);
  if (report.index) {
    lines.push(`index: ${report.index.checked} records compared with the database, ${report.index.problems.length} disagree`);
    for (const p of report.index.problems) {
      lines.push(`  ${p.parentId}: ${[...p.missing.map((k) => `missing ${k}`), ...p.stale.map((k) => `stale ${k}`)].join(', ')}`);
    }
    if (report.index.problems.length > 0) lines.push('  (`krs reindex` rebuilds the index from the database)');
  }
  if (args.limit !== undefined && f.checked === args.limit && report.lastUpdated !== null) lines.push(`continue with: krs verify --since ${report.lastUpdated} --limit ${args.limit}`);
  lines.push(report.ok ? 'verify: OK' : 'verify: PROBLEMS FOUND');
  return `${lines.join('\n')}\n`;
}

/** Returns the exit status. */
export async function verifyCommand(core: Core, args: VerifyArgs): Promise<number> {
  const progress = progressLine();
  const report = await core.operations.verify({
    ...(args.since !== undefined ? { since: args.since } : {}),
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
    onProgress: (p) =>
      progress.update(p.phase === 'files' ? `verifying files: ${p.done} entries, ${formatBytes(p.bytes)} re-hashed` : `verifying index: ${p.done}/${p.total} records`),
  });
  progress.done();
  process.stdout.write(args.json ? `${JSON.stringify(report)}\n` : describeReport(report, args));
  return report.ok ? 0 : 1;
}

export const verify: Command = {
  name: 'verify',
  summary: 'verify [--since <t>] [--limit <n>] re-hash stored files, compare the index with the database',
  usage: `usage: krs verify [--since <time>] [--limit <n>] [--json]

Re-hashes stored file content against each entry's recorded md5 and size, checks that every
entry's blob exists and that the search index agrees with the database. --since and --limit
spread the work over several runs. Exit status 1 on any problem.`,
  async run(args) {
    let parsed: VerifyArgs;
    try {
      parsed = parseVerifyArgs(args);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
    return withService(({ core }) => verifyCommand(core, parsed));
  },
};
