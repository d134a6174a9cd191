import { describe, expect, it } from 'vitest';
import { makeApp } from '../../test/make-app.ts';
import { UsageError } from './command.ts';
import { gc, gcSummary } from './gc.ts';

describe('krs gc', () => {
  it('reports what it removed', async () => {
    const { core } = await makeApp();
    expect(gcSummary(await core.files.collectGarbage(0))).toBe('removed 0 unreferenced blobs (0 bytes) and 0 interrupted uploads (0 bytes), kept 0; ended 0 uploads untouched for the grace period');
  });

  it('refuses a grace period that is not a whole number before opening anything', async () => {
    await expect(gc.run(['--grace-minutes', 'soon'])).rejects.toThrow(UsageError);
    await expect(gc.run(['--grace-minutes', 'soon'])).rejects.toThrow('--grace-minutes takes a whole number, got "soon"');
    await expect(gc.run(['--grace-minutes'])).rejects.toThrow(UsageError);
  });
});
