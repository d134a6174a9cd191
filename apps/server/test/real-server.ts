/**
 * A real krs server process for the tests that meet the service as its users do: started from the
 * TypeScript sources on a data dir of the test's, ready once it says "listening on".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const serverDir = resolve(import.meta.dirname, '..');
export const tsx = join(serverDir, 'node_modules', '.bin', 'tsx');

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
  // Node itself with tsx as a loader, not tsx's launcher: the child is the server, so a signal
  // sent to it (a SIGKILL in the middle of an upload) reaches the server, not a parent of it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: serverDir, env, stdio: ['ignore', 'pipe', options.captureStderr ? 'pipe' : 'inherit'] });
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
