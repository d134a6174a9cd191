import { describe, expect, it } from 'vitest';
import { makeApp } from '../../test/make-app.ts';
import { gc } from './gc.ts';

describe('krs gc', () => {
  it('reports what it removed, and refuses a grace period that is not a whole number', async () => {
    const { core } = await makeApp();
    expect(await gc(core, ['--grace-minutes', '0'])).toBe('removed 0 unreferenced blobs (0 bytes) and 0 interrupted uploads (0 bytes), kept 0');
    await expect(gc(core, ['--grace-minutes', 'soon'])).rejects.toThrow('--grace-minutes takes a whole number, got "soon"');
    await expect(gc(core, ['--grace-minutes'])).rejects.toThrow('whole number');
  });
});
