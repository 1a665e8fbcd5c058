// The client address of a request, and the key per-IP state uses. Forwarded headers are
// trusted only when the app said so: Express's own `trust proxy` setting when the app set
// one (then `req.ip` is the answer), else shield's `trustProxy` option (a hop count or a list
// of proxy addresses and CIDR blocks), else never: the socket's peer address.

import { BlockList, isIP } from 'node:net';
import { detach } from '../bindings/text.js';

/** A hop count (how many proxies in front of the app), or the addresses and CIDR blocks of trusted proxies. */
export type TrustProxy = number | readonly string[];

/** Resolves the client address from the socket peer and the X-Forwarded-For header. */
export type ClientIpResolver = (peer: string, forwardedFor: string | string[] | undefined) => string;

/** Strips the IPv4-mapped prefix (`::ffff:1.2.3.4` is 1.2.3.4), an IPv6 zone, and a port some proxies append (`1.2.3.4:5555`, `[2001:db8::1]:443`). */
export function normalizeIp(ip: string): string {
  let s = ip;
  if (s.charCodeAt(0) === 91) {
    const close = s.indexOf(']');
    if (close > 0) s = s.slice(1, close);
  } else {
    const colon = s.indexOf(':');
    if (colon > 0 && s.indexOf(':', colon + 1) < 0 && isIP(s.slice(0, colon)) === 4) s = s.slice(0, colon);
  }
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (s.length > 7 && s.charCodeAt(0) === 58 && s.slice(0, 7).toLowerCase() === '::ffff:' && isIP(s.slice(7)) === 4) return s.slice(7);
  return s;
}

/** The entries of X-Forwarded-For, nearest proxy last; at most `limit` of them, read right to left. */
function forwardedList(header: string | string[] | undefined, limit: number): string[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join(',') : header;
  const out: string[] = [];
  let end = text.length;
  for (let i = text.length - 1; i >= -1 && out.length < limit; i--) {
    if (i >= 0 && text.charCodeAt(i) !== 44) continue;
    const entry = text.slice(i + 1, end).trim();
    end = i;
    if (entry.length > 0) out.push(entry);
  }
  return out; // nearest first
}

/**
 * Compiles the `trustProxy` option. A number n trusts n proxies: the client is the n-th
 * address counted from the socket peer through X-Forwarded-For (right to left). A list trusts
 * the listed addresses and blocks: the client is the first address, from the peer leftwards,
 * that is not trusted. Throws a TypeError naming the option on anything else.
 */
export function compileTrustProxy(option: TrustProxy): ClientIpResolver {
  if (typeof option === 'number') {
    if (!Number.isInteger(option) || option < 0 || option > 32) throw new TypeError('shield: option "trustProxy" must be a hop count from 0 to 32 or a list of addresses and CIDR blocks');
    const hops = option;
    return (peer, xff) => {
      const peerIp = normalizeIp(peer);
      if (hops === 0) return peerIp;
      const list = forwardedList(xff, hops);
      const pick = list.length === 0 ? peerIp : list[Math.min(hops, list.length) - 1]!;
      const ip = normalizeIp(pick);
      // a copy: a slice would keep the whole X-Forwarded-For header alive wherever the address is kept
      return isIP(ip) === 0 ? peerIp : list.length === 0 ? ip : detach(ip);
    };
  }
  if (!Array.isArray(option)) throw new TypeError('shield: option "trustProxy" must be a hop count or a list of addresses and CIDR blocks');
  const trusted = new BlockList();
  for (const entry of option) {
    if (typeof entry !== 'string') throw new TypeError('shield: option "trustProxy" holds a non-string entry');
    const slash = entry.indexOf('/');
    const addr = normalizeIp(slash < 0 ? entry.trim() : entry.slice(0, slash).trim());
    const family = isIP(addr);
    if (family === 0) throw new TypeError(`shield: option "trustProxy": ${JSON.stringify(entry)} is not an IP address or CIDR block`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash < 0) {
      trusted.addAddress(addr, type);
      continue;
    }
    const digits = entry.slice(slash + 1).trim();
    let ok = digits.length >= 1 && digits.length <= 3;
    for (let i = 0; i < digits.length; i++) if (digits.charCodeAt(i) < 48 || digits.charCodeAt(i) > 57) ok = false;
    const prefix = ok ? Number(digits) : -1; // '' would read as 0: trust everyone
    if (prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
      throw new TypeError(`shield: option "trustProxy": ${JSON.stringify(entry)} has a bad prefix length`);
    }
    trusted.addSubnet(addr, prefix, type);
  }
  const isTrusted = (ip: string): boolean => {
    const family = isIP(ip);
    return family !== 0 && trusted.check(ip, family === 4 ? 'ipv4' : 'ipv6');
  };
  return (peer, xff) => {
    let ip = normalizeIp(peer);
    if (!isTrusted(ip)) return ip;
    for (const entry of forwardedList(xff, 32)) {
      const next = normalizeIp(entry);
      if (isIP(next) === 0) return ip; // a malformed entry: stop at the last address we could read
      ip = detach(next); // a copy, not a slice of the header
      if (!isTrusted(ip)) return ip;
    }
    return ip;
  };
}

/**
 * The key of an address for per-IP state and hashing: IPv4 as it is, IPv6 by its /64
 * (one subscriber usually holds a whole /64, so keying by full address lets one client
 * look like millions).
 */
export function ipKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const groups = expandIPv6(ip);
  if (groups === null) return ip;
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The 8 hex groups of an IPv6 address (lower case, no leading zeros), or null. */
function expandIPv6(ip: string): string[] | null {
  let s = ip.toLowerCase();
  // an embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups
  const dot = s.indexOf('.');
  if (dot >= 0) {
    const colon = s.lastIndexOf(':');
    const v4 = s.slice(colon + 1).split('.').map(Number);
    if (v4.length !== 4) return null;
    s = `${s.slice(0, colon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 2 ? (halves[1] === '' ? [] : halves[1]!.split(':')) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 1) return null;
  const all = [...head, ...new Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  return all.map((g) => Number.parseInt(g, 16).toString(16));
}
