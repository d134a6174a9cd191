/**
 * A field path as one token the unicode61 tokenizer keeps whole: letters a-y and digits as they
 * are, anything else (`.`, `_`, `z`, capitals) as `z` and four hex digits, so no two paths share
 * a token. The leading `0z` keeps path tokens apart from the words of any letter's slice of the vocabulary;
 * the engines index them in a field of their own, for `_exists_:`.
 */
export const pathToken = (path: string): string => `0z${path.replace(/[^a-y0-9]/g, (c) => `z${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`;

