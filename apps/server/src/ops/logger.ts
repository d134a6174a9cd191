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
  const stream = destination ?? batchedStdout();
  const logger = pino(options, stream);
  destinations.set(logger, stream);
  return logger;
}

/** Loggers made by createLogger, whose lines' shape is known here, and where they write them. */
const destinations = new WeakMap<Logger, DestinationStream>();

/** pino's number for `info`: a line at that level is written while the logger's level is at or below it. */
const INFO = 30;

/**
 * For a line written thousands of times a second (one per request): writes an `info` line made of
 * `members` (JSON members, each `,"name":value`, the message's last) to the logger's destination,
 * byte for byte as `logger.info` would, without pino going through the members one by one to
 * encode them (most of a request line's cost). Null for a logger createLogger did not make, whose
 * lines' shape is pino's options' to decide: use `info` then.
 */
export function infoWriter(logger: Logger): ((members: string) => void) | null {
  const stream = destinations.get(logger);
  if (stream === undefined) return null;
  return (members) => {
    if (logger.levelVal <= INFO) stream.write(`{"level":${INFO},"time":"${isoNow()}","service":"krs"${members}}\n`);
  };
}

let isoAt = Number.NaN;
let iso = '';
/** `pino.stdTimeFunctions.isoTime`'s text, made once per millisecond. */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoAt) {
    isoAt = now;
    iso = new Date(now).toISOString();
  }
  return iso;
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
