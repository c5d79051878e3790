import { describe, expect, it } from 'vitest';
import { codeHash, codeMatches, formatCode } from './challenge.js';
import { failureMessage } from '../one-time-codes.js';

describe('one-time codes', () => {
  it('are 6 digits', () => {
    expect(formatCode(42)).toBe('000042');
    expect(formatCode(999_999)).toBe('999999');
  });

  it('are kept as hashes salted by the challenge', () => {
    const h = codeHash('c1', '123456');
    expect(h).not.toContain('123456');
    expect(codeHash('c2', '123456')).not.toBe(h);
    expect(codeMatches('c1', '123456', h)).toBe(true);
    expect(codeMatches('c1', '123457', h)).toBe(false);
    expect(codeMatches('c2', '123456', h)).toBe(false);
  });

  it('say why they were refused, with the attempts left', () => {
    expect(failureMessage('mismatch', 3)).toBe('wrong code: 3 attempts left');
    expect(failureMessage('mismatch', 1)).toBe('wrong code: 1 attempt left');
    expect(failureMessage('mismatch', 0)).toMatch(/no attempts left/);
    expect(failureMessage('used', 0)).toMatch(/already used/);
    expect(failureMessage('expired', 0)).toMatch(/expired/);
  });
});
