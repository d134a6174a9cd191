import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { as, makeCore } from './make-core.ts';
import { batches, expectConsistent, RANDOM_SEED, runBatches, runsTimes, STEPS_THAT_MUST_HAPPEN } from './random-operations.ts';

describe("random sequences of depositors' steps (in-memory stores)", () => {
  it('fail only with domain errors, and leave the files, the index and every listing consistent', async () => {
    const done = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(batches(20), async (plan) => {
        const { core } = makeCore({ settings: { maxFiles: 2 } });
        const people = { owner: as('alice'), other: as('bob') };
        const known = await runBatches([core], people, plan);
        await expectConsistent(core, people, known.ids);
        for (const [op, n] of known.done) done.set(op, (done.get(op) ?? 0) + n);
      }),
      { seed: RANDOM_SEED, numRuns: runsTimes(300), endOnFailure: true },
    );
    // The runs reached what they are about: files kept across versions, packages, links.
    for (const op of STEPS_THAT_MUST_HAPPEN) expect(done.get(op) ?? 0, op).toBeGreaterThan(0);
  }, 600_000);
});
