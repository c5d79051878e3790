import { describe, expect, it } from 'vitest';
import { addressKey, FixedWindows } from '../api/http/rate-limit.js';

describe('addressKey', () => {
  it('keeps IPv4 addresses, also when mapped into IPv6', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 caller per /56, however its address is written', () => {
    expect(addressKey('2001:db8:abcd:12ff:1::1')).toBe('2001:db8:abcd:1200::/56');
    expect(addressKey('2001:0db8:abcd:1234:ffff:ffff:ffff:ffff')).toBe('2001:db8:abcd:1200::/56');
    expect(addressKey('2001:db8:abcd:1300::1')).not.toBe(addressKey('2001:db8:abcd:1200::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/56');
  });
});

describe('FixedWindows', () => {
  it('counts per caller within a window and starts again in the next', () => {
    const w = new FixedWindows(1000);
    expect(w.hit('a', 10_100).count).toBe(1);
    expect(w.hit('a', 10_900).count).toBe(2);
    expect(w.hit('b', 10_900).count).toBe(1);
    const next = w.hit('a', 11_000);
    expect(next).toEqual({ start: 11_000, count: 1 });
  });
});
