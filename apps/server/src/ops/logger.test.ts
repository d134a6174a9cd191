/**
 * The logger as the server process uses it, on its own stdout: every line reaches the reader,
 * whole and in order, whether the process exits right after logging or keeps running after a
 * flush (supervisors wait for the "listening on" line while the server runs).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const serverDir = resolve(import.meta.dirname, '..', '..');

/** Runs `body` in a node process with `createLogger` in scope; `onLine` sees each stdout line as it comes. */
function run(body: string, onLine: (line: string, stdin: NodeJS.WritableStream) => void = () => {}): Promise<{ lines: string[]; code: number | null }> {
  const code = `import { createLogger } from './src/ops/logger.ts';\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: serverDir, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      onLine(line, child.stdin);
    }
  });
  return new Promise((ok) => child.on('close', (exitCode) => ok({ lines, code: exitCode })));
}

describe('the stdout logger', () => {
  it('writes every line, whole and in order, when the process exits right after logging', async () => {
    const { lines, code } = await run(`
      const logger = createLogger('info');
      for (let i = 0; i < 20000; i++) logger.info({ i, place: 'Lagos, Nigéria → Niger delta' }, 'request');
      logger.warn({ last: true }, 'done');
      process.exit(3);
    `);
    expect(code).toBe(3);
    expect(lines).toHaveLength(20001);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.slice(0, 20000).map((l) => l['i'])).toEqual(Array.from({ length: 20000 }, (_, i) => i));
    expect(parsed[1234]).toMatchObject({ level: 30, service: 'krs', i: 1234, place: 'Lagos, Nigéria → Niger delta', msg: 'request' });
    expect(parsed[20000]).toMatchObject({ level: 40, last: true, msg: 'done' });
  });

  it('hands a flushed line to the reader while the process keeps running', async () => {
    // The child waits for its stdin to close, which the reader does only once it has the line.
    const { lines, code } = await run(
      `
      const logger = createLogger('info');
      logger.info({ port: 4000 }, 'krs: listening on http://127.0.0.1:4000');
      logger.flush();
      process.stdin.resume();
      process.stdin.on('end', () => process.exit(0));
    `,
      (line, stdin) => {
        if (line.includes('listening on')) stdin.end();
      },
    );
    expect(code).toBe(0);
    expect(lines.map((l) => (JSON.parse(l) as Record<string, unknown>)['msg'])).toEqual(['krs: listening on http://127.0.0.1:4000']);
  });
});
