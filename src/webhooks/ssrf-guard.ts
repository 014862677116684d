import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may not reach in production: loopback, private
 * (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10, so also the cloud
 * metadata addresses), unspecified, CGNAT 100.64/10, and the IPv4-mapped
 * IPv6 forms of these.
 */
const forbidden = new BlockList();
forbidden.addSubnet('0.0.0.0', 8, 'ipv4');
forbidden.addSubnet('10.0.0.0', 8, 'ipv4');
forbidden.addSubnet('100.64.0.0', 10, 'ipv4');
forbidden.addSubnet('127.0.0.0', 8, 'ipv4');
forbidden.addSubnet('169.254.0.0', 16, 'ipv4');
forbidden.addSubnet('172.16.0.0', 12, 'ipv4');
forbidden.addSubnet('192.168.0.0', 16, 'ipv4');
forbidden.addAddress('::', 'ipv6');
forbidden.addAddress('::1', 'ipv6');
forbidden.addSubnet('fc00::', 7, 'ipv6');
forbidden.addSubnet('fe80::', 10, 'ipv6');

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:xxxx:xxxx) stands for; null otherwise. */
function mappedIPv4(address: string): string | null {
  const match = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!match) return null;
  const rest = match[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return forbidden.check(address, 'ipv4');
  const v4 = mappedIPv4(address);
  if (v4) return forbidden.check(v4, 'ipv4');
  return forbidden.check(address, 'ipv6');
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EWEBHOOKFORBIDDEN';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) requests that resolves every address of the
 * host and refuses when any is forbidden: the check is made on the
 * addresses the connection then uses, so a DNS answer that changes between
 * a check and the connect (rebinding) cannot slip through.
 */
export function guardedLookup(hostname: string, options: { all?: boolean } | number, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (bad) {
      return callback(new ForbiddenAddressError(`refused: ${hostname} resolves to ${bad.address}, a loopback, private or link-local address (WEBHOOK_ALLOW_PRIVATE=true allows it)`), []);
    }
    if (typeof options === 'object' && options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
