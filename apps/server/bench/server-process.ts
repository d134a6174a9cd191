/** Starting and stopping the real server (or a baseline) as a child process, the way operators run it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
  const child = spawn(command, argv, { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const args = [command, ...argv];
  let output = '';
  return new Promise((ok, fail) => {
    const collect = (b: Buffer) => {
      output += b.toString();
      if (!output.includes('listening on')) return;
      // From here on the server's log lines (one per request) are drained, not kept and searched.
      child.stdout?.off('data', collect);
      child.stdout?.resume();
      ok({ child, output, seconds: (performance.now() - t0) / 1000 });
    };
    child.stdout?.on('data', collect);
    child.on('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code} before listening:\n${output}`)));
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
