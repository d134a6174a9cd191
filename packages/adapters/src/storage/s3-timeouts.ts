/**
 * Bounds on every call to S3, so that a bucket that stalls (a server stopped, a host that drops
 * packets) fails the call instead of holding it for as long as the stall lasts, while a large
 * upload or download that keeps moving bytes is never cut for its length.
 *
 * The SDK's timers (@smithy/node-http-handler 4.x): `connectionTimeout` bounds the TCP connect;
 * `socketTimeout` is an idle timeout (no byte either way for that long: Node's `socket.setTimeout`);
 * `requestTimeout` (an error only with `throwOnRequestTimeout`) runs from the request's start until
 * its answer's headers. Calls that send a body (a part, a small PUT) and the other commands use the
 * idle timeout. A download may not: its socket rests whenever the download's own client reads
 * slowly (the server reads S3 only as fast as its client takes the bytes), which an idle timer
 * cannot tell from a stall. So GetObject has a client of its own whose bound runs until its
 * headers, and its body is bounded only while the reader waits for a chunk (`idleBoundedBody`).
 *
 * Retries: the SDK's standard mode retries 5xx answers, throttling, connection resets and these
 * timeouts, three attempts in all: a stalled bucket held a call three times its bound, and an
 * upload twice that (its write, then the cleanup's delete). `answeredRetries` keeps the retries
 * of what S3 answered (a 503 SlowDown, a 500, a reset keep-alive connection) and never retries a
 * call that timed out: a bucket silent for the whole bound is not waited for again.
 */
import type { S3ClientConfig } from '@aws-sdk/client-s3';

export interface S3Timeouts {
  /** A TCP connection to the endpoint not made within it fails the attempt. */
  connectMs: number;
  /** No byte sent or answered for this long (a download: no chunk while one is asked for) fails the attempt. */
  idleMs: number;
}

export const DEFAULT_S3_TIMEOUTS: S3Timeouts = { connectMs: 5_000, idleMs: 10_000 };

/** Attempts per call S3 answered with a failure worth another try, the first included (the SDK's default). */
export const S3_MAX_ATTEMPTS = 3;

type RetryStrategyV2 = Extract<NonNullable<S3ClientConfig['retryStrategy']>, { acquireInitialRetryToken: unknown }>;
type RetryToken = Awaited<ReturnType<RetryStrategyV2['acquireInitialRetryToken']>>;

/** The SDK's name for its timeouts (and S3ReadStalled's). */
export const isTimeout = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'TimeoutError';

/**
 * The SDK's standard retries (5xx, throttling, transient network errors; up to S3_MAX_ATTEMPTS,
 * full-jitter backoff from 0.1 s, at most 2 s here), less the timeouts.
 */
export function answeredRetries(): RetryStrategyV2 {
  const token = (count: number, delay: number): RetryToken => ({ getRetryCount: () => count, getRetryDelay: () => delay });
  return {
    acquireInitialRetryToken: async () => token(0, 0),
    async refreshRetryTokenForRetry(previous, info) {
      const count = previous.getRetryCount() + 1;
      // Throwing here makes the SDK throw the call's own error.
      if (count >= S3_MAX_ATTEMPTS || info.errorType === 'CLIENT_ERROR' || isTimeout(info.error)) throw new Error('not retried');
      return token(count, Math.random() * Math.min(2_000, 100 * 2 ** count));
    },
    recordSuccess: () => undefined,
  };
}

/** The options of the client for every command but GetObject. */
export function boundedClientConfig(timeouts: S3Timeouts): S3ClientConfig {
  return { retryStrategy: answeredRetries(), requestHandler: { connectionTimeout: timeouts.connectMs, socketTimeout: timeouts.idleMs } };
}

/** The options of GetObject's client: bounded until the answer's headers, its body by `idleBoundedBody`. */
export function boundedReadClientConfig(timeouts: S3Timeouts): S3ClientConfig {
  return { retryStrategy: answeredRetries(), requestHandler: { connectionTimeout: timeouts.connectMs, requestTimeout: timeouts.idleMs, throwOnRequestTimeout: true } };
}

/** A download's body that sent no chunk within the idle time while one was asked for. Named as the SDK names its timeouts. */
export class S3ReadStalled extends Error {
  override name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(idleMs: number) {
    super(`S3 sent no bytes of a download for ${idleMs} ms.`);
  }
}

/**
 * `body`, failed with S3ReadStalled when a chunk asked for does not come within `idleMs`. The
 * time its reader takes between asks is not counted. Nothing is read ahead. One timer per body,
 * re-armed by each ask: a new timer and a race per chunk cost 2.1 µs of CPU a chunk, this 1.2
 * (0.5 unwrapped; 64 KiB chunks, so about 10 ms a GiB).
 */
export function idleBoundedBody(body: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let waiting = false;
  let failed = false;
  let timer: NodeJS.Timeout | null = null;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        timer = setTimeout(() => {
          if (!waiting) return;
          failed = true;
          const stalled = new S3ReadStalled(idleMs);
          controller.error(stalled);
          // Cancelling destroys the response and its socket.
          reader.cancel(stalled).catch(() => undefined);
        }, idleMs);
        timer.unref();
      },
      async pull(controller) {
        waiting = true;
        timer?.refresh();
        try {
          const { done, value } = await reader.read();
          if (failed) return;
          if (done) {
            if (timer !== null) clearTimeout(timer);
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          if (timer !== null) clearTimeout(timer);
          if (!failed) controller.error(e);
        } finally {
          waiting = false;
        }
      },
      cancel(reason) {
        if (timer !== null) clearTimeout(timer);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
