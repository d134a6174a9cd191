/** Starting and stopping the real server (or a baseline) as a child process, the way operators run it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const serverDir = resolve(import.meta.dirname, '..');
export const tsx = join(serverDir, 'node_modules', '.bin', 'tsx');

export interface Started {
  child: ChildProcess;
  /** Everything the process printed on stdout until it said it was listening. */
  output: string;
  /** From spawn to "listening on". */
  seconds: number;
}

/**
 * Runs a TypeScript entry point in node itself (`--import tsx`), not through the `tsx` launcher,
 * which would put a second process in between: the pid must be the server's, for its memory
 * figures and its signals. Resolves once it prints "listening on"; rejects if it exits first.
 */
export function start(args: string[], env: NodeJS.ProcessEnv): Promise<Started> {
  // On the workspace packages' sources too: without the condition they resolve to their `dist/`,
  // which may be older than the sources being measured.
  return startCommand(process.execPath, ['--conditions=@krs/source', '--import', 'tsx', ...args], env);
}

/**
 * The server as production runs it, from compiled JavaScript (`dist/`, built by `tsc -b`), with no
 * loader in the request path; `launch` may wrap the command (to pin it to some cores, say).
 */
export function startCompiled(
  env: NodeJS.ProcessEnv,
  launch: (command: string, args: string[]) => [string, string[]] = (c, a) => [c, a],
): Promise<Started> {
  const [command, args] = launch(process.execPath, ['dist/main.js']);
  // The bench itself runs with the source condition (NODE_OPTIONS); production does not.
  const { NODE_OPTIONS: _, ...productionEnv } = env;
  return startCommand(command, args, productionEnv);
}

function startCommand(command: string, argv: string[], env: NodeJS.ProcessEnv): Promise<Started> {
  const t0 = performance.now();
  // The server's log lines (one per request, thousands a second) go to a file, not a pipe this
  // process drains: this process runs on the servers' cores (wrk.ts), and reading the pipe took
  // CPU there that the server, not the plain baseline (which logs nothing), went without.
  const logDir = mkdtempSync(join(tmpdir(), 'krs-bench-log-'));
  const logFile = join(logDir, 'stdout.log');
  const fd = openSync(logFile, 'w');
  const child = spawn(command, argv, { cwd: serverDir, env, stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  child.once('exit', () => rmSync(logDir, { recursive: true, force: true }));
  const args = [command, ...argv];
  const printed = () => readFileSync(logFile, 'utf8');
  return new Promise((ok, fail) => {
    const poll = setInterval(() => {
      const output = printed();
      if (!output.includes('listening on')) return;
      clearInterval(poll);
      ok({ child, output, seconds: (performance.now() - t0) / 1000 });
    }, 20);
    child.once('exit', (code) => {
      clearInterval(poll);
      fail(new Error(`${args.join(' ')} exited ${code} before listening:\n${existsSync(logFile) ? printed() : ''}`));
    });
  });
}

/** SIGTERM, then wait for the exit (the server saves its search state on the way out). */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    // A process killed by a signal has no exit code, only a signal code: stopped either way.
    if (child.exitCode !== null || child.signalCode !== null) return ok();
    child.once('exit', () => ok());
    child.kill('SIGTERM');
  });
}

/** A `/proc/<pid>/status` figure in KiB (VmRSS: now; VmHWM: peak since start or the last reset). */
export const statusKiB = (pid: number, field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
