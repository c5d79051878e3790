import { describe, expect, it } from 'vitest';
import { createInFlightLimit } from '../infra/in-flight-limit.js';

/** A call that resolves when the test says so, recording when it started. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { done, open };
}

describe('createInFlightLimit', () => {
  it('keeps the weight in flight within the budget, grants in call order, and lets an oversized call run alone', async () => {
    const limit = createInFlightLimit(10);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const call = (name: string, weight: number) => {
      const g = gate();
      gates.set(name, g);
      return limit.run(weight, async () => {
        started.push(name);
        expect(limit.inFlight).toBeLessThanOrEqual(name === 'big' ? 25 : 10);
        await g.done;
        return name;
      });
    };
    const a = call('a', 6);
    const b = call('b', 4);
    const c = call('c', 3); // waits: 6 + 4 + 3 > 10
    const big = call('big', 25); // waits behind c, then runs alone
    const d = call('d', 1); // behind big though it would fit now: first come, first served
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    expect(limit.waiting).toBe(3);
    gates.get('a')!.open();
    expect(await a).toBe('a');
    expect(limit.waiting).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('b')!.open();
    gates.get('c')!.open();
    await Promise.all([b, c]);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c', 'big']);
    expect(limit.inFlight).toBe(25);
    gates.get('big')!.open();
    await big;
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c', 'big', 'd']);
    gates.get('d')!.open();
    await d;
    expect(limit.inFlight).toBe(0);
    expect(limit.waiting).toBe(0);
  });

  it('frees the weight of a call that fails', async () => {
    const limit = createInFlightLimit(1);
    await expect(limit.run(1, async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(limit.inFlight).toBe(0);
    expect(await limit.run(1, async () => 'next')).toBe('next');
  });
});
