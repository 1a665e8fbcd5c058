// The SDKs' transport rule, shared by `serve` (to warn) and `login` (to refuse): https
// anywhere, plain http only to this machine. Mirrors validateEndpoint in
// middleware/telemetry.ts so the CLI and the SDK never disagree about an endpoint.
import { isIP } from 'node:net';

/**
 * True for localhost, 127.0.0.0/8, ::1 and IPv4-mapped 127/8, with or without IPv6 brackets.
 * @param {string} host
 */
export function isLoopbackHost(host) {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    if (h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h)) return true;
    // ::ffff:127.0.0.1 as typed, or ::ffff:7f00:1 as the URL parser prints it
    return /^::ffff:127\./.test(h) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
  }
  return false;
}

/**
 * The control plane base URL from `--endpoint`: https, or http to a loopback address; no
 * trailing slash, no query or fragment. Returns the problem as a string instead of throwing
 * so the caller can name its own flag.
 * @param {string} value @returns {{ url: string } | { problem: string }}
 */
export function checkEndpoint(value) {
  let u;
  try { u = new URL(value); } catch { return { problem: `must be an absolute URL such as https://shield.example.com (got ${JSON.stringify(value)})` }; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { problem: `must be an https:// URL (got ${u.protocol}//)` };
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    return { problem: `must use https:// (plain http:// is accepted only for a loopback address such as 127.0.0.1, as the SDKs do); got ${u.origin}` };
  }
  if (u.username !== '' || u.password !== '') return { problem: 'must not carry a user name or password' };
  if (u.search !== '' || u.hash !== '') return { problem: 'must be the base URL, without a query or fragment' };
  return { url: `${u.origin}${u.pathname.replace(/\/+$/, '')}` };
}
