import { describe, expect, it } from 'vitest';
import { PerSecondLimit } from './quotas.js';

describe('per-second limit', () => {
  it('admits up to the limit per key and second, and says how long to wait', () => {
    const l = new PerSecondLimit(5);
    expect(l.admit('a', 3, 10_000)).toBe(0);
    expect(l.admit('a', 2, 10_400)).toBe(0);
    expect(l.admit('a', 1, 10_750)).toBe(250);
    expect(l.admit('b', 5, 10_750)).toBe(0);
    expect(l.admit('a', 6, 11_000)).toBe(1000);
    expect(l.admit('a', 5, 11_000)).toBe(0);
  });
});
