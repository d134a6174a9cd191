/**
 * Measures the shape of a JSON body while its bytes stream in, before it is parsed: nesting depth
 * (with the path of the first value nested too deep), the number of objects and arrays, and the
 * length of each string (with the path of the first one too long).
 * `JSON.parse` of ten megabytes of `[[[[...` or of millions of `{}` is what first holds the event
 * loop and the memory, so such bodies are refused on these counts without ever being parsed.
 *
 * It reads bytes, not characters: every byte that matters (brackets, quotes, commas, colons,
 * backslashes) is ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte character. It does
 * not validate JSON; `JSON.parse` still does.
 */

interface Frame {
  array: boolean;
  index: number;
  /** The member name being read or last read, its first KEY_BYTES bytes: `keyLength` of them. */
  key: Uint8Array;
  keyLength: number;
  expectingKey: boolean;
}

export type ShapeProblem =
  | { kind: 'too_deep'; path: string }
  | { kind: 'too_many_containers' }
  | { kind: 'too_many_items'; path: string }
  | { kind: 'too_long'; path: string };

/** Longest member name kept for a path (bytes); longer ones are cut. */
const KEY_BYTES = 100;

export class JsonShapeScanner {
  /**
   * Frames are reused and their keys are fixed buffers: depth never passes `maxDepth + 1`, so
   * nothing is allocated per container or per member name (a key in a growing array was a few
   * megabytes to collect for each large body).
   */
  private readonly frames: Frame[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  private capturingKey = false;
  private containers = 0;
  private items = 0;
  private stringBytes = 0;
  problem: ShapeProblem | null = null;

  /** `maxDepth` counts the body itself as level 1. */
  constructor(
    private readonly maxDepth: number,
    private readonly maxContainers: number,
    /** List items in the whole body (a list of half a million file names is cheap to send, not to check). */
    private readonly maxItems: number = Number.POSITIVE_INFINITY,
    /** Bytes of one string as sent, escapes included. */
    private readonly maxStringBytes: number = Number.POSITIVE_INFINITY,
  ) {
    for (let i = 0; i <= maxDepth; i++) this.frames.push({ array: false, index: 0, key: new Uint8Array(KEY_BYTES), keyLength: 0, expectingKey: false });
  }

  /** Feeds the next chunk; stops reading at the first problem. */
  write(chunk: Uint8Array): ShapeProblem | null {
    if (this.problem) return this.problem;
    // State in locals for the hot loop, written back at the end.
    const frames = this.frames;
    let { depth, inString, escaped, capturingKey, containers, items, stringBytes } = this;
    let problem: ShapeProblem | null = null;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) {
          inString = false;
          capturingKey = false;
          continue;
        }
        if (++stringBytes > this.maxStringBytes) {
          // The member holding the string: its object's frame names it by the key being read.
          problem = { kind: 'too_long', path: this.path(depth + 1) };
          break;
        }
        if (capturingKey) {
          const f = frames[depth - 1]!;
          if (f.keyLength < KEY_BYTES) f.key[f.keyLength++] = b;
        }
        continue;
      }
      if (b === 0x22) {
        inString = true;
        stringBytes = 0;
        const top = depth > 0 ? frames[depth - 1]! : null;
        if (top && !top.array && top.expectingKey) {
          top.keyLength = 0;
          capturingKey = true;
        }
      } else if (b === 0x7b || b === 0x5b) {
        containers++;
        if (depth >= this.maxDepth) {
          depth++;
          problem = { kind: 'too_deep', path: this.path(depth) };
          break;
        }
        if (containers > this.maxContainers) {
          problem = { kind: 'too_many_containers' };
          break;
        }
        const f = frames[depth]!;
        f.array = b === 0x5b;
        f.index = 0;
        f.keyLength = 0;
        f.expectingKey = b === 0x7b;
        depth++;
      } else if (b === 0x7d || b === 0x5d) {
        if (depth > 0) depth--;
      } else if (b === 0x2c) {
        if (depth > 0) {
          const top = frames[depth - 1]!;
          if (top.array) {
            top.index++;
            if (++items > this.maxItems) {
              problem = { kind: 'too_many_items', path: this.path(depth) };
              break;
            }
          } else top.expectingKey = true;
        }
      } else if (b === 0x3a) {
        if (depth > 0) frames[depth - 1]!.expectingKey = false;
      }
    }
    Object.assign(this, { depth, inString, escaped, capturingKey, containers, items, stringBytes });
    this.problem = problem;
    return problem;
  }

  /** Dotted path of the container at `depth` (1 is the body), the body's own members first, as field errors name them. */
  private path(depth: number): string {
    const decoder = new TextDecoder();
    const parts: string[] = [];
    // Each frame above the offender names where the next one sits.
    for (let i = 0; i < depth - 1; i++) {
      const f = this.frames[i]!;
      parts.push(f.array ? String(f.index) : decoder.decode(f.key.subarray(0, f.keyLength)));
    }
    return parts.join('.');
  }
}
