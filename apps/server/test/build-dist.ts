/**
 * Vitest global setup: compiles dist/ before any test starts the server or the `krs` command,
 * which run from it as in production (real-server.ts). `tsc -b` rewrites nothing when dist/ is
 * current (a fresh clone's `pnpm install` built it), so this costs a second then; after an edit
 * it rebuilds, and no test meets an older build than the sources it runs beside.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

export default async function buildDist(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // Not execFileSync: vitest's own process must stay free to answer its workers meanwhile.
  await promisify(execFile)(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: resolve(import.meta.dirname, '..') });
}
