import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may not reach in production: loopback, private
 * (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10, so also the cloud
 * metadata addresses), unspecified, CGNAT 100.64/10, the IETF and
 * benchmarking blocks, multicast, the reserved 240/4 (broadcast among them),
 * the deprecated site-local fec0::/10; and for the IPv6 forms that carry an
 * IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96) that address's verdict.
 * The tunnels whose far end an address does not name for certain (6to4
 * 2002::/16, Teredo 2001::/32) and local-use NAT64 are refused whole.
 */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4');
}
forbidden.addAddress('::', 'ipv6');
forbidden.addAddress('::1', 'ipv6');
for (const [network, prefix] of [
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2002::', 16],
  ['2001::', 32],
  ['64:ff9b:1::', 48],
  ['64:ff9b::', 96], // reached only when its IPv4 part cannot be read
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries in its last 32 bits under `prefix` (::ffff:, 64:ff9b::); null otherwise. */
function embeddedIPv4(address: string, prefix: RegExp): string | null {
  const match = prefix.exec(address);
  if (!match) return null;
  const rest = match[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

const IPV4_MAPPED = /^::ffff:(?:0:)?(.+)$/i;
const NAT64 = /^64:ff9b::(.+)$/i;

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return forbidden.check(address, 'ipv4');
  const v4 = embeddedIPv4(address, IPV4_MAPPED) ?? embeddedIPv4(address, NAT64);
  if (v4) return forbidden.check(v4, 'ipv4');
  return forbidden.check(address, 'ipv6');
}

/** What a refusal says the address is (never which address a name resolved to: that is the network's, not the tenant's). */
export const FORBIDDEN_KINDS = 'a loopback, private, link-local or reserved address';

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
      return callback(new ForbiddenAddressError(`refused: ${hostname} resolves to ${FORBIDDEN_KINDS} (WEBHOOK_ALLOW_PRIVATE=true allows it)`), []);
    }
    if (typeof options === 'object' && options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
