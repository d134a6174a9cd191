/**
 * JSON log lines on stdout, one object per event, in pino's shape (`level`, `time`, `msg`, plus
 * fields), which log shippers read without configuration.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

const MAX_HELD_LOG_BYTES = 16 * 1024 * 1024;

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
  if (destination !== undefined) return pino(options, destination);
  return pino(options, pino.destination({ dest: 1, sync: false, minLength: 4096, maxLength: MAX_HELD_LOG_BYTES, periodicFlush: 1000 }));
}
