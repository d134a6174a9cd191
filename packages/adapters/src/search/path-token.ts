/**
 * A field path as one token the unicode61 tokenizer keeps whole: letters a-y and digits as they
 * are, anything else (`.`, `_`, `z`, capitals) as `z` and four hex digits, so no two paths share
 * a token. The leading `0z` keeps path tokens apart from the words of any letter's slice of the vocabulary;
 * the engines index them in a field of their own, for `_exists_:`.
 */
import { keptUpTo } from './kept-up-to.ts';

/** Starts every path token, and no word a plain-text column holds apart from those the user wrote so. */
export const PATH_TOKEN_PREFIX = '0z';

/**
 * Text as characters the unicode61 tokenizer keeps in one token, each UTF-16 unit outside a-y and
 * digits as `z` and four hex digits: a code no encoding is the start of another's, so one text
 * starts with another exactly when their encodings do (a prefix query on encodings is one on
 * the texts).
 */
export const encodeToken = (text: string): string => (/^[a-y0-9]*$/.test(text) ? text : text.replace(/[^a-y0-9]/g, (c) => `z${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

const encode = (path: string): string => `${PATH_TOKEN_PREFIX}${encodeToken(path)}`;

/**
 * Documents share their few dozen paths, and encoding each again cost a create about 20 µs (a
 * replace with a callback per path). Paths are kept up to a bound: custom fields' keys are the
 * depositor's, and a stream of new ones must not grow the memory.
 */
const tokens = keptUpTo<string>(4_096);

export const pathToken = (path: string): string => tokens(path, encode);
