import { describe, expect, it } from 'vitest';
import { ipAllowList, normalizeIp } from '../../src/auth/api-key.strategy.js';

/** allowedIPs: addresses and CIDR blocks, IPv4 and IPv6, IPv4-mapped addresses read as IPv4. */

describe('an IP allow-list', () => {
  const list = ipAllowList(['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::1']);

  it.each([
    ['203.0.113.7', true],
    ['203.0.113.8', false],
    ['10.200.3.4', true],
    ['11.0.0.1', false],
    ['::ffff:10.1.2.3', true],
    ['::ffff:203.0.113.8', false],
    ['2001:db8:1::5', true],
    ['2001:db9::5', false],
    ['::1', true],
    ['not-an-ip', false],
    ['', false],
  ])('%s -> %s', (ip, allowed) => {
    expect(list.allows(ip)).toBe(allowed);
  });

  it('reads an IPv4-mapped IPv6 address as IPv4', () => {
    expect([normalizeIp('::ffff:127.0.0.1'), normalizeIp('::FFFF:10.0.0.1'), normalizeIp('::1')]).toEqual(['127.0.0.1', '10.0.0.1', '::1']);
  });
});

describe('an entry the list cannot read', () => {
  it('allows nothing instead of failing the request', () => {
    const list = ipAllowList(['::ffff:10.0.0.0/104', 'garbage', '10.0.0.0/99']);
    expect([list.allows('10.0.0.1'), list.allows('::1')]).toEqual([false, false]);
  });
});
