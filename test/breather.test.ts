import { describe, expect, it } from 'vitest';
import { breather } from '../infra/breather.js';

const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('breather', () => {
  it('yields to the event loop on every n-th call only, letting queued callbacks run', async () => {
    const breathe = breather(3);
    let ran = false;
    setImmediate(() => (ran = true));
    expect(breathe()).toBeUndefined();
    expect(breathe()).toBeUndefined();
    expect(ran).toBe(false);
    await breathe();
    expect(ran).toBe(true);
    expect(breathe()).toBeUndefined();
  });

  it('gives loops that yield at once one slice per turn of the event loop, in order', async () => {
    const slices: string[] = [];
    const loop = async (name: string) => {
      const breathe = breather(1);
      for (let i = 0; i < 3; i++) {
        slices.push(`${name}${i}`);
        await breathe();
      }
    };
    // A callback that marks each turn of the event loop, as an arriving request would run.
    let turns = 0;
    let marking = true;
    const mark = () => {
      slices.push(`|${++turns}`);
      if (marking) setImmediate(mark);
    };
    setImmediate(mark);
    const done = Promise.all([loop('a'), loop('b')]);
    await done;
    marking = false;
    await nextLoopTurn();
    // Between two marks there is at most one slice after the first (synchronous) ones.
    const between = slices.join(' ').split(/\|\d+/).slice(1).map((s) => s.trim().split(' ').filter(Boolean).length);
    expect(Math.max(...between)).toBeLessThanOrEqual(1);
    expect(slices.filter((s) => !s.startsWith('|'))).toEqual(expect.arrayContaining(['a0', 'a1', 'a2', 'b0', 'b1', 'b2']));
  });
});
