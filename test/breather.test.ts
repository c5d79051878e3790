import { describe, expect, it } from 'vitest';
import { breather } from '../infra/breather.js';

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
});
