/**
 * A JSON value without whatever lies deeper than `maxDepth` levels: a pruned copy, or the value
 * itself when nothing does. Search documents carry metadata through it, so no engine's walk over
 * a document (flattening, cloning, serializing) can run out of stack on a value nested thousands
 * of levels deep.
 */
type Container = unknown[] | { [key: string]: unknown };

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;
const shell = (v: Container): Container => (Array.isArray(v) ? [] : {});

export function pruneDepth(value: unknown, maxDepth: number): unknown {
  if (!isContainer(value) || depthWithin(value, maxDepth)) return value;
  const root = shell(value);
  // An explicit stack, not recursion: the input is the deep value this guards against.
  const pending: [Container, Container, number][] = [[value, root, 0]];
  while (pending.length > 0) {
    const [source, target, depth] = pending.pop() as [Container, Container, number];
    for (const [key, v] of Object.entries(source)) {
      let copy: unknown = v;
      if (isContainer(v)) {
        if (depth + 1 > maxDepth) continue;
        copy = shell(v);
        pending.push([v, copy as Container, depth + 1]);
      }
      if (Array.isArray(target)) target.push(copy);
      // Defined, not assigned: a `__proto__` key in the metadata stays a plain member.
      else Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

/** Whether nothing lies deeper than `maxDepth`: checked without copying, as almost every value passes. */
function depthWithin(value: Container, maxDepth: number): boolean {
  const pending: [Container, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [container, depth] = pending.pop() as [Container, number];
    const members = Array.isArray(container) ? container : Object.values(container);
    for (const v of members) {
      if (!isContainer(v)) continue;
      if (depth + 1 > maxDepth) return false;
      pending.push([v, depth + 1]);
    }
  }
  return true;
}
