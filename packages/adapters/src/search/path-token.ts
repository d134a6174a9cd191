/**
 * A field path as one token the unicode61 tokenizer keeps whole: letters a-y and digits as they
 * are, anything else (`.`, `_`, `z`, capitals) as `z` and four hex digits, so no two paths share
 * a token. The leading `0z` keeps path tokens apart from the words of any letter's slice of the vocabulary;
 * the engines index them in a field of their own, for `_exists_:`.
 */
/** Starts every path token, and no word a plain-text column holds apart from those the user wrote so. */
export const PATH_TOKEN_PREFIX = '0z';

export const pathToken = (path: string): string => `${PATH_TOKEN_PREFIX}${path.replace(/[^a-y0-9]/g, (c) => `z${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`;

