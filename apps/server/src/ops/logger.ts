/**
 * JSON log lines on stdout, one object per event, in pino's shape (`level`, `time`, `msg`, plus
 * fields), which log shippers read without configuration.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Written asynchronously in 4 KiB batches so a request never waits on the terminal or a pipe;
 * `flush()` before exit keeps the last lines.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'krs' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Defence in depth: request lines never carry headers, but an error object might.
      redact: { paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token'], censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );
}
