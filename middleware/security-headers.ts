// Response headers that switch on the browser's own defences (CSP, framing, MIME sniffing,
// cross-origin isolation) and switch off legacy behaviours that leak or execute more than the
// app meant to. Everything is decided (and every name and value checked) when the middleware
// is built; a request stores the headers (see `headerStore` for how).

import { IncomingMessage, ServerResponse } from 'node:http';
import { secureFromSocket } from './express-proto.js';

/**
 * The 16 headers and their default values. Strict-Transport-Security is only sent on HTTPS
 * requests: over plain HTTP a browser ignores it, and it would pin a development host to HTTPS.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; base-uri 'self'; font-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; " +
    "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' https: 'unsafe-inline'; " +
    'upgrade-insecure-requests',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Origin-Agent-Cluster': '?1',
  // Powerful device and payment APIs, which an app that needs them opts back into.
  'Permissions-Policy': 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()',
  // The same list for browsers that predate Permissions-Policy (Chromium 60 to 87, old webviews).
  'Feature-Policy': "accelerometer 'none'; camera 'none'; geolocation 'none'; gyroscope 'none'; magnetometer 'none'; microphone 'none'; payment 'none'; usb 'none'",
  // DNS prefetching of links in a page tells the resolver which links a user saw.
  'X-DNS-Prefetch-Control': 'off',
  // Internet Explorer would otherwise open a download in the site's context.
  'X-Download-Options': 'noopen',
  // Flash and Acrobat cross-domain policy files grant other origins read access.
  'X-Permitted-Cross-Domain-Policies': 'none',
  // The old XSS auditors could be steered into removing the page's own scripts; 0 switches them off.
  'X-XSS-Protection': '0',
  // Internet Explorer's compatibility document modes re-enable CSS expressions (script in CSS).
  'X-UA-Compatible': 'IE=edge',
});

/**
 * Per-header overrides, keyed by header name in any letter case: a string replaces the default
 * value, `false` leaves the header out.
 */
export type SecurityHeadersOptions = Readonly<Record<string, string | false | undefined>>;

// Minimal structural types: the same code serves Express 4 and 5 and plain node:http.
interface HeaderRequest {
  /** Express's own HTTPS test, which follows its `trust proxy` setting. */
  secure?: boolean;
  headers?: Record<string, string | string[] | undefined>;
  socket?: object | null;
}
interface HeaderResponse {
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  removeHeader?(name: string): void;
}
type Next = (err?: unknown) => void;

const HSTS = 'Strict-Transport-Security';
const CANONICAL = new Map(Object.keys(SECURITY_HEADERS).map((name) => [name.toLowerCase(), name]));

/**
 * Checks the options and returns a function that sets the headers on one response (for
 * shield(), which sets them itself), or null when `options` is false.
 */
export function securityHeaderSetter(options?: SecurityHeadersOptions | false | null): ((req: HeaderRequest, res: HeaderResponse, headers?: HeaderRequest['headers']) => void) | null {
  if (options === false) return null;
  const values = compile(options);
  const always: [string, string][] = [];
  let hsts: string | null = null;
  for (const [name, value] of values) {
    if (name === HSTS) hsts = value;
    else always.push([name, value]);
  }
  const lower = always.map(([name]) => name.toLowerCase());
  const store = headerStore();
  // `headers`: the request's headers when the caller has already read them (shield() does).
  // The header object each response gets: the pairs as own properties, made in one order by one
  // constructor, so that every instance has one shape (stores into Node's own object, which keeps
  // its keys as a dictionary, cost about 0.13 us per header in an Express app: 2 us for the 15);
  // its prototype an empty object without a prototype, so that no inherited name ('constructor',
  // 'toString') reads as a header, as with Node's own null-prototype object.
  const Pairs = pairsClass(lower, always);
  return function setSecurityHeaders(req: HeaderRequest, res: HeaderResponse, headers?: HeaderRequest['headers']): void {
    const held = store === null ? undefined : (res as unknown as Record<symbol, unknown>)[store];
    // `_header` is what headersSent reads (the probe checked): one property read, not two
    if (held !== undefined && !(res as unknown as { _header: unknown })._header) {
      // Node's own response: a header object in place of its own, as setHeader() would leave it
      const h = new Pairs();
      if (hsts !== null && isHttps(req, headers)) h['strict-transport-security'] = [HSTS, hsts];
      // what was set before stays, but for the names set here (replaced, as setHeader() replaces)
      // and X-Powered-By: Express announces itself on every response, and the version tells an
      // attacker which CVEs apply
      if (held !== null) {
        const old = held as HeaderPairs;
        for (const k in old) if (k !== 'x-powered-by' && h[k] === undefined) h[k] = old[k];
      }
      (res as unknown as Record<symbol, unknown>)[store!] = h;
      return;
    }
    for (let i = 0; i < always.length; i++) res.setHeader(always[i][0], always[i][1]);
    if (hsts !== null && isHttps(req, headers)) res.setHeader(HSTS, hsts);
    if (typeof res.removeHeader === 'function') res.removeHeader('X-Powered-By');
  };
}

type HeaderPairs = Record<string, [string, string]>;

/**
 * A constructor of header objects that hold these pairs (at most 16): each instance its own
 * arrays (appendHeader() writes into the pair it finds), its prototype an empty object without
 * one. One store site per pair: a loop's single site sees a different name and shape at each
 * pair and runs through V8's slow generic store, about 0.26 us for the 15 against 0.09 unrolled
 * (`new` in a loop of 200,000).
 */
function pairsClass(lower: readonly string[], pairs: readonly (readonly [string, string])[]): new () => HeaderPairs {
  const n = lower.length;
  if (n > 16) throw new RangeError('securityHeaders: more than 16 headers');
  const k = lower;
  const p = pairs;
  const Pairs = function (this: HeaderPairs): void {
    if (n > 0) this[k[0]] = [p[0][0], p[0][1]];
    if (n > 1) this[k[1]] = [p[1][0], p[1][1]];
    if (n > 2) this[k[2]] = [p[2][0], p[2][1]];
    if (n > 3) this[k[3]] = [p[3][0], p[3][1]];
    if (n > 4) this[k[4]] = [p[4][0], p[4][1]];
    if (n > 5) this[k[5]] = [p[5][0], p[5][1]];
    if (n > 6) this[k[6]] = [p[6][0], p[6][1]];
    if (n > 7) this[k[7]] = [p[7][0], p[7][1]];
    if (n > 8) this[k[8]] = [p[8][0], p[8][1]];
    if (n > 9) this[k[9]] = [p[9][0], p[9][1]];
    if (n > 10) this[k[10]] = [p[10][0], p[10][1]];
    if (n > 11) this[k[11]] = [p[11][0], p[11][1]];
    if (n > 12) this[k[12]] = [p[12][0], p[12][1]];
    if (n > 13) this[k[13]] = [p[13][0], p[13][1]];
    if (n > 14) this[k[14]] = [p[14][0], p[14][1]];
    if (n > 15) this[k[15]] = [p[15][0], p[15][1]];
  } as unknown as new () => HeaderPairs;
  Pairs.prototype = Object.create(null);
  return Pairs;
}

let storeProbed = false;
let storeSymbol: symbol | null = null;

/**
 * Node's ServerResponse keeps its headers in an object under a symbol (`kOutHeaders`): the
 * lower-case name to `[name as given, value]`, which getHeader(), hasHeader(), removeHeader()
 * and the header block sent on the wire all read. setHeader() checks the name and the value
 * with regular expressions and lowers the name on every call (about 0.15 us each, 2.2 us for
 * the 16 headers, `node bench/header-store.mjs`); these names and values were checked once,
 * when the middleware was built, so they are stored directly. Only when this runtime's
 * responses are seen to work that way (a probe response, once): the symbol is found by what it
 * holds after a setHeader(), a pair stored directly must be what getHeader(),
 * getHeaderNames() and hasHeader() return, and go when removeHeader() runs, and so must those of
 * a header object of pairsClass() put in place of Node's (the setter puts one there on every
 * response), where an inherited name is no header and setHeader() adds. Otherwise (another
 * runtime's node:http, a later Node that keeps headers otherwise, a response object of another
 * kind) null, and setHeader() is called as before.
 */
export function headerStore(): symbol | null {
  if (storeProbed) return storeSymbol;
  storeProbed = true;
  try {
    const res = new ServerResponse(new IncomingMessage(undefined as never)) as unknown as Record<symbol, unknown> & ServerResponse;
    res.setHeader('X-Shield-Probe', 'a');
    let found: symbol | null = null;
    for (const s of Object.getOwnPropertySymbols(res)) {
      const h = res[s] as Record<string, unknown> | null;
      if (h === null || typeof h !== 'object' || Object.getPrototypeOf(h) !== null) continue;
      const pair = h['x-shield-probe'];
      if (Array.isArray(pair) && pair.length === 2 && pair[0] === 'X-Shield-Probe' && pair[1] === 'a') { found = s; break; }
    }
    if (found === null) return null;
    const h = res[found] as Record<string, [string, string]>;
    h['x-shield-direct'] = ['X-Shield-Direct', 'b'];
    if (res.getHeader('x-shield-direct') !== 'b' || !res.hasHeader('X-Shield-Direct') ||
      !res.getHeaderNames().includes('x-shield-direct')) return null;
    res.removeHeader('X-Shield-Direct');
    if (res.hasHeader('x-shield-direct') || h['x-shield-direct'] !== undefined) return null;
    // a header object of pairsClass() in place of Node's: what every header method reads
    const Pairs = pairsClass(['x-shield-own'], [['X-Shield-Own', 'c']]);
    res[found] = new Pairs();
    if (res.getHeader('x-shield-own') !== 'c' || !res.hasHeader('X-Shield-Own') || res.hasHeader('constructor') ||
      res.getHeader('toString') !== undefined || res.getHeaderNames().join() !== 'x-shield-own') return null;
    res.setHeader('X-Shield-Set', 'd');
    const own = res[found] as HeaderPairs;
    if (own['x-shield-set']?.[1] !== 'd' || res.getHeaderNames().join() !== 'x-shield-own,x-shield-set') return null;
    res.removeHeader('X-Shield-Own');
    if (res.hasHeader('x-shield-own') || own['x-shield-own'] !== undefined) return null;
    // headersSent must be read off `_header` (the header block, once sent), as the setter reads it
    const r = res as unknown as { _header: unknown; headersSent: boolean };
    if (!('_header' in r) || r._header !== null || r.headersSent !== false) return null;
    r._header = 'HTTP/1.1 200 OK\r\n\r\n';
    const sent: boolean = (res as unknown as { headersSent: boolean }).headersSent;
    r._header = null;
    if (sent !== true) return null;
    storeSymbol = found;
  } catch {
    storeSymbol = null;
  }
  return storeSymbol;
}

/** Express middleware setting the 16 headers of SECURITY_HEADERS, with per-header overrides. */
export function securityHeaders(options?: SecurityHeadersOptions): (req: HeaderRequest, res: HeaderResponse, next: Next) => void {
  const set = securityHeaderSetter(options ?? {}) as (req: HeaderRequest, res: HeaderResponse) => void;
  return function securityHeadersMiddleware(req: HeaderRequest, res: HeaderResponse, next: Next): void {
    set(req, res);
    next();
  };
}

// The final [name, value] list in the table's order; a TypeError names the first bad option.
function compile(options: SecurityHeadersOptions | null | undefined): [string, string][] {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError('securityHeaders: options must be an object of header names');
  const chosen = new Map<string, string | false>();
  for (const key of Object.keys(options)) {
    const name = CANONICAL.get(key.toLowerCase());
    if (name === undefined) {
      throw new TypeError(`securityHeaders: unknown option "${key}" (expected one of the header names of SECURITY_HEADERS)`);
    }
    const value = options[key];
    if (value === undefined) continue;
    if (chosen.has(name)) throw new TypeError(`securityHeaders: option "${key}" is given twice in different letter cases`);
    if (value !== false && typeof value !== 'string') {
      throw new TypeError(`securityHeaders: option "${key}" must be a string or false, got ${value === null ? 'null' : typeof value}`);
    }
    if (typeof value === 'string') checkValue(key, value);
    chosen.set(name, value);
  }
  // Feature-Policy mirrors the default Permissions-Policy; once the app has its own
  // Permissions-Policy, a stale Feature-Policy would deny what the app now allows.
  if (chosen.has('Permissions-Policy') && !chosen.has('Feature-Policy')) chosen.set('Feature-Policy', false);

  const out: [string, string][] = [];
  for (const name of Object.keys(SECURITY_HEADERS)) {
    const value = chosen.has(name) ? chosen.get(name)! : SECURITY_HEADERS[name];
    if (value !== false) out.push([name, value]);
  }
  return out;
}

// A value Node's setHeader() would refuse would throw on every request; CR, LF and NUL would
// split or truncate the header. Tab, printable ASCII and U+0080..U+00FF are what Node accepts.
function checkValue(key: string, value: string): void {
  if (value.trim() === '') throw new TypeError(`securityHeaders: option "${key}" must not be empty (use false to leave the header out)`);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x0d || c === 0x0a || c === 0x00) throw new TypeError(`securityHeaders: option "${key}" must not contain CR, LF or NUL`);
    if (!(c === 0x09 || (c >= 0x20 && c <= 0xff && c !== 0x7f))) {
      throw new TypeError(`securityHeaders: option "${key}" contains a character not allowed in a header value (at index ${i})`);
    }
  }
}

// A TLS socket answers for plain node:http servers and for Express apps behind no proxy.
// Express's req.secure also honours X-Forwarded-Proto from proxies its `trust proxy` setting
// trusts, and without that header it is the socket's answer; so it is asked only when the header
// is there, or when `secure` or `protocol` is not Express's own (an app's, honouring Forwarded or
// X-Forwarded-Ssl; another framework's), or is the request's own property (express-proto.ts: in
// an Express app each property read on the request misses V8's inline caches, and Express's
// req.secure reads several).
function isHttps(req: HeaderRequest, headers: HeaderRequest['headers'] | undefined): boolean {
  const socket = req.socket as { encrypted?: unknown } | null | undefined;
  if (socket !== null && socket !== undefined && socket.encrypted === true) return true;
  const h = headers ?? req.headers;
  // (an own `protocol` on the request, which only Express's getter would read, takes a
  // defineProperty over that getter: not looked for)
  if (h !== null && typeof h === 'object' && h['x-forwarded-proto'] === undefined && secureFromSocket(req) &&
    !Object.hasOwn(req, 'secure')) return false;
  return req.secure === true;
}
