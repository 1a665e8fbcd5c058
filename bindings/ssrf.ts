// Server-side request forgery checks for outbound URLs (issue 3).
//
// validateUrl judges a URL as the WHATWG parser (the one fetch and http.request use) reads it;
// validateUrlAsync also resolves the name; createPinnedLookup / ssrfSafeAgent do the check inside
// the connection itself, so the address that was judged is the address that is dialled.
//
// No Node module is imported at load time: validateUrl runs in any runtime with a WHATWG URL,
// and the Node-only parts fetch dns/http/https through process.getBuiltinModule when first used.

import type { LookupFunction } from 'node:net';
import type { LookupOptions } from 'node:dns';
import type * as HttpModule from 'node:http';
import type * as HttpsModule from 'node:https';

/** Why a URL, host or address was refused; see the table in README ("Outbound URLs"). */
export type UrlRejection =
  | 'invalid'
  | 'scheme'
  | 'no-host'
  | 'userinfo'
  | 'trailing-dot'
  | 'localhost'
  | 'metadata'
  | 'private-ip'
  | 'tunnel-ip'
  | 'host-not-allowed'
  | 'resolves-private'
  | 'resolution-failed';

/** Options of validateUrl: `allowedHosts` (exact names, `*.suffix`, IP literals) and `allowedSchemes`. */
export interface UrlCheckOptions {
  allowedHosts?: readonly string[];
  allowedSchemes?: readonly string[];
}

/** `ok` is true exactly when `reason` is null. */
export interface UrlCheckResult {
  ok: boolean;
  reason: UrlRejection | null;
}

/** One answer of a resolver, as `dns.lookup(..., { all: true })` gives it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to every address it has; injectable so tests need no network. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of validateUrlAsync: those of validateUrl plus an injectable `lookup`. */
export interface AsyncUrlCheckOptions extends UrlCheckOptions {
  lookup?: Resolver;
}

/** validateUrl's verdict plus the addresses the host resolved to (an IP host is its own address). */
export interface AsyncUrlCheckResult extends UrlCheckResult {
  addresses: ResolvedAddress[];
}

/** Options of createPinnedLookup and ssrfSafeAgent. */
export interface PinnedLookupOptions {
  allowedHosts?: readonly string[];
  lookup?: Resolver;
}

/** The error a pinned lookup or safe agent fails a connection with. */
export interface ShieldSsrfError extends Error {
  code: 'ESHIELDSSRF';
  reason: UrlRejection;
  hostname: string;
}

// ------------------------------------------------------------------ blocked ranges (data)

/** The IPv4 ranges validateUrl refuses (reason `private-ip`), as CIDR strings. */
export const BLOCKED_IPV4_RANGES: readonly string[] = Object.freeze([
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host on Linux
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT, also where Alibaba's metadata lives
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, where most cloud metadata services answer
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments (Oracle metadata is 192.0.0.192)
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking, used inside some data centres
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, includes the limited broadcast 255.255.255.255
]);

// Public-looking addresses that are metadata or host-agent endpoints: judged before the ranges so
// the reason says what they are (some, like Azure's wire server, sit outside every private range).
const METADATA_IPV4 = new Set<number>([
  ipv4(169, 254, 169, 254), // AWS, GCP, Azure, DigitalOcean, OpenStack
  ipv4(169, 254, 170, 2), // AWS ECS task metadata
  ipv4(168, 63, 129, 16), // Azure wire server
  ipv4(192, 0, 0, 192), // Oracle Cloud
  ipv4(100, 100, 100, 200), // Alibaba Cloud
]);
const METADATA_IPV6_KEY = 'fd00:ec2:0:0:0:0:0:254'; // AWS IMDS over IPv6

const METADATA_NAMES = new Set([
  'instance-data', // AWS
  'instance-data.ec2.internal',
  'metadata', // GCP (resolves through the search domain)
  'metadata.google.internal',
  'metadata.goog',
]);

// Names that /etc/hosts or the resolver map to loopback on common systems.
const LOCALHOST_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

const SPECIAL_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);
const DEFAULT_SCHEMES: ReadonlySet<string> = new Set(['http', 'https']);

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

const V4_RANGES: ReadonlyArray<{ base: number; mask: number }> = BLOCKED_IPV4_RANGES.map((cidr) => {
  const slash = cidr.indexOf('/');
  const base = parseIPv4Strict(cidr.slice(0, slash))!;
  const len = Number(cidr.slice(slash + 1));
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return { base, mask };
});

// ------------------------------------------------------------------ IP parsing (linear, no regex)

type Ip = { v: 4; n: number } | { v: 6; g: number[] };

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/** Dotted decimal only, each part 0-255 without leading zeros (what resolvers return). */
function parseIPv4Strict(s: string): number | null {
  let value = 0;
  let parts = 0;
  let i = 0;
  const n = s.length;
  while (parts < 4) {
    const start = i;
    let part = 0;
    while (i < n && i - start < 4) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      part = part * 10 + (c - 48);
      i++;
    }
    const len = i - start;
    if (len === 0 || len > 3 || part > 255 || (len > 1 && s.charCodeAt(start) === 48)) return null;
    value = value * 256 + part;
    parts++;
    if (parts < 4) {
      if (i >= n || s.charCodeAt(i) !== 46) return null;
      i++;
    }
  }
  return i === n ? value : null;
}

/**
 * The WHATWG IPv4 number forms (1-4 parts, each decimal, 0-octal or 0x-hex; the last part fills
 * the remaining bytes). The URL parser already folds these for http(s); this covers hosts it
 * leaves alone (opaque hosts of other schemes) so no spelling of an address reaches DNS unjudged.
 */
function parseIPv4Loose(s: string): number | null {
  if (s.length === 0) return null;
  // a unit no IPv4 spelling holds (only digits, '.', 'x' and hex letters): no address, without
  // splitting (a host name fails at its first letter past 'f' as a rule)
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const l = c | 0x20;
    if (!((c >= 48 && c <= 57) || c === 46 || (l >= 97 && l <= 102) || l === 120)) return null;
  }
  const parts = s.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // one trailing dot
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    const v = parseIPv4Part(p);
    if (v === null) return null;
    values.push(v);
  }
  let value = 0;
  for (let k = 0; k < values.length - 1; k++) {
    if (values[k] > 255) return null;
    value = value * 256 + values[k];
  }
  const room = 2 ** (8 * (5 - values.length));
  const last = values[values.length - 1];
  return last < room ? value * room + last : null;
}

/** One part of the WHATWG IPv4 forms: `0x` hex (may be empty), `0`-prefixed octal, or decimal. */
function parseIPv4Part(p: string): number | null {
  if (p.length === 0) return null;
  let radix = 10;
  let i = 0;
  if (p.length >= 2 && p.charCodeAt(0) === 48 && (p.charCodeAt(1) | 0x20) === 120) {
    radix = 16;
    i = 2;
  } else if (p.length >= 2 && p.charCodeAt(0) === 48) {
    radix = 8;
    i = 1;
  }
  let v = 0;
  for (; i < p.length; i++) {
    const d = hexDigit(p.charCodeAt(i));
    if (d < 0 || d >= radix) return null;
    v = v * radix + d;
    if (v > 0xffffffff) return null;
  }
  return v;
}

/** 8 groups of 16 bits, or null. Accepts `::` compression and a dotted IPv4 tail. */
function parseIPv6(s: string): number[] | null {
  const n = s.length;
  if (n < 2 || n > 45) return null;
  const groups: number[] = [];
  let compress = -1;
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return null;
    compress = 0;
    i = 2;
  }
  while (i < n) {
    if (groups.length === 8) return null;
    let v = 0;
    let j = i;
    while (j < n && j - i < 5) {
      const d = hexDigit(s.charCodeAt(j));
      if (d < 0) break;
      v = v * 16 + d;
      j++;
    }
    if (j < n && s.charCodeAt(j) === 46) {
      if (groups.length > 6) return null;
      const v4 = parseIPv4Strict(s.slice(i));
      if (v4 === null) return null;
      groups.push(v4 >>> 16, v4 & 0xffff);
      i = n;
      break;
    }
    if (j === i || j - i > 4) return null;
    groups.push(v);
    i = j;
    if (i === n) break;
    if (s.charCodeAt(i) !== 58) return null;
    i++;
    if (i === n) return null; // a single trailing colon
    if (s.charCodeAt(i) === 58) {
      if (compress >= 0) return null;
      compress = groups.length;
      i++;
    }
  }
  if (compress < 0) return groups.length === 8 ? groups : null;
  if (groups.length > 7) return null;
  const out = groups.slice(0, compress);
  for (let k = groups.length; k < 8; k++) out.push(0);
  for (let k = compress; k < groups.length; k++) out.push(groups[k]);
  return out;
}

/** An IP in a URL hostname: `[v6]`, or any WHATWG IPv4 spelling. */
function hostIp(hostname: string): Ip | null {
  if (hostname.charCodeAt(0) === 91) {
    if (hostname.charCodeAt(hostname.length - 1) !== 93) return null;
    const g = parseIPv6(hostname.slice(1, -1));
    return g ? { v: 6, g } : null;
  }
  const n = parseIPv4Loose(hostname);
  return n === null ? null : { v: 4, n };
}

/** An address as a resolver returns it: strict dotted IPv4 or IPv6 (a `%zone` suffix ignored). */
function resolvedIp(address: unknown): Ip | null {
  if (typeof address !== 'string') return null;
  if (address.indexOf(':') >= 0) {
    const pct = address.indexOf('%');
    const g = parseIPv6(pct >= 0 ? address.slice(0, pct) : address);
    return g ? { v: 6, g } : null;
  }
  const n = parseIPv4Strict(address);
  return n === null ? null : { v: 4, n };
}

function v4Text(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** One spelling per address, for allowlist comparison (IPv6 uncompressed, lowercase). */
function ipKey(ip: Ip): string {
  return ip.v === 4 ? v4Text(ip.n) : ip.g.map((x) => x.toString(16)).join(':');
}

// ------------------------------------------------------------------ address policy

function judgeIPv4(n: number): UrlRejection | null {
  if (METADATA_IPV4.has(n)) return 'metadata';
  for (const r of V4_RANGES) if (((n & r.mask) >>> 0) === r.base) return 'private-ip';
  return null;
}

/**
 * IPv6 is judged by what it really reaches: only global unicast (2000::/3) is public, which
 * covers ::, ::1, fc00::/7, fe80::/10, fec0::/10 and ff00::/8 in one test. Forms that embed an
 * IPv4 address (mapped, translated, NAT64) are judged by that address. 6to4 and Teredo are refused
 * outright (`tunnel-ip`): their traffic leaves through relays we cannot see; when the embedded
 * IPv4 is itself blocked, that reason is given instead.
 */
function judgeIPv6(g: number[]): UrlRejection | null {
  const tail = ((g[6] << 16) | g[7]) >>> 0;
  if (ipKey({ v: 6, g }) === METADATA_IPV6_KEY) return 'metadata';
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0) {
    if (g[4] === 0 && g[5] === 0xffff) return judgeIPv4(tail); // ::ffff:a.b.c.d mapped
    if (g[4] === 0xffff && g[5] === 0) return judgeIPv4(tail); // ::ffff:0:a.b.c.d translated (SIIT)
    return 'private-ip'; // ::, ::1, ::a.b.c.d (deprecated compatible form), the rest of ::/64
  }
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    const zeroMiddle = g[3] === 0 && g[4] === 0 && g[5] === 0;
    if (g[2] === 0 && zeroMiddle) return judgeIPv4(tail); // 64:ff9b::/96, the well-known prefix
    // 64:ff9b:1::/48 is a site's own translator; the embedded address is read only in the /96
    // layout, any other layout is refused since we cannot tell where the address sits.
    if (g[2] === 1 && zeroMiddle) return judgeIPv4(tail);
    return 'private-ip';
  }
  if ((g[0] & 0xe000) !== 0x2000) return 'private-ip';
  if (g[0] === 0x2001 && g[1] === 0) return judgeIPv4((~tail) >>> 0) ?? 'tunnel-ip'; // Teredo client
  if (g[0] === 0x2002) return judgeIPv4(((g[1] << 16) | g[2]) >>> 0) ?? 'tunnel-ip'; // 6to4
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'private-ip'; // documentation, never routed
  return null;
}

function judgeIp(ip: Ip): UrlRejection | null {
  return ip.v === 4 ? judgeIPv4(ip.n) : judgeIPv6(ip.g);
}

// ------------------------------------------------------------------ allowlists

/** @internal A compiled `allowedHosts` list (shared with redirect.ts). */
export interface HostList {
  names: Set<string>;
  suffixes: string[]; // each with its leading dot
  ips: Set<string>;
}

const hostListCache = new WeakMap<readonly string[], { snapshot: string[]; list: HostList }>();

/** @internal Compiles an `allowedHosts` option; throws a TypeError naming `field` on a bad entry. */
export function compileHostList(value: unknown, field: string): HostList {
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array of hostnames`);
  // Options objects are usually built once and passed on every call; reuse the compiled list
  // while the array still holds the same entries (compared, so a mutated array is recompiled).
  const hit = hostListCache.get(value);
  if (hit && hit.snapshot.length === value.length && hit.snapshot.every((e, i) => e === value[i])) return hit.list;
  const list: HostList = { names: new Set(), suffixes: [], ips: new Set() };
  value.forEach((entry: unknown, i: number) => addHostEntry(list, entry, `${field}[${i}]`));
  hostListCache.set(value, { snapshot: value.slice(), list });
  return list;
}

function addHostEntry(list: HostList, entry: unknown, field: string): void {
  if (typeof entry !== 'string' || entry.length === 0) throw new TypeError(`${field} must be a non-empty string`);
  for (let i = 0; i < entry.length; i++) {
    if (entry.charCodeAt(i) <= 0x20 || entry.charCodeAt(i) === 0x7f) {
      throw new TypeError(`${field} contains whitespace or a control character`);
    }
  }
  const wildcard = entry.startsWith('*.');
  const body = wildcard ? entry.slice(2) : entry;
  if (body.indexOf('*') >= 0) throw new TypeError(`${field}: '*' is only allowed as a leading '*.' label`);
  // Unbracketed IPv6 is accepted; anything else with a colon (a port) then fails to parse.
  const hostText = body.indexOf(':') >= 0 && body.charCodeAt(0) !== 91 ? `[${body}]` : body;
  let hostname: string;
  try {
    const u = new URL(`http://${hostText}/`);
    if (u.username || u.password || u.port || u.pathname !== '/' || u.search || u.hash) throw new Error();
    hostname = u.hostname;
  } catch {
    throw new TypeError(`${field} is not a hostname or IP address: ${JSON.stringify(entry)}`);
  }
  if (hostname.endsWith('.')) throw new TypeError(`${field} ends with a dot; list the name without it`);
  const ip = hostIp(hostname);
  if (ip) {
    if (wildcard) throw new TypeError(`${field}: a '*.' wildcard cannot apply to an IP address`);
    list.ips.add(ipKey(ip));
  } else if (wildcard) {
    list.suffixes.push(`.${hostname}`);
  } else {
    list.names.add(hostname);
  }
}

/** @internal True when a canonical (WHATWG) hostname matches the list by name or wildcard. */
export function nameListed(list: HostList, hostname: string): boolean {
  if (list.names.has(hostname)) return true;
  for (const suffix of list.suffixes) {
    if (hostname.length > suffix.length && hostname.endsWith(suffix)) return true;
  }
  return false;
}

/** @internal True when a canonical hostname (name or IP literal) is allowed by the list. */
export function hostListed(list: HostList, hostname: string): boolean {
  const ip = hostIp(hostname);
  return ip ? list.ips.has(ipKey(ip)) : nameListed(list, hostname);
}

// ------------------------------------------------------------------ options

interface Compiled {
  hosts: HostList | null;
  schemes: ReadonlySet<string>;
  resolver: Resolver | null;
}

function compileOptions(options: unknown, fn: string, keys: readonly string[]): Compiled {
  const out: Compiled = { hosts: null, schemes: DEFAULT_SCHEMES, resolver: null };
  if (options === undefined || options === null) return out;
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`${fn}: options must be an object`);
  const o = options as Record<string, unknown>;
  // A misspelt allowlist would silently mean "no allowlist"; refuse unknown keys instead.
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) throw new TypeError(`${fn}: unknown option '${k}' (expected one of ${keys.join(', ')})`);
  }
  if (o.allowedHosts !== undefined) out.hosts = compileHostList(o.allowedHosts, `${fn}: options.allowedHosts`);
  if (o.allowedSchemes !== undefined) out.schemes = compileSchemes(o.allowedSchemes, `${fn}: options.allowedSchemes`);
  if (o.lookup !== undefined) {
    if (typeof o.lookup !== 'function') throw new TypeError(`${fn}: options.lookup must be a function`);
    out.resolver = o.lookup as Resolver;
  }
  return out;
}

function compileSchemes(value: unknown, field: string): ReadonlySet<string> {
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array of scheme names`);
  const set = new Set<string>();
  value.forEach((entry: unknown, i: number) => {
    if (typeof entry !== 'string') throw new TypeError(`${field}[${i}] must be a string`);
    let s = entry.toLowerCase();
    if (s.endsWith(':')) s = s.slice(0, -1);
    let good = s.length > 0 && s.charCodeAt(0) >= 97 && s.charCodeAt(0) <= 122;
    for (let k = 1; good && k < s.length; k++) good = isSchemeChar(s.charCodeAt(k));
    if (!good) throw new TypeError(`${field}[${i}] is not a URL scheme: ${JSON.stringify(entry)}`);
    set.add(s);
  });
  return set;
}

function isSchemeChar(c: number): boolean {
  const l = c | 0x20;
  return (l >= 97 && l <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}

// ------------------------------------------------------------------ URL judgement

/**
 * @internal True when the authority of `input` holds an '@', even an empty userinfo
 * (`http://@host`, `http://:@host`) that the parser drops from `username`. Mirrors the WHATWG
 * reading: tab and newline ignored, special schemes take any run of / and \ before the authority.
 */
export function rawAuthorityHasAt(input: string, scheme: string): boolean {
  const special = SPECIAL_SCHEMES.has(scheme);
  let i = 0;
  const n = input.length;
  while (i < n && input.charCodeAt(i) <= 0x20) i++;
  const next = (): number => {
    while (i < n) {
      const c = input.charCodeAt(i);
      if (c !== 9 && c !== 10 && c !== 13) return c;
      i++;
    }
    return -1;
  };
  while (next() !== 58) {
    if (i >= n) return false;
    i++;
  }
  i++; // past the scheme's ':'
  if (special) {
    for (let c = next(); c === 47 || c === 92; c = next()) i++;
  } else {
    if (next() !== 47) return false;
    i++;
    if (next() !== 47) return false;
    i++;
  }
  for (let c = next(); c !== -1; c = next()) {
    if (c === 64) return true;
    if (c === 47 || c === 63 || c === 35 || (special && c === 92)) return false;
    i++;
  }
  return false;
}

function isLocalhostName(hostname: string): boolean {
  return LOCALHOST_NAMES.has(hostname) || hostname.endsWith('.localhost');
}

/**
 * The rules every host passes, for URLs and for names given to the pinned lookup. An IP host is
 * judged as an address (unless listed exactly); a name by its spelling (unless listed exactly:
 * a wildcard never opens localhost or a metadata name).
 */
function judgeHostname(hostname: string, hosts: HostList | null): UrlRejection | null {
  if (hostname === '') return 'no-host';
  if (hostname.endsWith('.')) return 'trailing-dot';
  const ip = hostIp(hostname);
  if (ip) {
    if (hosts && hosts.ips.has(ipKey(ip))) return null;
    return judgeIp(ip) ?? (hosts ? 'host-not-allowed' : null);
  }
  const exact = hosts !== null && hosts.names.has(hostname);
  if (!exact) {
    if (isLocalhostName(hostname)) return 'localhost';
    if (METADATA_NAMES.has(hostname)) return 'metadata';
  }
  if (hosts && !exact && !nameListed(hosts, hostname)) return 'host-not-allowed';
  return null;
}

export interface UrlVerdict {
  reason: UrlRejection | null;
  hostname: string;
}

function checkUrl(url: unknown, opts: Compiled): UrlVerdict {
  if (typeof url !== 'string') return { reason: 'invalid', hostname: '' };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { reason: 'invalid', hostname: '' };
  }
  const scheme = u.protocol.slice(0, -1);
  if (!opts.schemes.has(scheme)) return { reason: 'scheme', hostname: '' };
  if (u.username !== '' || u.password !== '' || rawAuthorityHasAt(url, scheme)) {
    return { reason: 'userinfo', hostname: '' };
  }
  let hostname = u.hostname;
  if (hostname !== '' && !SPECIAL_SCHEMES.has(scheme)) {
    // Other schemes keep the host opaque (percent escapes, case, number forms untouched);
    // read it as an http host so it gets the same decoding a client connecting to it would do.
    const canonical = canonicalHost(hostname);
    if (canonical === null) return { reason: 'invalid', hostname };
    hostname = canonical;
  }
  return { reason: judgeHostname(hostname, opts.hosts), hostname };
}

function canonicalHost(host: string): string | null {
  const text = host.indexOf(':') >= 0 && host.charCodeAt(0) !== 91 ? `[${host}]` : host;
  try {
    const u = new URL(`http://${text}/`);
    if (u.username || u.password || u.port || u.pathname !== '/' || u.search || u.hash) return null;
    return u.hostname;
  } catch {
    return null;
  }
}

const URL_KEYS = ['allowedHosts', 'allowedSchemes'] as const;
const DEFAULT_OPTIONS: Compiled = { hosts: null, schemes: DEFAULT_SCHEMES, resolver: null };
const ASYNC_KEYS = ['allowedHosts', 'allowedSchemes', 'lookup'] as const;
const PINNED_KEYS = ['allowedHosts', 'lookup'] as const;

/**
 * validateUrl's verdict with the default options, and the host it judged (the WHATWG hostname):
 * for the bindings' scan (ssrf-scan.ts), which needs both from one parse. Not part of the API.
 */
export function defaultUrlVerdict(url: string): UrlVerdict {
  return checkUrl(url, DEFAULT_OPTIONS);
}

/**
 * Whether `url` is safe to fetch from the server: http(s), no userinfo, not localhost, a metadata
 * host, a trailing-dot name or a non-public IP in any spelling. Never throws on `url`.
 */
export function validateUrl(url: unknown, options?: UrlCheckOptions): UrlCheckResult {
  const opts = compileOptions(options, 'validateUrl', URL_KEYS);
  const { reason } = checkUrl(url, opts);
  return { ok: reason === null, reason };
}

/**
 * validateUrl, then resolves the host and refuses when any address is non-public
 * (`resolves-private`) or resolution fails. Rejects only for bad options.
 */
export async function validateUrlAsync(url: unknown, options?: AsyncUrlCheckOptions): Promise<AsyncUrlCheckResult> {
  const opts = compileOptions(options, 'validateUrlAsync', ASYNC_KEYS);
  const verdict = checkUrl(url, opts);
  if (verdict.reason !== null) return { ok: false, reason: verdict.reason, addresses: [] };
  const literal = hostIp(verdict.hostname);
  if (literal) return { ok: true, reason: null, addresses: [{ address: ipKeyText(literal), family: literal.v }] };
  const resolved = await resolveAll(verdict.hostname, opts);
  return { ok: resolved.reason === null, reason: resolved.reason, addresses: resolved.addresses };
}

/** The usual text of an address (IPv6 compressed), as Node prints it. */
function ipKeyText(ip: Ip): string {
  if (ip.v === 4) return v4Text(ip.n);
  // Longest run of zero groups (at least two) becomes '::', as in RFC 5952.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (ip.g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && ip.g[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = ip.g.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

interface Resolution {
  reason: UrlRejection | null;
  addresses: ResolvedAddress[];
  error?: unknown; // what the resolver threw, handed on by the pinned lookup
}

/** Resolves and judges every answer; an answer that is not an IP address fails the whole name. */
async function resolveAll(hostname: string, opts: Compiled): Promise<Resolution> {
  const resolver = opts.resolver ?? defaultResolver();
  if (resolver === null) return { reason: 'resolution-failed', addresses: [] };
  let answers: unknown;
  try {
    answers = await resolver(hostname);
  } catch (error) {
    return { reason: 'resolution-failed', addresses: [], error };
  }
  if (!Array.isArray(answers) || answers.length === 0) return { reason: 'resolution-failed', addresses: [] };
  const addresses: ResolvedAddress[] = [];
  let reason: UrlRejection | null = null;
  for (const a of answers) {
    const address = a !== null && typeof a === 'object' ? (a as { address?: unknown }).address : undefined;
    const ip = resolvedIp(address);
    if (ip === null) return { reason: 'resolution-failed', addresses: [] };
    addresses.push({ address: address as string, family: ip.v });
    const listed = opts.hosts !== null && opts.hosts.ips.has(ipKey(ip));
    if (!listed && judgeIp(ip) !== null) reason = 'resolves-private';
  }
  return { reason, addresses };
}

// ------------------------------------------------------------------ Node-only parts

function builtin<T>(id: string): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.(id) as T | undefined;
}

function defaultResolver(): Resolver | null {
  const dns = builtin<typeof import('node:dns')>('node:dns');
  if (!dns) return null;
  return async (hostname) => {
    const list = await dns.promises.lookup(hostname, { all: true, verbatim: true });
    return list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  };
}

function ssrfError(hostname: string, reason: UrlRejection): ShieldSsrfError {
  const shown = hostname.length > 100 ? `${hostname.slice(0, 100)}...` : hostname;
  const err = new Error(`shield: refused to connect to ${JSON.stringify(shown)}: ${reason}`) as ShieldSsrfError;
  err.code = 'ESHIELDSSRF';
  err.reason = reason;
  err.hostname = hostname;
  return err;
}

function wantedFamily(options: unknown): 0 | 4 | 6 {
  const f = typeof options === 'number' ? options : (options as LookupOptions | undefined)?.family;
  if (f === 4 || f === 'IPv4') return 4;
  if (f === 6 || f === 'IPv6') return 6;
  return 0;
}

/**
 * A `net.LookupFunction` for `http.Agent`, `https.Agent` or undici's `connect.lookup` that
 * resolves, judges every address and hands over exactly the addresses it judged (no rebinding).
 */
export function createPinnedLookup(options?: PinnedLookupOptions): LookupFunction {
  const opts = compileOptions(options, 'createPinnedLookup', PINNED_KEYS);
  const resolver = opts.resolver ?? defaultResolver();
  if (resolver === null) throw new Error('createPinnedLookup: no resolver (pass options.lookup outside Node)');
  const resolveOpts: Compiled = { ...opts, resolver };

  const lookup = (hostname: string, options: unknown, callback?: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as Parameters<LookupFunction>[2];
    const all = typeof options === 'object' && options !== null && (options as LookupOptions).all === true;
    const family = wantedFamily(options);
    // Deliver asynchronously, like dns.lookup; a throwing callback surfaces as an uncaught error.
    const reply = (err: NodeJS.ErrnoException | null, list: ResolvedAddress[]): void =>
      queueMicrotask(() => {
        if (err) cb(err, all ? [] : '', undefined);
        else if (all) cb(null, list);
        else cb(null, list[0].address, list[0].family);
      });

    const host = typeof hostname === 'string' ? canonicalHost(hostname) : null;
    if (host === null) return reply(ssrfError(String(hostname), 'invalid'), []);
    const refusal = judgeHostname(host, opts.hosts);
    if (refusal !== null) return reply(ssrfError(hostname, refusal), []);
    const literal = hostIp(host);
    const pending: Promise<Resolution> = literal
      ? Promise.resolve({ reason: null, addresses: [{ address: ipKeyText(literal), family: literal.v }] })
      : resolveAll(host, resolveOpts);
    pending.then(
      ({ reason, addresses, error }) => {
        if (reason === 'resolution-failed') {
          // The resolver's own error (ENOTFOUND, EAI_AGAIN...) tells clients whether to retry.
          if (error instanceof Error) return reply(error, []);
          const err = new Error(`shield: could not resolve ${JSON.stringify(hostname)}`) as NodeJS.ErrnoException;
          err.code = 'ENOTFOUND';
          return reply(err, []);
        }
        if (reason !== null) return reply(ssrfError(hostname, reason), []);
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) {
          const err = new Error(`shield: ${JSON.stringify(hostname)} has no IPv${family} address`) as NodeJS.ErrnoException;
          err.code = 'ENOTFOUND';
          return reply(err, []);
        }
        reply(null, usable);
      },
      (err: unknown) => reply(err instanceof Error ? err : new Error(String(err)), []),
    );
  };
  return lookup as LookupFunction;
}

/**
 * `{ http, https }` agents that connect only through createPinnedLookup and also refuse IP-literal
 * hosts (which Node dials without any lookup). `agentOptions` go to both agents unchanged.
 */
export function ssrfSafeAgent(
  options?: PinnedLookupOptions & { agentOptions?: HttpModule.AgentOptions & HttpsModule.AgentOptions },
): { http: HttpModule.Agent; https: HttpsModule.Agent } {
  const http = builtin<typeof HttpModule>('node:http');
  const https = builtin<typeof HttpsModule>('node:https');
  if (!http || !https) throw new Error('ssrfSafeAgent: needs Node (node:http and node:https)');
  let agentOptions: object = {};
  let lookupOptions: PinnedLookupOptions | undefined = options;
  if (options !== undefined && options !== null && typeof options === 'object' && 'agentOptions' in options) {
    const { agentOptions: given, ...rest } = options;
    if (given !== undefined && (given === null || typeof given !== 'object')) {
      throw new TypeError('ssrfSafeAgent: options.agentOptions must be an object');
    }
    agentOptions = given ?? {};
    lookupOptions = rest;
  }
  const hosts = compileOptions(lookupOptions, 'ssrfSafeAgent', PINNED_KEYS).hosts;
  const lookup = createPinnedLookup(lookupOptions);

  // The lookup never runs for an IP host, so the agents judge those before dialling.
  const refuseLiteral = (connectOptions: { host?: string | null; hostname?: string | null }): Error | null => {
    const raw = connectOptions.host ?? connectOptions.hostname ?? 'localhost';
    const host = canonicalHost(raw);
    if (host === null) return ssrfError(raw, 'invalid');
    if (!hostIp(host)) return null;
    const reason = judgeHostname(host, hosts);
    return reason === null ? null : ssrfError(raw, reason);
  };
  type Cb = (err: Error | null, stream: import('node:stream').Duplex) => void;
  const guard = (agent: HttpModule.Agent): void => {
    const original = agent.createConnection.bind(agent);
    agent.createConnection = (connectOptions: HttpModule.ClientRequestArgs, cb?: Cb) => {
      const err = refuseLiteral(connectOptions);
      if (err) {
        queueMicrotask(() => cb?.(err, undefined as never));
        return undefined;
      }
      return original(connectOptions, cb);
    };
  };
  const pair = {
    http: new http.Agent({ ...agentOptions, lookup }),
    https: new https.Agent({ ...agentOptions, lookup }),
  };
  guard(pair.http);
  guard(pair.https);
  return pair;
}
