import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './address.js';

describe('outbound address policy', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '224.0.0.1'])(
    'refuses %s',
    (a) => expect(isPublicAddress(a)).toBe(false),
  );
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (a) => expect(isPublicAddress(a)).toBe(true));
  it('refuses what is not an address', () => expect(isPublicAddress('example.com')).toBe(false));
});
