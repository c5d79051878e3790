import { describe, expect, it } from 'vitest';
import { admit, afterAttempt, CLOSED, PROBE_RECHECK_MS, releaseAt, shouldDisable, targetAfterAttempt } from './circuit.js';

const OPEN = 300_000;

describe('circuit per URL', () => {
  it('opens after 3 consecutive failures and defers until it reopens', () => {
    let s = CLOSED;
    s = afterAttempt(s, false, 10, OPEN);
    s = afterAttempt(s, false, 20, OPEN);
    expect(releaseAt(s, 25)).toBe(25);
    s = afterAttempt(s, false, 30, OPEN);
    expect(releaseAt(s, 40)).toBe(30 + OPEN);
    expect(releaseAt(s, 30 + OPEN)).toBe(30 + OPEN);
  });

  it('a success in between resets the count', () => {
    let s = afterAttempt(afterAttempt(CLOSED, false, 1, OPEN), false, 2, OPEN);
    s = afterAttempt(s, true, 3, OPEN);
    s = afterAttempt(afterAttempt(s, false, 4, OPEN), false, 5, OPEN);
    expect(releaseAt(s, 6)).toBe(6);
  });

  it('after the open period a failure opens it again at once, a success closes it', () => {
    let s = CLOSED;
    for (const t of [1, 2, 3]) s = afterAttempt(s, false, t, OPEN);
    const reopened = afterAttempt(s, false, 3 + OPEN, OPEN);
    expect(releaseAt(reopened, 4 + OPEN)).toBe(3 + 2 * OPEN);
    expect(afterAttempt(s, true, 3 + OPEN, OPEN)).toEqual(CLOSED);
  });

  it('half open, lets one probe through while the others wait', () => {
    let s = CLOSED;
    for (const t of [1, 2, 3]) s = afterAttempt(s, false, t, OPEN);
    const t = 3 + OPEN;
    const probe = admit(s, t, 10_000);
    expect(probe.at).toBe(t);
    const other = admit(probe.state, t + 5, 10_000);
    expect(other.at).toBe(t + 5 + PROBE_RECHECK_MS);
    expect(admit(probe.state, t + 10_000, 10_000).at).toBe(t + 10_000);
    expect(admit(afterAttempt(probe.state, true, t + 50, OPEN), t + 60, 10_000).at).toBe(t + 60);
  });

  it('closed, admits every attempt', () => {
    expect(admit(afterAttempt(CLOSED, false, 1, OPEN), 2, 10_000)).toEqual({ at: 2, state: afterAttempt(CLOSED, false, 1, OPEN) });
  });
});

describe('target disable rule', () => {
  it('disables after failing without success for the whole period; a success clears it', () => {
    let h = targetAfterAttempt({ failingSince: null }, false, 100);
    h = targetAfterAttempt(h, false, 500);
    expect(shouldDisable(h, 500, 1000)).toBe(false);
    expect(shouldDisable(targetAfterAttempt(h, false, 1100), 1100, 1000)).toBe(true);
    expect(targetAfterAttempt(h, true, 1100)).toEqual({ failingSince: null });
  });
});
