import type { IdGenerator } from '../ports.ts';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function base32(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = (ALPHABET[n % 32] ?? '0') + out;
    n = Math.floor(n / 32);
  }
  return out;
}

/** Predictable ids of the production shapes, for tests. */
export function createSequentialIds(): IdGenerator {
  let n = 0;
  return {
    recordId: () => {
      const s = base32(++n, 10);
      return `${s.slice(0, 5)}-${s.slice(5)}`;
    },
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    secret: () => `secret-${String(++n).padStart(8, '0')}-${base32(n * 7919, 20)}`,
  };
}
