/**
 * JSON log lines on stdout, one object per event, in pino's shape (`level`, `time`, `msg`, plus
 * fields), which log shippers read without configuration.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * On stdout, written asynchronously in 4 KiB batches so a request never waits on the terminal
 * or a pipe, and flushed every second so a quiet server's lines are not held back. `flush()`
 * before exit keeps the last lines.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'krs' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (destination !== undefined) return pino(options, destination);
  const logger = pino(options, pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  setInterval(() => logger.flush(), 1000).unref();
  return logger;
}
