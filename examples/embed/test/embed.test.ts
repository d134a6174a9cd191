/**
 * The packages as another Node service meets them: packed with `pnpm pack`, installed from the
 * tarballs into a project outside the workspace (from the pnpm store where it can, the registry
 * otherwise: the packed tarballs' checksums change with every source change, so pnpm resolves
 * their dependencies again, and on a fresh machine their metadata is not cached), type-checked
 * against their declarations and run on plain Node, with no TypeScript source in sight.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exampleDir = resolve(import.meta.dirname, '..');
const root = resolve(exampleDir, '../..');
// Inside the checkout (ignored by git) so pnpm finds its store on the same disk.
mkdirSync(join(root, '.tmp'), { recursive: true });
const project = mkdtempSync(join(root, '.tmp', 'embed-'));

// What a consumer has: no source export condition.
const { NODE_OPTIONS: _nodeOptions, ...env } = process.env;
// Asynchronous: compiling better-sqlite3 for a new Node takes a minute, and a blocked worker
// would miss the test runner's heartbeats.
const run = async (command: string, args: string[], cwd: string) =>
  (await promisify(execFile)(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout;

afterAll(() => rmSync(project, { recursive: true, force: true }));

/** The `name@version` entries of a pnpm lockfile's `packages:` section. */
function lockedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const section = text.slice(text.indexOf('\npackages:\n'), text.indexOf('\nsnapshots:\n'));
  return [...section.matchAll(/^ {2}'?((?:@[^/\s]+\/)?[^@\s']+@[^:'\s]+)'?:$/gm)].map((m) => m[1] ?? '');
}

describe('examples/embed, a project outside the workspace', () => {
  it('pins only third-party versions the workspace installs, so its install needs nothing beyond the store', () => {
    const workspace = new Set(lockedPackages(join(root, 'pnpm-lock.yaml')));
    const example = lockedPackages(join(exampleDir, 'pnpm-lock.yaml')).filter((p) => !p.startsWith('@krs/'));
    expect(example.length).toBeGreaterThan(10);
    expect(example.filter((p) => !workspace.has(p))).toEqual([]);
  });

  it('installs the packed @krs/domain and @krs/adapters and runs draft -> publish -> search on in-memory and SQLite cores', async () => {
    for (const entry of ['package.json', 'pnpm-lock.yaml', 'tsconfig.json', 'src']) {
      cpSync(join(exampleDir, entry), join(project, entry), { recursive: true });
    }
    await run('pnpm', ['--filter', '@krs/domain', '--filter', '@krs/adapters', 'pack', '--out', join(project, 'packs', '%s.tgz')], root);
    expect(readdirSync(join(project, 'packs')).sort()).toEqual(['krs-adapters.tgz', 'krs-domain.tgz']);

    await run('pnpm', ['install', '--prefer-offline', '--ignore-workspace', '--no-frozen-lockfile'], project);
    await run('pnpm', ['run', 'build'], project);
    const output = await run(process.execPath, ['dist/main.js'], project);

    expect(output).toMatch(/^in-memory: published \S+, search found \[\S+\] ok$/m);
    expect(output).toMatch(/^sqlite: published \S+, search found \[\S+\] ok$/m);
  });
});
