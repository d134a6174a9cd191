import { describe, expect, it } from 'vitest';
import { createFixedClock, createSequentialIds } from '@krs/domain/testing';
import { createNanoidIds, createSystemClock } from '../src/index.ts';
import { clockContract } from './contracts/clock.contract.ts';
import { idGeneratorContract } from './contracts/id-generator.contract.ts';

idGeneratorContract('nanoid', createNanoidIds);
idGeneratorContract('sequential', createSequentialIds);
clockContract('system', createSystemClock);
clockContract('fixed', () => createFixedClock());

describe('fixed clock', () => {
  it('starts where told and moves only by its own ticks and advance()', () => {
    const clock = createFixedClock('2026-03-01T10:00:00.000Z');
    expect(clock.now()).toBe('2026-03-01T10:00:00.000Z');
    clock.advance(60_000);
    expect(clock.now()).toBe('2026-03-01T10:01:00.001Z');
  });
});

describe('sequential ids', () => {
  it('repeats the same sequence in every instance', () => {
    const a = createSequentialIds();
    const b = createSequentialIds();
    expect([a.recordId(), a.uuid(), a.secret()]).toEqual([b.recordId(), b.uuid(), b.secret()]);
  });
});
