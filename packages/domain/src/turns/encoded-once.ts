/**
 * JSON texts kept beside the values they encode, so that a large record's metadata, encoded for
 * its row, is not encoded again for the answer and the search document that carry the same
 * objects (`stringifyJsonInTurns` splices a kept text where it meets its value near the root).
 * The largest legal record's metadata is 1.8 MB of JSON: each encoding cost 10-12 ms of the main
 * thread and 14 MB of pieces for the young generation to collect.
 *
 * A text is kept only for a value that is never changed afterwards (domain values are immutable:
 * a new state is a new value), and only as long as the value itself is held (a WeakMap).
 */
import { isPlainContainer, PIECES, stringifyJsonInTurns, type Container, type Pieces } from './json-in-turns.ts';
import { keptTexts } from './kept-texts.ts';
import type { Slicing } from './time-slices.ts';

/**
 * `value`'s JSON text, kept for it and for each of its members that is an object or an array:
 * a copy that shares some members (metadata without e-mail addresses, as the search document
 * holds it) has those spliced too. Encodes only what is not kept already.
 */
export async function encodeOnce(value: Container, slicing: Slicing): Promise<string> {
  const kept = keptTexts.get(value);
  if (kept !== undefined) return kept;
  if (!isPlainContainer(value)) return stringifyJsonInTurns(value, slicing);
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) parts.push(await memberText(value[i], slicing, true));
  } else {
    for (const key of Object.keys(value)) {
      const text = await memberText(value[key], slicing, false);
      if (text !== '') parts.push(`${JSON.stringify(key)}:${text}`);
    }
  }
  const text = Array.isArray(value) ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
  keptTexts.set(value, text);
  return text;
}

/**
 * A member is encoded as the encoder would encode it in place, a level below the root: member by
 * member only itself and what is heavy, the rest by native calls (encoded as a root, each of its
 * items and their members were pieces of their own, half as slow again).
 */
const MEMBER_PIECES: Pieces = { ...PIECES, levels: 1 };

/** A member's text ('' for one an object leaves out, `null` for one an array writes as null), kept when it is a container. */
async function memberText(member: unknown, slicing: Slicing, inArray: boolean): Promise<string> {
  if (isPlainContainer(member)) {
    const kept = keptTexts.get(member);
    if (kept !== undefined) return kept;
    const text = await stringifyJsonInTurns(member, slicing, MEMBER_PIECES);
    keptTexts.set(member, text);
    return text;
  }
  if (slicing.due()) await slicing.turn();
  return JSON.stringify(member) ?? (inArray ? 'null' : '');
}
