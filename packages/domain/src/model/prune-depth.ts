/**
 * A JSON value without whatever lies deeper than `maxDepth` levels: a pruned copy, or the value
 * itself when nothing does. Search documents carry metadata through it, so no engine's walk over
 * a document (flattening, cloning, serializing) can run out of stack on a value nested thousands
 * of levels deep.
 *
 * Both walks recurse, but never more than `maxDepth` levels: a deeper container is where they
 * stop, so the deep values this guards against cannot exhaust the stack here either. Recursion
 * with index loops allocates nothing per container, which matters because every search document
 * of every write passes through here (an explicit stack of entries made the largest legal record
 * cost tens of milliseconds of one turn, mostly in garbage).
 */
type Container = unknown[] | { [key: string]: unknown };

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

export function pruneDepth(value: unknown, maxDepth: number): unknown {
  if (!isContainer(value) || within(value, maxDepth)) return value;
  return prunedCopy(value, maxDepth);
}

/** Whether no container lies more than `levels` below `container`: checked without copying, as almost every value passes. */
function within(container: Container, levels: number): boolean {
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const v = container[i];
      if (isContainer(v) && (levels === 0 || !within(v, levels - 1))) return false;
    }
    return true;
  }
  for (const key of Object.keys(container)) {
    const v = container[key];
    if (isContainer(v) && (levels === 0 || !within(v, levels - 1))) return false;
  }
  return true;
}

function prunedCopy(container: Container, levels: number): Container {
  if (Array.isArray(container)) {
    const copy: unknown[] = [];
    for (const v of container) {
      if (!isContainer(v)) copy.push(v);
      else if (levels > 0) copy.push(prunedCopy(v, levels - 1));
    }
    return copy;
  }
  const copy: { [key: string]: unknown } = {};
  for (const key of Object.keys(container)) {
    const v = container[key];
    if (isContainer(v) && levels === 0) continue;
    // Defined, not assigned: a `__proto__` key in the metadata stays a plain member.
    Object.defineProperty(copy, key, { value: isContainer(v) ? prunedCopy(v, levels - 1) : v, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
