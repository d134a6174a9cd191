/**
 * A record's long lists mapped for an export a slice at a time: a record may name 20,000 people or
 * 10,000 related works, and mapping them all in one go held the loop for 5-15 ms per format.
 */
import type { Slicing } from '@krs/domain';

/** Items mapped between two looks at the clock. */
const ITEMS_PER_LOOK = 64;

/** `items.flatMap(f)`, a turn given whenever the slice is due. */
export async function flatMapInTurns<T>(items: readonly unknown[], f: (item: unknown) => T[], slicing: Slicing): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i % ITEMS_PER_LOOK === 0 && slicing.due()) await slicing.turn();
    for (const x of f(items[i])) out.push(x);
  }
  return out;
}
