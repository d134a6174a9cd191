/**
 * The krs server and `krs` command as processes, for the tests that meet the service as its users
 * do: run by plain Node from the compiled JavaScript in dist/, as in production (build-dist.ts
 * builds it before the suite). From the TypeScript sources through tsx each process cost about
 * three times the CPU (`krs --help`: 3.0 against 1.1 s), and the suite has some sixty places that start one.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const serverDir = resolve(import.meta.dirname, '..');
/** For the test's own TypeScript helpers run as processes (s3rver): Node with tsx as its loader. */
export const tsxLoader = ['--import', 'tsx'];
const krsBin = join(serverDir, 'bin', 'krs.js');
const serverMain = join(serverDir, 'dist', 'main.js');

/**
 * The environment for a compiled process: the test run's NODE_OPTIONS point the workspace
 * packages at their TypeScript sources (vitest.shared.ts), which plain Node cannot load.
 */
export function compiledEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const options = (env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((o) => o !== '' && o !== '--conditions=@krs/source');
  return { ...env, NODE_OPTIONS: options.join(' ') };
}

/** `krs <args>` with the given environment, from the server's directory. */
export function krsArgs(...args: string[]): [string, string[]] {
  return [process.execPath, [krsBin, ...args]];
}

/** Runs `krs <args>` to its end; rejects (with `code`, `stdout`, `stderr`) when it exits non-zero. */
export function runKrs(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const [command, argv] = krsArgs(...args);
  return promisify(execFile)(command, argv, { cwd: serverDir, env: compiledEnv(env), encoding: 'utf8' });
}

/** A process run to its end: its exit status and all it wrote, whatever the status (never rejects). */
export function outcome(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((ok) => child.on('close', (code) => ok({ code, stdout, stderr })));
}

/** `krs <args>` run to its end with the given environment, from the server's directory (see `outcome`). */
export function krsOutcome(env: NodeJS.ProcessEnv, ...args: string[]): ReturnType<typeof outcome> {
  return outcome(spawn(...krsArgs(...args), { cwd: serverDir, env: compiledEnv(env) }));
}

/** Starts the compiled server (not yet listening); the child is the server itself, so signals reach it. */
export function spawnServer(env: NodeJS.ProcessEnv, stdio: ('ignore' | 'pipe' | 'inherit')[]): ChildProcess {
  return spawn(process.execPath, [serverMain], { cwd: serverDir, env: compiledEnv(env), stdio });
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => ok(port));
    });
  });
}

export interface RealServer {
  child: ChildProcess;
  /** Everything it has written; stderr is collected only when `captureStderr` was asked for. */
  log(): string;
  /** SIGTERM, and the process's exit. */
  stop(): Promise<void>;
}

export async function startServer(env: NodeJS.ProcessEnv, options: { captureStderr?: boolean; timeoutMs?: number } = {}): Promise<RealServer> {
  const child = spawnServer(env, ['ignore', 'pipe', options.captureStderr ? 'pipe' : 'inherit']);
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('server did not start')), options.timeoutMs ?? 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('listening on')) {
        clearTimeout(timer);
        ok();
      }
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${log}`)));
  });
  return {
    child,
    log: () => log,
    stop: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null || child.signalCode !== null) return ok();
        child.on('exit', () => ok());
        child.kill('SIGTERM');
      }),
  };
}
