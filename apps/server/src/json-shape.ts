/**
 * Measures the shape of a JSON body while its bytes stream in, before it is parsed: nesting depth
 * (with the path of the first value nested too deep) and the number of objects and arrays.
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
  key: number[];
  expectingKey: boolean;
}

export type ShapeProblem = { kind: 'too_deep'; path: string } | { kind: 'too_many_containers' };

/** Longest member name kept for a path (bytes); longer ones are cut. */
const KEY_BYTES = 100;

export class JsonShapeScanner {
  private readonly frames: Frame[] = [];
  private inString = false;
  private escaped = false;
  private capturingKey = false;
  private containers = 0;
  problem: ShapeProblem | null = null;

  /** `maxDepth` counts the body itself as level 1. */
  constructor(
    private readonly maxDepth: number,
    private readonly maxContainers: number,
  ) {}

  /** Feeds the next chunk; stops reading at the first problem. */
  write(chunk: Uint8Array): ShapeProblem | null {
    if (this.problem) return this.problem;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === 0x5c) this.escaped = true;
        else if (b === 0x22) {
          this.inString = false;
          this.capturingKey = false;
          continue;
        }
        if (this.capturingKey) {
          const key = this.frames[this.frames.length - 1]!.key;
          if (key.length < KEY_BYTES) key.push(b);
        }
        continue;
      }
      const top = this.frames[this.frames.length - 1];
      switch (b) {
        case 0x22: // "
          this.inString = true;
          if (top && !top.array && top.expectingKey) {
            top.key = [];
            this.capturingKey = true;
          }
          break;
        case 0x7b: // {
        case 0x5b: // [
          this.containers++;
          this.frames.push({ array: b === 0x5b, index: 0, key: [], expectingKey: b === 0x7b });
          if (this.frames.length > this.maxDepth) return (this.problem = { kind: 'too_deep', path: this.path() });
          if (this.containers > this.maxContainers) return (this.problem = { kind: 'too_many_containers' });
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.frames.pop();
          break;
        case 0x2c: // ,
          if (top?.array) top.index++;
          else if (top) top.expectingKey = true;
          break;
        case 0x3a: // :
          if (top) top.expectingKey = false;
          break;
      }
    }
    return null;
  }

  /** Dotted path of the innermost value, the body's own members first, as field errors name them. */
  private path(): string {
    const decoder = new TextDecoder();
    const parts: string[] = [];
    // The last frame is the offending container itself; each frame above it names where it sits.
    for (let i = 0; i < this.frames.length - 1; i++) {
      const f = this.frames[i]!;
      parts.push(f.array ? String(f.index) : decoder.decode(new Uint8Array(f.key)));
    }
    return parts.join('.');
  }
}
