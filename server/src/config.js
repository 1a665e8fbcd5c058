// Settings of the control plane with their defaults; `shield serve` maps its flags here.
// Every number is a limit a careful operator may want to move, so none is buried in a route.

/**
 * @typedef {{
 *   port: number, host: string, dataDir: string, tlsCert?: string, tlsKey?: string, https: boolean,
 *   publicUrl?: string, trustProxy?: number | string | string[], retentionDays: number,
 *   ownerEmail: string,
 *   ingest: { maxBytes: number, maxInflated: number }, findings: { maxBytes: number, maxInflated: number },
 *   maxClockSkewMs: number, sessionTtlS: number, accessTokenTtlS: number, deviceCodeTtlS: number, devicePollS: number,
 *   ipRate: { rate: number, burst: number }, keyRate: { rate: number, burst: number }, loginRate: { rate: number, burst: number }, loginIpRate: { rate: number, burst: number }, loginEmailRate: { rate: number, burst: number },
 *   deviceRate: { rate: number, burst: number }, codeGuessRate: { rate: number, burst: number }, maxPendingDeviceCodes: number, maxIngestInFlight: number, maxFindingsInFlight: number,
 *   fleetStaleS: number, retentionSweepS: number, synchronous: 'FULL' | 'NORMAL',
 * }} Config
 */

const MB = 1024 * 1024;
// options without a default
const OPTIONAL = new Set(['tlsCert', 'tlsKey', 'publicUrl', 'trustProxy']);

/** @returns {Config} */
export function defaultConfig() {
  return {
    port: 8787,
    host: '127.0.0.1',
    dataDir: './.shield-data',
    https: false,
    retentionDays: 30,
    ownerEmail: 'owner@shield.local',
    // 1,000 events of ~400 bytes is ~0.4 MB of JSON: these caps leave room and stop abuse.
    ingest: { maxBytes: 4 * MB, maxInflated: 8 * MB },
    findings: { maxBytes: 8 * MB, maxInflated: 32 * MB },
    maxClockSkewMs: 10 * 60_000,
    sessionTtlS: 12 * 3600,
    accessTokenTtlS: 8 * 3600,
    deviceCodeTtlS: 600,
    devicePollS: 5,
    ipRate: { rate: 500, burst: 1000 },
    keyRate: { rate: 200, burst: 400 },
    // failed sign-ins: 10 per (email, address), then one every 90 s; 50 per address, then one
    // every 6 s; 100 per email from anywhere, then one every 10 s
    loginRate: { rate: 1 / 90, burst: 10 },
    loginIpRate: { rate: 1 / 6, burst: 50 },
    loginEmailRate: { rate: 1 / 10, burst: 100 },
    // device codes per address: 10, then one every 30 s; at most 1,000 pending at once
    deviceRate: { rate: 1 / 30, burst: 10 },
    maxPendingDeviceCodes: 1000,
    // wrong user codes on /device: 10 per account and per address, then one a minute
    codeGuessRate: { rate: 1 / 60, burst: 10 },
    // event batches being parsed or stored at once; beyond it ingest answers 503
    maxIngestInFlight: 64,
    // findings uploads being parsed or stored at once (each may inflate to maxInflated)
    maxFindingsInFlight: 2,
    fleetStaleS: 300,
    retentionSweepS: 3600,
    synchronous: 'FULL',
  };
}

/**
 * Defaults overlaid with `options`; a bad value throws a TypeError naming the option.
 * @param {Partial<Config>} options @returns {Config}
 */
export function resolveConfig(options = {}) {
  const defaults = defaultConfig();
  for (const k of Object.keys(options)) {
    if (!(k in defaults) && !OPTIONAL.has(k)) throw new TypeError(`control plane: option "${k}" is not known (see server/src/config.js)`);
  }
  const c = { ...defaults, ...options };
  const int = (name, min, max, v = c[name]) => {
    if (!Number.isInteger(v) || v < min || v > max) throw new TypeError(`control plane: option "${name}" must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
  };
  int('port', 0, 65535);
  int('retentionDays', 1, 3650);
  int('sessionTtlS', 60, 30 * 86400);
  int('accessTokenTtlS', 60, 30 * 86400);
  int('deviceCodeTtlS', 60, 3600);
  int('devicePollS', 1, 60);
  int('maxClockSkewMs', 0, 86_400_000);
  int('fleetStaleS', 1, 86400);
  int('retentionSweepS', 1, 86400);
  int('maxPendingDeviceCodes', 1, 1_000_000);
  int('maxIngestInFlight', 0, 100_000);
  int('maxFindingsInFlight', 0, 1000);
  for (const name of ['ingest', 'findings']) {
    const v = c[name];
    if (v === null || typeof v !== 'object') throw new TypeError(`control plane: option "${name}" must be { maxBytes, maxInflated }`);
    int(`${name}.maxBytes`, 1, 1 << 30, v.maxBytes);
    int(`${name}.maxInflated`, 1, 1 << 30, v.maxInflated);
  }
  for (const name of ['ipRate', 'keyRate', 'loginRate', 'loginIpRate', 'loginEmailRate', 'deviceRate', 'codeGuessRate']) {
    const v = c[name];
    if (v === null || typeof v !== 'object' || !(v.rate > 0) || !Number.isFinite(v.rate) || !(v.burst >= 1) || !Number.isFinite(v.burst)) {
      throw new TypeError(`control plane: option "${name}" must be { rate: tokens per second > 0, burst: >= 1 }`);
    }
  }
  if (typeof c.ownerEmail !== 'string' || c.ownerEmail.indexOf('@') < 1 || c.ownerEmail.length > 320) throw new TypeError('control plane: option "ownerEmail" must be an email address');
  if (typeof c.host !== 'string' || c.host.length === 0) throw new TypeError('control plane: option "host" must be a host name or address');
  if (typeof c.dataDir !== 'string' || c.dataDir.length === 0) throw new TypeError('control plane: option "dataDir" must be a directory path');
  if ((c.tlsCert === undefined) !== (c.tlsKey === undefined)) throw new TypeError('control plane: options "tlsCert" and "tlsKey" go together');
  c.https = c.tlsCert !== undefined || (c.publicUrl?.startsWith('https://') ?? false);
  if (c.publicUrl !== undefined) {
    let u;
    try { u = new URL(c.publicUrl); } catch { u = null; }
    if (u === null || (u.protocol !== 'https:' && u.protocol !== 'http:')) throw new TypeError('control plane: option "publicUrl" must be an http(s) URL');
  }
  if (c.trustProxy !== undefined) checkTrustProxy(c.trustProxy);
  if (c.synchronous !== 'FULL' && c.synchronous !== 'NORMAL') throw new TypeError('control plane: option "synchronous" must be FULL or NORMAL');
  return c;
}

/** @param {string} entry an address, a CIDR or a range name such as `loopback` */
function tooWide(entry) {
  const slash = entry.indexOf('/');
  if (slash < 0) return false;
  const bits = Number(entry.slice(slash + 1));
  return !Number.isInteger(bits) || bits < (entry.includes(':') ? 16 : 8);
}

/**
 * Hops (an integer) or the proxies' addresses/CIDRs (a comma-separated string or an array).
 * `true` is refused: trusting every hop lets any client choose its own address, and with it
 * its rate-limit bucket and ip_hash.
 */
function checkTrustProxy(v) {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0 || v > 32) throw new TypeError('control plane: option "trustProxy" as a number is the count of proxy hops, 0 to 32');
    return;
  }
  const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()) : Array.isArray(v) ? v : null;
  // A proxy is a few known hosts: ranges wider than a /8 (IPv4) or /16 (IPv6), which
  // 0.0.0.0/0 or two halves of it would be, would let clients forge their address.
  if (list !== null && list.some((x) => typeof x === 'string' && tooWide(x))) {
    throw new TypeError('control plane: option "trustProxy" must not trust ranges wider than /8 (IPv4) or /16 (IPv6): that lets clients forge their address');
  }
  if (list === null || list.length === 0 || list.some((x) => typeof x !== 'string' || x.length === 0 || x.length > 64)) {
    throw new TypeError('control plane: option "trustProxy" must be a hop count or the proxies\' addresses or CIDRs (e.g. "127.0.0.1" or "10.0.0.0/8,loopback"); true is refused because it lets clients forge their address');
  }
}
