import { describe, expect, it } from 'vitest';
import type { IdGenerator } from '@krs/domain';

const RECORD_ID = /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const URL_SAFE = /^[A-Za-z0-9_-]+$/;

export function idGeneratorContract(name: string, make: () => IdGenerator): void {
  describe(`id generator contract: ${name}`, () => {
    it('makes record ids of lowercase Crockford base32 as xxxxx-xxxxx, all distinct', () => {
      const ids = make();
      const many = Array.from({ length: 2000 }, () => ids.recordId());
      for (const id of many) expect(id).toMatch(RECORD_ID);
      expect(new Set(many).size).toBe(many.length);
    });

    it('makes version 4 uuids, all distinct', () => {
      const ids = make();
      const many = Array.from({ length: 2000 }, () => ids.uuid());
      for (const id of many) expect(id).toMatch(UUID_V4);
      expect(new Set(many).size).toBe(many.length);
    });

    it('makes url-safe secrets of at least 32 characters, all distinct', () => {
      const ids = make();
      const many = Array.from({ length: 2000 }, () => ids.secret());
      for (const s of many) {
        expect(s).toMatch(URL_SAFE);
        expect(s.length).toBeGreaterThanOrEqual(32);
      }
      expect(new Set(many).size).toBe(many.length);
    });
  });
}
