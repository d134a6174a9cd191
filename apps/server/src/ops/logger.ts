/**
 * JSON log lines on stdout, one object per event, in pino's shape (`level`, `time`, `msg`, plus
 * fields), which log shippers read without configuration.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

const MAX_HELD_LOG_BYTES = 16 * 1024 * 1024;
/** Lines are handed to the writer in batches of about this many characters. */
const BATCH_CHARS = 4096;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * On stdout, written asynchronously in 4 KiB batches so a request never waits on the terminal
 * or a pipe, and flushed every second so a quiet server's lines are not held back. `flush()`
 * before exit keeps the last lines. Lines a stalled reader leaves waiting are held up to
 * 16 MiB and dropped beyond: a log pipe nobody drains must not grow the server's memory.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'krs' }, timestamp: pino.stdTimeFunctions.isoTime };
  return pino(options, destination ?? batchedStdout());
}

interface BufferWriter {
  write(chunk: Buffer): boolean;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/**
 * Lines are gathered here and handed to sonic-boom (pino's writer) as one Buffer per batch.
 * Given each line as a string, it measured its whole pending text again on every line
 * (`Buffer.byteLength`) and encoded every batch twice, which was most of a request line's cost
 * at thousands of lines a second; given Buffers, it only counts their lengths.
 */
function batchedStdout(): DestinationStream & { flush(cb?: (err?: Error) => void): void } {
  // In 'buffer' mode sonic-boom takes Buffers, which its types do not say.
  const writer = pino.destination({ dest: 1, sync: false, minLength: 0, maxLength: MAX_HELD_LOG_BYTES, contentMode: 'buffer' }) as unknown as BufferWriter;
  let lines: string[] = [];
  let chars = 0;
  const handOff = () => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    chars = 0;
    writer.write(Buffer.from(text));
  };
  setInterval(handOff, 1000).unref();
  // pino writes out what its writer holds at exit; the lines still gathered here go first.
  process.on('exit', () => {
    handOff();
    writer.flushSync();
  });
  return {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= BATCH_CHARS) handOff();
    },
    flush(cb) {
      handOff();
      writer.flush(cb);
    },
  };
}
