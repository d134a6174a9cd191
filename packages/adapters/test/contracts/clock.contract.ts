import { describe, expect, it } from 'vitest';
import type { Clock } from '@krs/domain';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function clockContract(name: string, make: () => Clock): void {
  describe(`clock contract: ${name}`, () => {
    it('tells ISO 8601 UTC time that never goes backwards', () => {
      const clock = make();
      const readings = Array.from({ length: 100 }, () => clock.now());
      for (const r of readings) {
        expect(r).toMatch(ISO_UTC);
        expect(Number.isNaN(Date.parse(r))).toBe(false);
      }
      expect([...readings].sort()).toEqual(readings);
    });
  });
}
