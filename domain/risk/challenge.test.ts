import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, codeHash, codeMatches, formatCode, precheck } from './challenge.js';

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

  it('expire and run out of attempts', () => {
    expect(precheck({ expiresAt: 1000, attempts: 0 }, 999)).toBeNull();
    expect(precheck({ expiresAt: 1000, attempts: 0 }, 1000)).toBe('expired');
    expect(precheck({ expiresAt: 1000, attempts: MAX_ATTEMPTS }, 0)).toBe('exhausted');
  });
});
