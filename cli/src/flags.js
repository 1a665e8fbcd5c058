// Parsers for commander's argParser: each turns a flag's text into its value or throws
// InvalidArgumentError with a sentence that names the flag, which commander prints after
// "option ... is invalid" and main.js turns into exit code 2.
import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';

/**
 * A decimal integer in [min, max].
 * @param {string} flag @param {number} min @param {number} max
 * @returns {(value: string) => number}
 */
export function intFlag(flag, min, max) {
  return (value) => {
    const n = /^[0-9]{1,10}$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}.`);
    return n;
  };
}

/** @param {string} flag @returns {(value: string) => string} */
export function nonEmptyFlag(flag) {
  return (value) => {
    if (value.trim() === '') throw new InvalidArgumentError(`${flag} must not be empty.`);
    return value;
  };
}

/** An absolute http(s) URL, as the users' browsers and SDKs will see the service. */
export function publicUrlFlag(value) {
  let u;
  try { u = new URL(value); } catch { u = null; }
  if (u === null || (u.protocol !== 'https:' && u.protocol !== 'http:')) throw new InvalidArgumentError('--public-url must be an absolute http:// or https:// URL, such as https://shield.example.com.');
  if (u.search !== '' || u.hash !== '') throw new InvalidArgumentError('--public-url must not have a query or fragment.');
  return value.replace(/\/+$/, '');
}

// Names Express (proxy-addr) understands for whole private ranges.
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `--trust-proxy`: a hop count (how many proxies in front append to X-Forwarded-For), or a
 * comma-separated list of proxy addresses, CIDR blocks and the names loopback, linklocal,
 * uniquelocal. `true` (trust everyone) is refused on purpose: it lets any client choose the
 * address it is rate-limited and recorded under.
 * @returns {number | string[]}
 */
export function trustProxyFlag(value) {
  const v = value.trim();
  if (/^[0-9]{1,3}$/.test(v)) {
    const hops = Number(v);
    if (hops > 32) throw new InvalidArgumentError('--trust-proxy hop count must be from 0 to 32.');
    return hops;
  }
  if (v === 'true' || v === '*' || v.split(',').some((s) => s.trim() === '0.0.0.0/0' || s.trim() === '::/0')) throw new InvalidArgumentError('--trust-proxy does not accept "true" or a range of every address: trusting every sender lets any client forge its address; give the hop count (1 for one proxy) or the proxy addresses.');
  const items = v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new InvalidArgumentError('--trust-proxy must be a hop count (1) or a comma-separated list of proxy addresses and CIDR blocks.');
  for (const item of items) {
    if (RANGE_NAMES.has(item)) continue;
    const slash = item.indexOf('/');
    const ip = slash < 0 ? item : item.slice(0, slash);
    const family = isIP(ip);
    const prefix = slash < 0 ? '' : item.slice(slash + 1);
    const prefixOk = slash < 0 || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
    if (family === 0 || !prefixOk) {
      throw new InvalidArgumentError(`--trust-proxy: ${JSON.stringify(item)} is not an IP address, a CIDR block (10.0.0.0/8) or one of loopback, linklocal, uniquelocal; use a number for a hop count.`);
    }
  }
  return items;
}
