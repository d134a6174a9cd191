import { describe, expect, it } from 'vitest';
import { costlyQuery, createSearchGate, SearchesWaiting } from './search-gate.ts';

/** Enters and notes, in `order`, the label of each search once it may run. */
function entering(gate: ReturnType<typeof createSearchGate>, order: string[]) {
  return (address: string, label: string, abandoned?: Promise<void>) =>
    gate.enter(address, abandoned).then((release) => {
      if (release !== null) order.push(label);
      return release;
    });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('searches taking turns between client addresses', () => {
  it('runs another address at once while one address waits on its own bound', async () => {
    const gate = createSearchGate({ perClient: 2, total: 10, maxWaiting: 100, costlyMs: null });
    const order: string[] = [];
    const enter = entering(gate, order);
    const a = [enter('10.0.0.1', 'a1'), enter('10.0.0.1', 'a2'), enter('10.0.0.1', 'a3'), enter('10.0.0.1', 'a4')];
    const b = enter('10.0.0.2', 'b1');
    await settle();
    expect(order).toEqual(['a1', 'a2', 'b1']);
    expect(gate.counts()).toEqual({ running: 3, waiting: 2 });
    (await a[0])?.();
    await settle();
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3']);
    (await b)?.();
    (await a[1])?.();
    (await a[2])?.();
    await settle();
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    (await a[3])?.();
    expect(gate.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it("gives each freed place to the next address in turn: one address's many searches delay another's by one place", async () => {
    const gate = createSearchGate({ perClient: 4, total: 2, maxWaiting: 100, costlyMs: null });
    const order: string[] = [];
    const enter = entering(gate, order);
    const a = Array.from({ length: 20 }, (_, i) => enter('10.0.0.1', `a${i}`));
    await settle();
    const b = enter('10.0.0.2', 'b');
    await settle();
    expect(order).toEqual(['a0', 'a1']);
    // a2 was waiting before b: it takes the first place freed, and b the next.
    (await a[0])?.();
    await settle();
    (await a[1])?.();
    await settle();
    expect(order).toEqual(['a0', 'a1', 'a2', 'b']);
    (await b)?.();
    for (const search of a.slice(2)) {
      await settle();
      (await search)?.();
    }
    expect(order).toHaveLength(21);
    expect(gate.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses an address past its waiting searches, and only that address', async () => {
    let refused = 0;
    const gate = createSearchGate({ perClient: 1, total: 10, maxWaiting: 2, costlyMs: null }, () => refused++);
    const running = await gate.enter('10.0.0.1');
    const waiting = [gate.enter('10.0.0.1'), gate.enter('10.0.0.1')];
    await expect(gate.enter('10.0.0.1')).rejects.toBeInstanceOf(SearchesWaiting);
    expect(refused).toBe(1);
    // The same /64 is the same client; another is not.
    await expect(gate.enter('2001:db8::1')).resolves.toBeTypeOf('function');
    running?.();
    (await waiting[0])?.();
    (await waiting[1])?.();
    expect(gate.counts()).toEqual({ running: 1, waiting: 0 });
  });

  it('takes a search whose client has gone out of the queue, and gives its place to the next', async () => {
    const gate = createSearchGate({ perClient: 1, total: 1, maxWaiting: 10, costlyMs: null });
    const order: string[] = [];
    const enter = entering(gate, order);
    const first = await enter('10.0.0.1', 'first');
    let leave = () => {};
    const gone = new Promise<void>((resolve) => (leave = resolve));
    const abandoned = enter('10.0.0.2', 'abandoned', gone);
    const next = enter('10.0.0.3', 'next');
    leave();
    await expect(abandoned).resolves.toBeNull();
    expect(gate.counts()).toEqual({ running: 1, waiting: 1 });
    first?.();
    await settle();
    expect(order).toEqual(['first', 'next']);
    (await next)?.();
    expect(gate.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it('without the per-address bound, runs searches in the order they came and refuses none', async () => {
    const gate = createSearchGate({ perClient: null, total: 1, maxWaiting: 1, costlyMs: null });
    const order: string[] = [];
    const enter = entering(gate, order);
    const searches = [enter('10.0.0.1', 'a'), enter('10.0.0.2', 'b'), enter('10.0.0.1', 'c'), enter('10.0.0.3', 'd')];
    for (const search of searches) {
      await settle();
      (await search)?.();
    }
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });

  it('runs an address whose searches have lately been costly one at a time, and gives it its bound back once they are cheap', async () => {
    let clock = 0;
    const gate = createSearchGate({ perClient: 3, total: 10, maxWaiting: 100, costlyMs: 200 }, () => undefined, () => clock);
    const order: string[] = [];
    const enter = entering(gate, order);
    // A new address runs one search until its first has ended, cheap here.
    const first = [enter('10.0.0.1', 'first'), enter('10.0.0.1', 'second')];
    await settle();
    expect(gate.counts()).toEqual({ running: 1, waiting: 1 });
    clock += 10;
    for (const search of first) {
      await settle();
      (await search)?.();
    }
    // Cheap searches: three at once.
    const cheap = [enter('10.0.0.1', 'c1'), enter('10.0.0.1', 'c2'), enter('10.0.0.1', 'c3')];
    await settle();
    expect(gate.counts()).toEqual({ running: 3, waiting: 0 });
    clock += 10;
    for (const search of cheap) (await search)?.();
    // One costly search (a second) makes its average costly: the next ones run one at a time.
    const costly = await enter('10.0.0.1', 'costly');
    clock += 1000;
    costly?.();
    const next = [enter('10.0.0.1', 'n1'), enter('10.0.0.1', 'n2')];
    await settle();
    expect(gate.counts()).toEqual({ running: 1, waiting: 1 });
    // Another address, known cheap, keeps its own bound.
    (await enter('10.0.0.2', 'o0'))?.();
    const other = [enter('10.0.0.2', 'o1'), enter('10.0.0.2', 'o2')];
    await settle();
    expect(gate.counts()).toEqual({ running: 3, waiting: 1 });
    for (const search of other) (await search)?.();
    // Cheap again, the average falls under the bound after a few searches, and the bound is back.
    for (const search of next) {
      await settle();
      (await search)?.();
    }
    for (let i = 0; i < 8; i++) (await enter('10.0.0.1', `again${i}`))?.();
    const after = [enter('10.0.0.1', 'a1'), enter('10.0.0.1', 'a2')];
    await settle();
    expect(gate.counts()).toEqual({ running: 2, waiting: 0 });
    for (const search of after) (await search)?.();
  });

  it('runs the searches of all costly addresses together one at a time, beside the cheap ones of others', async () => {
    let clock = 0;
    const gate = createSearchGate({ perClient: 3, total: 10, maxWaiting: 100, costlyMs: 200 }, () => undefined, () => clock);
    const order: string[] = [];
    const enter = entering(gate, order);
    // Two addresses each send one costly search: both run (their cost is not known yet).
    const first = [await enter('10.0.0.1', 'a0'), await enter('10.0.0.2', 'b0')];
    clock += 1000;
    for (const release of first) release?.();
    // Now both are costly: between them, one search at a time.
    const costly = [enter('10.0.0.1', 'a1'), enter('10.0.0.2', 'b1'), enter('10.0.0.1', 'a2'), enter('10.0.0.2', 'b2')];
    await settle();
    expect(gate.counts()).toEqual({ running: 1, waiting: 3 });
    // A third address's searches, cheap, run at once up to its own bound.
    (await enter('10.0.0.3', 'c0'))?.();
    const cheap = [enter('10.0.0.3', 'c1'), enter('10.0.0.3', 'c2')];
    await settle();
    expect(gate.counts()).toEqual({ running: 3, waiting: 3 });
    for (const search of cheap) (await search)?.();
    // The costly addresses take their turns one after the other.
    for (const search of costly) {
      await settle();
      expect(gate.counts().running).toBe(1);
      clock += 1000;
      (await search)?.();
    }
    expect(order).toEqual(['a0', 'b0', 'a1', 'c0', 'c1', 'c2', 'b1', 'a2', 'b2']);
    expect(gate.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it('runs searches of a costly shape with the costly addresses\' ones, whatever their address, beside plain ones', async () => {
    const gate = createSearchGate({ perClient: 3, total: 10, maxWaiting: 100, costlyMs: 200 });
    const order: string[] = [];
    const enter = (address: string, label: string, costly: boolean) =>
      gate.enter(address, undefined, costly).then((release) => {
        order.push(label);
        return release;
      });
    // Three addresses never seen before, each with a fuzzy search: one runs, two wait.
    const fuzzy = [enter('10.0.0.1', 'f1', true), enter('10.0.0.2', 'f2', true), enter('10.0.0.3', 'f3', true)];
    await settle();
    expect(gate.counts()).toEqual({ running: 1, waiting: 2 });
    // A plain search from a fourth address runs at once.
    (await enter('10.0.0.4', 'plain', false))?.();
    for (const search of fuzzy) {
      await settle();
      expect(gate.counts().running).toBe(1);
      (await search)?.();
    }
    expect(order).toEqual(['f1', 'plain', 'f2', 'f3']);
  });

  it('reads a costly shape from the query text, and none from no query', () => {
    expect(costlyQuery('glacier~')).toBe(true);
    expect(costlyQuery('a* OR b*')).toBe(true);
    expect(costlyQuery('-data')).toBe(true);
    expect(costlyQuery('flood mapping')).toBe(false);
    expect(costlyQuery('')).toBe(false);
    expect(costlyQuery(undefined)).toBe(false);
  });

  it('gives a place back once, however often its release is called', async () => {
    const gate = createSearchGate({ perClient: 1, total: 1, maxWaiting: 10, costlyMs: null });
    const release = await gate.enter('10.0.0.1');
    const second = gate.enter('10.0.0.2');
    const third = gate.enter('10.0.0.3');
    release?.();
    release?.();
    await settle();
    expect(gate.counts()).toEqual({ running: 1, waiting: 1 });
    (await second)?.();
    (await third)?.();
  });
});
