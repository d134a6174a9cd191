/**
 * Values worked out from a key, kept up to `max` keys: past the bound the table starts over, so
 * keys a depositor chooses (custom fields' paths) cannot grow the memory, while the few the
 * documents share are kept. Cheaper than an LRU's move on every hit, for keys that repeat.
 */
export function keptUpTo<V>(max: number): (key: string, make: (key: string) => V) => V {
  const kept = new Map<string, V>();
  return (key, make) => {
    let value = kept.get(key);
    if (value === undefined) {
      value = make(key);
      if (kept.size >= max) kept.clear();
      kept.set(key, value);
    }
    return value;
  };
}
