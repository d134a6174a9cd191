/**
 * A Map whose entries are put in on its first use, for what a snapshot holds and a search may
 * never read. Each of Map's methods fills the map first, so code that only uses Map's methods
 * (MiniSearch's term tree and postings) cannot tell it from a Map filled at once.
 */
export abstract class FilledOnFirstUse<K, V> extends Map<K, V> {
  /** Puts the entries in with `put`; called before every use, so it must return at once when done. */
  protected abstract fill(): void;

  protected put(key: K, value: V): void {
    super.set(key, value);
  }

  override get(key: K): V | undefined {
    this.fill();
    return super.get(key);
  }
  override set(key: K, value: V): this {
    this.fill();
    return super.set(key, value);
  }
  override has(key: K): boolean {
    this.fill();
    return super.has(key);
  }
  override delete(key: K): boolean {
    this.fill();
    return super.delete(key);
  }
  override clear(): void {
    this.fill();
    super.clear();
  }
  override forEach(f: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(f, thisArg);
  }
  override keys(): MapIterator<K> {
    this.fill();
    return super.keys();
  }
  override values(): MapIterator<V> {
    this.fill();
    return super.values();
  }
  override entries(): MapIterator<[K, V]> {
    this.fill();
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[K, V]> {
    this.fill();
    return super[Symbol.iterator]();
  }
}
// Map declares `size` a property, which a class may not override with an accessor.
const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size')?.get;
Object.defineProperty(FilledOnFirstUse.prototype, 'size', {
  get(this: FilledOnFirstUse<unknown, unknown>) {
    (this as unknown as { fill(): void }).fill();
    return mapSize?.call(this) as number;
  },
});

