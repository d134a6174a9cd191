import { randomUUID } from 'node:crypto';
import type { IdGenerator } from '@krs/domain';
import { customAlphabet, nanoid } from 'nanoid';

/** Crockford base32 in lower case: no i, l, o, u, so ids read aloud without ambiguity. */
const crockford = customAlphabet('0123456789abcdefghjkmnpqrstvwxyz', 10);

export function createNanoidIds(): IdGenerator {
  return {
    recordId: () => {
      const s = crockford();
      return `${s.slice(0, 5)}-${s.slice(5)}`;
    },
    uuid: () => randomUUID(),
    secret: () => nanoid(43),
  };
}
