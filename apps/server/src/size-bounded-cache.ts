/**
 * The most recently used values up to a total size, least recently used out: what the server
 * keeps per revision (exports, listing hits' texts, the fast path's answers) is only ever a copy
 * it can make again, and none of it may grow with the number of records.
 */
export interface SizeBoundedCache<V> {
  /** The value kept under `key`, now the most recently used. */
  get(key: string): V | undefined;
  /** Keeps `value` unless it alone would take more than its share of the whole. */
  set(key: string, value: V): void;
  drop(key: string): void;
  /** The value kept under `key`, else `make()`'s, kept. */
  through(key: string, make: () => V): V;
}

/**
 * `sizeOf` measures a value in the unit of `maxSize`; a value over `maxSize / largestShare` is
 * never kept: a record near the size limits would push out many others for little gain.
 */
export function sizeBoundedCache<V>(maxSize: number, sizeOf: (value: V) => number, largestShare: number): SizeBoundedCache<V> {
  const values = new Map<string, V>();
  let size = 0;
  const drop = (key: string) => {
    const old = values.get(key);
    if (old === undefined) return;
    values.delete(key);
    size -= sizeOf(old);
  };
  const get = (key: string) => {
    const value = values.get(key);
    if (value !== undefined) {
      values.delete(key);
      values.set(key, value);
    }
    return value;
  };
  const set = (key: string, value: V) => {
    drop(key);
    const own = sizeOf(value);
    if (own > maxSize / largestShare) return;
    values.set(key, value);
    size += own;
    for (const k of values.keys()) {
      if (size <= maxSize) break;
      drop(k);
    }
  };
  return {
    get,
    set,
    drop,
    through(key, make) {
      const kept = get(key);
      if (kept !== undefined) return kept;
      const made = make();
      set(key, made);
      return made;
    },
  };
}
