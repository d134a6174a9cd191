/**
 * The most recently used values up to a total size, least recently used out: what is kept
 * (small blobs, and in the server the exports, listing hits' texts and fast-path answers per
 * revision) is only ever a copy that can be made again, and none of it may grow with the number
 * of records.
 */
export interface SizeBoundedCache<V> {
  /** The value kept under `key`, now the most recently used. */
  get(key: string): V | undefined;
  /** Keeps `value` unless it alone is over the largest size a value may have. */
  set(key: string, value: V): void;
  drop(key: string): void;
  /** The value kept under `key`, else `make()`'s, kept. */
  through(key: string, make: () => V): V;
}

/**
 * `sizeOf` measures a value in the unit of `maxSize`; a value over `maxValueSize` (or over
 * `maxSize`) is never kept: one near the size limits would push out many others for little gain.
 */
export function sizeBoundedCache<V>(maxSize: number, sizeOf: (value: V) => number, maxValueSize: number): SizeBoundedCache<V> {
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
    if (own > maxValueSize || own > maxSize) return;
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
