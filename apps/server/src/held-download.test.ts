import { describe, expect, it } from 'vitest';
import type { BodyHold } from './body-budget.ts';
import { DownloadStalled, heldDownload, reusedBuffers } from './held-download.ts';

function countingHold() {
  const state = { releases: 0 };
  const hold: BodyHold = { take: () => undefined, release: () => void state.releases++ };
  return { hold, state };
}

/** A source of `n` one-byte chunks that says how many it was asked for and whether it was cancelled. */
function source(n: number) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (state.pulled === n) return c.close();
        c.enqueue(new Uint8Array([state.pulled++]));
      },
      cancel: () => void (state.cancelled = true),
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('heldDownload', () => {
  it('passes every byte on and releases its hold once read to the end', async () => {
    const { hold, state } = countingHold();
    const s = source(5);
    const bytes = new Uint8Array(await new Response(heldDownload(s.stream, { hold, idleMs: 1000 })).arrayBuffer());
    expect([...bytes]).toEqual([0, 1, 2, 3, 4]);
    expect(state.releases).toBe(1);
  });

  it('reads no chunk before the connection asks for it', async () => {
    const s = source(5);
    const reader = heldDownload(s.stream, { hold: countingHold().hold, idleMs: 1000 }).getReader();
    await pause(5);
    expect(s.state.pulled).toBe(0);
    await reader.read();
    await pause(5);
    expect(s.state.pulled).toBe(1);
    await reader.cancel();
  });

  it('releases its hold and cancels the source when the connection goes away', async () => {
    const { hold, state } = countingHold();
    const s = source(5);
    const reader = heldDownload(s.stream, { hold, idleMs: 1000 }).getReader();
    await reader.read();
    await reader.cancel();
    expect(state.releases).toBe(1);
    expect(s.state.cancelled).toBe(true);
  });

  it('fails with DownloadStalled when nothing is read for the idle time, releasing its hold and cancelling the source', async () => {
    const { hold, state } = countingHold();
    const s = source(5);
    const dropped: DownloadStalled[] = [];
    const reader = heldDownload(s.stream, { hold, idleMs: 30, drop: (e) => void dropped.push(e) }).getReader();
    await reader.read();
    await pause(80);
    expect(dropped).toHaveLength(1);
    await expect(reader.read()).rejects.toBeInstanceOf(DownloadStalled);
    expect(state.releases).toBe(1);
    expect(s.state.cancelled).toBe(true);
  });

  it('is never cut while reads keep coming within the idle time', async () => {
    const { hold, state } = countingHold();
    const reader = heldDownload(source(6).stream, { hold, idleMs: 500 }).getReader();
    const got: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got.push(...value);
      await pause(100);
    }
    expect(got).toEqual([0, 1, 2, 3, 4, 5]);
    expect(state.releases).toBe(1);
  });

});

describe('reusedBuffers', () => {
  it('gives the same buffer for every chunk while the connection has sent the chunk before', () => {
    const buffers = reusedBuffers(() => true);
    const first = buffers(8);
    expect(first.length).toBe(8);
    expect(buffers(8)).toBe(first);
    // The last, shorter chunk too.
    expect(buffers(3)).toBe(first);
  });

  it('gives a new buffer while the connection still holds the chunk before, or when the chunk is larger', () => {
    let flushed = false;
    const buffers = reusedBuffers(() => flushed);
    const first = buffers(8);
    const second = buffers(8);
    expect(second).not.toBe(first);
    flushed = true;
    expect(buffers(8)).toBe(second);
    expect(buffers(16)).not.toBe(second);
  });
});
