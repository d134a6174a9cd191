/**
 * A long text as UTF-8 bytes in parts, each with a buffer of its own: what crosses to the index
 * writer's thread in a transfer list instead of being cloned. Posting the largest legal record's
 * prepared document (3.3 M characters of body, text and shapes) cloned it in the main thread's
 * turn, 10-34 ms of CPU; encoded a part at a time between turns and transferred, the post is
 * only the parts' handles.
 */
const CHARS_PER_PART = 64 * 1024;

/** A text shorter than this crosses as it is: cloning it is cheaper than a turn. */
export const LONG_TEXT = CHARS_PER_PART;

const encoder = new TextEncoder();
/** With the `u` flag a surrogate pair is one code point: this matches a lone surrogate only. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The parts, or null when the text holds a lone surrogate: UTF-8 would store it as U+FFFD, where
 * better-sqlite3 binding the string itself stores other bytes, and the stored text must not
 * depend on how it crossed. A part never ends between the two halves of a pair.
 */
export async function utf8Parts(text: string, takeTurn: () => Promise<void>): Promise<Uint8Array<ArrayBuffer>[] | null> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let start = 0; start < text.length; ) {
    await takeTurn();
    let end = Math.min(start + CHARS_PER_PART, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const slice = text.slice(start, end);
    if (LONE_SURROGATE.test(slice)) return null;
    parts.push(encoder.encode(slice));
    start = end;
  }
  return parts;
}
