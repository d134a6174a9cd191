/**
 * Whether a value nests within a number of levels, walked a few thousand containers at a time
 * with turns between them when a slice is due. A walk over the largest legal metadata runs rarely,
 * so in code not yet optimised: 5-20 ms in one go, where a warm walk takes under one.
 */
import type { Slicing } from './time-slices.ts';

/** Containers visited between two looks at the slice. */
const CONTAINERS_PER_STEP = 256;

type Container = unknown[] | { [key: string]: unknown };

interface Walk {
  pending: Container[];
  /** The level of each pending container, the value itself being level 1. */
  levels: number[];
}

/** Nothing in `value` lies deeper than `levels` levels, the value itself being the first. */
export async function nestsWithinInTurns(value: unknown, levels: number, slicing: Slicing): Promise<boolean> {
  if (typeof value !== 'object' || value === null) return true;
  const walk: Walk = { pending: [value as Container], levels: [1] };
  for (;;) {
    const decided = walkSome(walk, levels);
    if (decided !== undefined) return decided;
    if (slicing.due()) await slicing.turn();
  }
}

/** Up to a step's containers: true or false once decided, undefined while containers are pending. */
function walkSome(walk: Walk, maxLevels: number): boolean | undefined {
  const { pending, levels } = walk;
  for (let n = 0; n < CONTAINERS_PER_STEP; n++) {
    const container = pending.pop();
    if (container === undefined) return true;
    const level = levels.pop() as number;
    const members = Array.isArray(container) ? container : Object.values(container);
    for (let i = 0; i < members.length; i++) {
      const v = members[i];
      if (typeof v !== 'object' || v === null) continue;
      if (level >= maxLevels) return false;
      pending.push(v as Container);
      levels.push(level + 1);
    }
  }
  return undefined;
}
