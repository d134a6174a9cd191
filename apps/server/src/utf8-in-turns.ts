/**
 * A long text as UTF-8 bytes, encoded a slice at a time with the event loop given back between
 * slices. Handed a string, @hono/node-server measures its bytes (`Buffer.byteLength`) and the
 * socket encodes it again, in the same turn as the serialisation before them: for the largest
 * legal record's answer (1.8 MB of JSON) one block of 20-50 ms. Handed bytes, it does neither.
 * The bytes are those of `Buffer.from(text)`: slices never split a surrogate pair.
 */
const CHARS_PER_TURN = 64 * 1024;

export async function utf8InTurns(text: string, takeTurn: () => Promise<void>): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for (let start = 0; start < text.length; ) {
    // Every slice in a turn of its own, the first too: the serialisation before it had its turn.
    await takeTurn();
    let end = Math.min(start + CHARS_PER_TURN, text.length);
    // A high surrogate at the end of a slice goes with its low surrogate into the next one.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const part = Buffer.from(text.slice(start, end), 'utf8');
    parts.push(part);
    bytes += part.byteLength;
    start = end;
  }
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
