import { describe, expect, it } from 'vitest';
import { BodyBudgetExceeded, createBodyBudget, type BudgetRefusal } from './body-budget.ts';

const refusal = (f: () => void): BudgetRefusal | null => {
  try {
    f();
    return null;
  } catch (e) {
    if (e instanceof BodyBudgetExceeded) return e.reason;
    throw e;
  }
};

describe('the body budget', () => {
  it('refuses a client past its share (per_client) and the server past its whole (total), and takes again once bodies are done', () => {
    const refused: BudgetRefusal[] = [];
    const budget = createBodyBudget({ total: 100, perClient: 60 }, (r) => refused.push(r));
    const a1 = budget.hold('203.0.113.1');
    a1.take(50);
    const a2 = budget.hold('203.0.113.1');
    expect(refusal(() => a2.take(20))).toBe('per_client');
    const b = budget.hold('203.0.113.2');
    b.take(40);
    expect(budget.held()).toBe(90);
    const c = budget.hold('203.0.113.3');
    expect(refusal(() => c.take(20))).toBe('total');
    expect(refused).toEqual(['per_client', 'total']);
    a1.release();
    expect(budget.held()).toBe(40);
    expect(refusal(() => c.take(20))).toBeNull();
    expect(refusal(() => a2.take(35))).toBeNull();
    expect(budget.held()).toBe(95);
  });

  it('lets a body through whole when nothing else is held, even one larger than the bounds', () => {
    const budget = createBodyBudget({ total: 10, perClient: 5 });
    const only = budget.hold('203.0.113.1');
    only.take(64);
    only.take(64);
    expect(budget.held()).toBe(128);
    expect(refusal(() => budget.hold('203.0.113.9').take(1))).toBe('total');
  });

  it('counts an IPv6 client by its /64, and gives back exactly what each request took', () => {
    const budget = createBodyBudget({ total: null, perClient: 10 });
    budget.hold('2001:db8:1:2::1').take(8);
    const other = budget.hold('2001:db8:1:2::ffff');
    expect(refusal(() => other.take(4))).toBe('per_client');
    const elsewhere = budget.hold('2001:db8:1:3::1');
    elsewhere.take(8);
    elsewhere.release();
    elsewhere.release();
    expect(budget.held()).toBe(8);
  });

  it('holds nothing without bounds', () => {
    const budget = createBodyBudget({ total: null, perClient: null });
    const hold = budget.hold(undefined);
    hold.take(10 * 1024 ** 3);
    expect(refusal(() => budget.hold(undefined).take(10 * 1024 ** 3))).toBeNull();
  });
});
