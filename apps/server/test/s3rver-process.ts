/**
 * A real S3 server for the tests (s3rver, patched to answer as S3 does: s3rver-main.ts), a
 * process of its own, with one bucket made.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { serverDir, tsxLoader } from './real-server.ts';

/** s3rver on a port of its choosing, ready once it prints it. */
export async function startS3rver(dir: string, bucket: string): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(process.execPath, [...tsxLoader, 'test/s3rver-main.ts', dir, bucket], { cwd: serverDir, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`s3rver did not start: ${out}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const listening = /listening on [\d.]+:(\d+)/.exec(out);
      if (listening?.[1]) {
        clearTimeout(timer);
        ok(listening[1]);
      }
    });
    child.on('exit', (code) => fail(new Error(`s3rver exited with ${code}: ${out}`)));
  });
  return { child, endpoint: `http://127.0.0.1:${port}` };
}
