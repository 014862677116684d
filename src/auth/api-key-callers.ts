import { BlockList, isIP } from 'node:net';
import type { ApiKeyCredentialRecord } from './ports.js';
import type { RequestFacts } from './credentials.js';

// Who may use a key: its allowed IP addresses / CIDR blocks and origins (the check of api-key-check.ts applies them).

/** Why the key's `allowedIPs` (addresses and CIDRs) or `allowedOrigins` refuse this caller, when it lists any; null: allowed. */
export function allowedCallerRefusal(key: Pick<ApiKeyCredentialRecord, 'allowedIPs' | 'allowedOrigins'>, request: Pick<RequestFacts, 'ip' | 'origin'>): string | null {
  if (key.allowedIPs.length > 0 && !allowListOf(key.allowedIPs).allows(request.ip)) {
    return `This API key may not be used from IP address ${normalizeIp(request.ip)}`;
  }
  if (key.allowedOrigins.length > 0 && !(request.origin && key.allowedOrigins.includes(request.origin))) {
    return request.origin ? `This API key may not be used from origin ${request.origin}` : 'This API key may only be used with an allowed Origin';
  }
  return null;
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how Node reports IPv4 on a dual-stack socket) as plain IPv4. */
export function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1] : ip;
}

type IpAllowList = { allows(ip: string): boolean };

/** Allow-lists already built, by their entries: keys are checked on every request. */
const builtAllowLists = new Map<string, IpAllowList>();
const MAX_BUILT_ALLOW_LISTS = 1000;

function allowListOf(entries: readonly string[]): IpAllowList {
  const id = entries.join('\n');
  let list = builtAllowLists.get(id);
  if (!list) {
    if (builtAllowLists.size >= MAX_BUILT_ALLOW_LISTS) builtAllowLists.delete(builtAllowLists.keys().next().value!);
    builtAllowLists.set(id, (list = ipAllowList(entries)));
  }
  return list;
}

/** An allow-list of addresses and CIDR blocks, IPv4 and IPv6. */
export function ipAllowList(entries: readonly string[]): IpAllowList {
  const list = new BlockList();
  for (const entry of entries) {
    const [written, prefix] = entry.split('/');
    const address = normalizeIp(written);
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    // The area validates the list when a key is created; an unreadable entry allows nothing.
    if (!isIP(address)) continue;
    try {
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    } catch {
      // A prefix that does not fit the family (e.g. an IPv4-mapped /104): allows nothing.
    }
  }
  return {
    allows(ip) {
      const address = normalizeIp(ip);
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}
