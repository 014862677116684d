import { describe, expect, it } from 'vitest';
import { ipEntryWithin, settingsBeyond } from '../../src/api-keys/api-key-bounds.js';
import { ipAllowList } from '../../src/auth/index.js';

/**
 * Whether an address list entry lies within a calling key's list: every
 * address it allows is allowed by one of its entries, in IPv4 and IPv6
 * (written in any of IPv6's forms). The API tests (test/api-keys/api-key-bounds)
 * run the rule end to end; these pin the address arithmetic.
 */

describe('an allowedIPs entry within a calling key\'s list', () => {
  it.each([
    ['127.0.0.1', ['127.0.0.0/8']],
    ['127.0.0.0/8', ['127.0.0.0/8']],
    ['10.1.2.0/24', ['10.0.0.0/8', '192.0.2.1']],
    ['10.1.2.3/24', ['10.1.2.0/24']],
    ['192.0.2.1', ['192.0.2.1']],
    ['2001:db8::1', ['2001:db8::/32']],
    ['2001:db8:0:0:0:0:0:1', ['2001:db8::1']],
    ['2001:db8:ab::/48', ['2001:db8::/32']],
    ['2001:db8::1:102:304', ['2001:db8::/80']],
    ['64:ff9b::1.2.3.4', ['64:ff9b::/96']],
    ['::1', ['::1']],
  ])('%s lies within %j', (entry, list) => {
    expect(ipEntryWithin(entry, list)).toBe(true);
  });

  it.each([
    ['127.0.0.0/7', ['127.0.0.0/8']],
    ['10.0.0.0/8', ['10.0.0.0/9', '10.128.0.0/9']],
    ['192.0.2.2', ['192.0.2.1']],
    ['2001:db8::/31', ['2001:db8::/32']],
    ['2001:db9::1', ['2001:db8::/32']],
    ['1.2.3.4', ['::/0']],
    ['::1', ['0.0.0.0/0']],
    ['not an address', ['0.0.0.0/0']],
  ])('%s does not lie within %j', (entry, list) => {
    expect(ipEntryWithin(entry, list)).toBe(false);
  });

  it('agrees with the credential\'s own allow-list on single addresses', () => {
    const list = ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'];
    for (const address of ['10.255.0.1', '11.0.0.1', '2001:db8::ff', '2001:db9::', '192.0.2.7', '192.0.2.8']) {
      expect(ipEntryWithin(address, list), address).toBe(ipAllowList(list).allows(address));
    }
  });
});

describe('settings beyond a calling key', () => {
  const calling = { expiresAt: new Date('2030-01-01T00:00:00Z'), rateLimit: 10, allowedIPs: ['10.0.0.0/8'], allowedOrigins: ['https://a.test'] };

  it('names nothing for settings equal to the calling key\'s', () => {
    expect(settingsBeyond(calling, calling)).toEqual([]);
  });

  it('counts an unbounded setting (no expiry, an empty list) as beyond a bounded one', () => {
    const fields = settingsBeyond(calling, { expiresAt: null, rateLimit: 10, allowedIPs: [], allowedOrigins: [] }).map((error) => error.field);
    expect(fields).toEqual(['expiresAt', 'allowedIPs', 'allowedOrigins']);
  });

  it('bounds nothing the calling key leaves unbounded', () => {
    const open = { expiresAt: null, rateLimit: 1_000_000, allowedIPs: [], allowedOrigins: [] };
    expect(settingsBeyond(open, { expiresAt: null, rateLimit: 1_000_000, allowedIPs: [], allowedOrigins: [] })).toEqual([]);
  });
});
