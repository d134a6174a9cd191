/** The texts `encodeOnce` keeps, by value; read by the encoder in slices (json-in-turns.ts). */
export const keptTexts = new WeakMap<object, string>();
