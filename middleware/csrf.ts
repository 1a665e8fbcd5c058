// Cross-site request forgery: another site can make the browser send a request with the
// user's cookies, but cannot read this site's cookies or pages. A token kept in a cookie and
// repeated by the page in a header or form field (double submit) proves the request came from
// a page that could read it. The token is signed with the server's secret, so a token the
// server did not issue is refused outright.
//
// Token: `<32 random bytes, base64url>.<HMAC-SHA-256(secret, those bytes), base64url>`.
//
// A sibling subdomain can still plant its own cookie (cookie tossing) with a token it got
// from this server; the `__Host-` prefix (hostPrefix: true) makes browsers refuse such cookies.

import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/** Why a request was refused (also the `message` of the 403 body). */
export type CsrfRejectReason = 'missing CSRF cookie' | 'invalid CSRF cookie' | 'missing CSRF token' | 'CSRF token does not match';

/** Attributes of the CSRF cookie. */
export interface CsrfCookieOptions {
  /** SameSite attribute: `Strict` (default), `Lax` or `None` (None always adds Secure). */
  sameSite?: 'Strict' | 'Lax' | 'None' | 'strict' | 'lax' | 'none';
  /** Secure attribute; default true with hostPrefix, else only on HTTPS requests (req.secure or a TLS socket). */
  secure?: boolean;
  /** HttpOnly attribute (default true); false lets page scripts read the token from the cookie. */
  httpOnly?: boolean;
  /** Path attribute (default `/`; must be `/` with hostPrefix). */
  path?: string;
  /** Domain attribute (default none: host-only; not allowed with hostPrefix). */
  domain?: string;
  /** Max-Age in seconds (default none: a session cookie). */
  maxAge?: number;
}

/** Options of csrfProtection(); every one has a default. */
export interface CsrfOptions {
  /** HMAC key: a string of at least 32 characters or at least 32 bytes. Default: random per process (with a warning). */
  secret?: string | Uint8Array;
  /** Cookie name; default `__Host-shield.csrf` with hostPrefix, else `shield.csrf`. */
  cookieName?: string;
  /** Require the `__Host-` cookie prefix (Secure, Path=/, no Domain). Default false. */
  hostPrefix?: boolean;
  /** Request header carrying the token (default `x-csrf-token`). */
  headerName?: string;
  /** Field of a parsed body (`req.body`) carrying the token (default `_csrf`). */
  fieldName?: string;
  /** Methods that are never checked (default GET, HEAD, OPTIONS). */
  ignoreMethods?: readonly string[];
  cookie?: CsrfCookieOptions;
  /** Called on each refusal; when it has not answered the request itself, the default 403 is sent. */
  onReject?: (req: CsrfRequest, res: CsrfResponse, reason: CsrfRejectReason) => void;
}

/** The default option values (the cookie name depends on hostPrefix). */
export const CSRF_DEFAULTS = Object.freeze({
  cookieName: 'shield.csrf',
  hostPrefixCookieName: '__Host-shield.csrf',
  hostPrefix: false,
  headerName: 'x-csrf-token',
  fieldName: '_csrf',
  ignoreMethods: Object.freeze(['GET', 'HEAD', 'OPTIONS']) as readonly string[],
  cookie: Object.freeze({ sameSite: 'Strict', httpOnly: true, path: '/' }),
});

// Minimal structural types: the same code serves Express 4 and 5 and plain node:http.
/** What the middleware reads from a request (and the csrfToken() it adds). */
export interface CsrfRequest {
  method?: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  secure?: boolean;
  socket?: object | null;
  /** Set by the middleware: the token to put in forms (field `fieldName`) or the request header. */
  csrfToken?: () => string;
}
/** What the middleware uses of a response. */
export interface CsrfResponse {
  statusCode: number;
  headersSent: boolean;
  writableEnded?: boolean;
  getHeader(name: string): string | number | string[] | undefined;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  end(body?: string): unknown;
}
type Next = (err?: unknown) => void;

const RANDOM_BYTES = 32;
const B64_LEN = 43; // 32 bytes in unpadded base64url
const TOKEN_LEN = B64_LEN * 2 + 1;
// More same-named cookies than this is not a browser's doing; the rest are ignored.
const MAX_SAME_NAME = 8;

let processKey: KeyObject | null = null;
// Compares submitted and cookie tokens through HMAC digests: equal lengths for timingSafeEqual,
// and nothing about where two unequal tokens differ leaks through timing.
const compareKey = createSecretKey(randomBytes(32));

/** Express middleware: issues the CSRF cookie and refuses unsafe requests without the matching token. */
export function csrfProtection(options: CsrfOptions = {}): (req: CsrfRequest, res: CsrfResponse, next: Next) => void {
  if (options === null || typeof options !== 'object') throw new TypeError('csrfProtection: options must be an object');
  const key = secretKey(options.secret);
  const hostPrefix = optionalBoolean(options.hostPrefix, 'hostPrefix') ?? CSRF_DEFAULTS.hostPrefix;
  const cookieName = options.cookieName ?? (hostPrefix ? CSRF_DEFAULTS.hostPrefixCookieName : CSRF_DEFAULTS.cookieName);
  if (typeof cookieName !== 'string' || cookieName.length === 0 || !isToken(cookieName)) {
    throw new TypeError('csrfProtection: option "cookieName" must be a non-empty cookie name (letters, digits and !#$%&\'*+-.^_`|~)');
  }
  if (hostPrefix && !cookieName.startsWith('__Host-')) {
    throw new TypeError('csrfProtection: option "cookieName" must start with "__Host-" when hostPrefix is true');
  }
  const headerName = options.headerName ?? CSRF_DEFAULTS.headerName;
  if (typeof headerName !== 'string' || headerName.length === 0 || !isToken(headerName)) {
    throw new TypeError('csrfProtection: option "headerName" must be a non-empty header name');
  }
  const header = headerName.toLowerCase(); // Node lower-cases incoming header names
  const fieldName = options.fieldName ?? CSRF_DEFAULTS.fieldName;
  if (typeof fieldName !== 'string' || fieldName.length === 0) throw new TypeError('csrfProtection: option "fieldName" must be a non-empty string');
  const ignore = ignoreSet(options.ignoreMethods);
  const cookie = cookieSettings(options.cookie, hostPrefix);
  const onReject = options.onReject;
  if (onReject !== undefined && typeof onReject !== 'function') throw new TypeError('csrfProtection: option "onReject" must be a function');
  const prefix = `${cookieName}=`;

  return function csrfMiddleware(req: CsrfRequest, res: CsrfResponse, next: Next): void {
    const cookies = cookieValues(req.headers.cookie, cookieName);
    const valid = cookies.filter((value) => verify(key, value));
    const token = valid.length > 0 ? valid[0] : null;
    if (token === null) {
      // Issued even on a refusal, so the client's next attempt can succeed.
      const fresh = issue(key);
      appendSetCookie(res, prefix + fresh + cookie.attributes(req));
      req.csrfToken = () => fresh;
    } else {
      const current = token;
      req.csrfToken = () => current;
    }
    if (ignore.has((req.method ?? 'GET').toUpperCase())) { next(); return; }

    let reason: CsrfRejectReason | null = null;
    if (token === null) reason = cookies.length > 0 ? 'invalid CSRF cookie' : 'missing CSRF cookie';
    else {
      const submitted = submittedToken(req, header, fieldName);
      if (submitted === null) reason = 'missing CSRF token';
      else if (!sameToken(submitted, valid)) reason = 'CSRF token does not match';
    }
    if (reason === null) { next(); return; }
    reject(req, res, reason, onReject);
  };
}

function reject(req: CsrfRequest, res: CsrfResponse, reason: CsrfRejectReason, onReject: CsrfOptions['onReject']): void {
  if (onReject !== undefined) {
    onReject(req, res, reason);
    if (res.headersSent || res.writableEnded === true) return;
  }
  res.statusCode = 403;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify({ error: 'csrf', message: reason }));
}

// The submitted token may match any validly signed cookie of that name: with several (one per
// path), the browser's order says nothing about which page the form came from.
function sameToken(submitted: string, valid: readonly string[]): boolean {
  const a = digest(submitted);
  let ok = false;
  // no early exit: every candidate costs the same
  for (const value of valid) if (timingSafeEqual(a, digest(value))) ok = true;
  return ok;
}

function digest(text: string): Buffer {
  return createHmac('sha256', compareKey).update(text, 'utf8').digest();
}

function issue(key: KeyObject): string {
  const random = randomBytes(RANDOM_BYTES);
  return `${random.toString('base64url')}.${createHmac('sha256', key).update(random).digest('base64url')}`;
}

// Shape first (fixed length and alphabet, so the comparison below is between equal-length
// buffers and decoding cannot be fooled by padding or stray characters), then the signature.
function verify(key: KeyObject, token: string): boolean {
  if (token.length !== TOKEN_LEN || token.charCodeAt(B64_LEN) !== 0x2e) return false;
  for (let i = 0; i < TOKEN_LEN; i++) if (i !== B64_LEN && !isBase64Url(token.charCodeAt(i))) return false;
  const random = Buffer.from(token.slice(0, B64_LEN), 'base64url');
  const signature = Buffer.from(token.slice(B64_LEN + 1), 'base64url');
  const expected = createHmac('sha256', key).update(random).digest();
  return signature.length === expected.length && timingSafeEqual(signature, expected);
}

function isBase64Url(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
}

// Header first (APIs and fetch), then the parsed body field (HTML forms).
function submittedToken(req: CsrfRequest, header: string, fieldName: string): string | null {
  const fromHeader = req.headers[header];
  if (typeof fromHeader === 'string' && fromHeader.length > 0) return fromHeader.trim();
  const body = req.body;
  if (body !== null && typeof body === 'object' && Object.prototype.hasOwnProperty.call(body, fieldName)) {
    const field = (body as Record<string, unknown>)[fieldName];
    if (typeof field === 'string' && field.length > 0) return field;
  }
  return null;
}

// The values of every cookie called `name`, in one linear pass over the Cookie header: pairs
// split at ';', whitespace around them ignored, a value in double quotes unquoted, pairs
// without '=' skipped. Nothing is percent-decoded: a valid token never needs it.
function cookieValues(header: string | string[] | undefined, name: string): string[] {
  const out: string[] = [];
  if (header === undefined) return out;
  const text = typeof header === 'string' ? header : header.join('; ');
  let i = 0;
  // the first '=' at or after the current pair, kept while it lies beyond the pair: searching
  // afresh for each pair would re-read the rest of the header after every pair without one
  let eq = -1;
  while (i < text.length && out.length < MAX_SAME_NAME) {
    let end = text.indexOf(';', i);
    if (end < 0) end = text.length;
    let s = i;
    while (s < end && (text.charCodeAt(s) === 0x20 || text.charCodeAt(s) === 0x09)) s++;
    if (eq < s) eq = text.indexOf('=', s);
    if (eq < 0) eq = text.length;
    if (eq < end) {
      let k = eq;
      while (k > s && (text.charCodeAt(k - 1) === 0x20 || text.charCodeAt(k - 1) === 0x09)) k--;
      if (k - s === name.length && text.startsWith(name, s)) {
        let vs = eq + 1;
        let ve = end;
        while (vs < ve && (text.charCodeAt(vs) === 0x20 || text.charCodeAt(vs) === 0x09)) vs++;
        while (ve > vs && (text.charCodeAt(ve - 1) === 0x20 || text.charCodeAt(ve - 1) === 0x09)) ve--;
        if (ve - vs >= 2 && text.charCodeAt(vs) === 0x22 && text.charCodeAt(ve - 1) === 0x22) { vs++; ve--; }
        out.push(text.slice(vs, ve));
      }
    }
    i = end + 1;
  }
  return out;
}

// Keeps cookies other middleware set on this response; the app's later res.cookie() appends too.
function appendSetCookie(res: CsrfResponse, cookie: string): void {
  const prev = res.getHeader('Set-Cookie');
  if (prev === undefined) res.setHeader('Set-Cookie', cookie);
  else if (Array.isArray(prev)) res.setHeader('Set-Cookie', [...prev, cookie]);
  else res.setHeader('Set-Cookie', [String(prev), cookie]);
}

interface CookieSettings {
  attributes(req: CsrfRequest): string;
}

function cookieSettings(options: CsrfCookieOptions | undefined, hostPrefix: boolean): CookieSettings {
  const o = options ?? {};
  if (o === null || typeof o !== 'object') throw new TypeError('csrfProtection: option "cookie" must be an object');
  for (const k of Object.keys(o)) {
    if (!['sameSite', 'secure', 'httpOnly', 'path', 'domain', 'maxAge'].includes(k)) {
      throw new TypeError(`csrfProtection: unknown option "cookie.${k}" (expected sameSite, secure, httpOnly, path, domain, maxAge)`);
    }
  }
  const sameSiteIn = o.sameSite ?? CSRF_DEFAULTS.cookie.sameSite;
  const sameSite = typeof sameSiteIn === 'string' ? ({ strict: 'Strict', lax: 'Lax', none: 'None' } as Record<string, string>)[sameSiteIn.toLowerCase()] : undefined;
  if (sameSite === undefined) throw new TypeError('csrfProtection: option "cookie.sameSite" must be "Strict", "Lax" or "None"');
  const secure = optionalBoolean(o.secure, 'cookie.secure');
  const httpOnly = optionalBoolean(o.httpOnly, 'cookie.httpOnly') ?? CSRF_DEFAULTS.cookie.httpOnly;
  const path = o.path ?? CSRF_DEFAULTS.cookie.path;
  if (typeof path !== 'string' || !path.startsWith('/') || !isAttributeValue(path)) {
    throw new TypeError('csrfProtection: option "cookie.path" must be a path starting with "/" without ";" or control characters');
  }
  const domain = o.domain;
  if (domain !== undefined && (typeof domain !== 'string' || domain.length === 0 || !isAttributeValue(domain))) {
    throw new TypeError('csrfProtection: option "cookie.domain" must be a host name');
  }
  const maxAge = o.maxAge;
  if (maxAge !== undefined && !(Number.isSafeInteger(maxAge) && maxAge > 0)) {
    throw new TypeError('csrfProtection: option "cookie.maxAge" must be a positive whole number of seconds');
  }
  if (hostPrefix) {
    // what browsers require of a __Host- cookie; anything else and they drop it silently
    if (secure === false) throw new TypeError('csrfProtection: option "cookie.secure" cannot be false when hostPrefix is true');
    if (path !== '/') throw new TypeError('csrfProtection: option "cookie.path" must be "/" when hostPrefix is true');
    if (domain !== undefined) throw new TypeError('csrfProtection: option "cookie.domain" is not allowed when hostPrefix is true');
  }
  if (sameSite === 'None' && secure === false) {
    throw new TypeError('csrfProtection: option "cookie.secure" cannot be false with sameSite "None" (browsers drop such cookies)');
  }
  let fixed = `; Path=${path}`;
  if (domain !== undefined) fixed += `; Domain=${domain}`;
  if (maxAge !== undefined) fixed += `; Max-Age=${maxAge}`;
  if (httpOnly) fixed += '; HttpOnly';
  fixed += `; SameSite=${sameSite}`;
  const alwaysSecure = hostPrefix || secure === true || sameSite === 'None';
  const withSecure = `${fixed}; Secure`;
  if (alwaysSecure) return { attributes: () => withSecure };
  if (secure === false) return { attributes: () => fixed };
  return { attributes: (req) => (isHttps(req) ? withSecure : fixed) };
}

function isHttps(req: CsrfRequest): boolean {
  if (req.secure === true) return true;
  const socket = req.socket as { encrypted?: unknown } | null | undefined;
  return socket !== null && socket !== undefined && socket.encrypted === true;
}

function ignoreSet(methods: readonly string[] | undefined): Set<string> {
  if (methods === undefined) return new Set(CSRF_DEFAULTS.ignoreMethods);
  if (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string' || m.length === 0 || !isToken(m))) {
    throw new TypeError('csrfProtection: option "ignoreMethods" must be an array of HTTP method names');
  }
  return new Set(methods.map((m: string) => m.toUpperCase()));
}

function secretKey(secret: string | Uint8Array | undefined): KeyObject {
  if (secret === undefined) {
    if (processKey === null) {
      processKey = createSecretKey(randomBytes(32));
      console.warn(
        'csrfProtection: no "secret" given; using a random per-process key. CSRF tokens will not survive a restart ' +
          'or be accepted by other instances; pass a secret of at least 32 characters shared by all instances.',
      );
    }
    return processKey;
  }
  if (typeof secret === 'string') {
    if (secret.length < 32) throw new TypeError('csrfProtection: option "secret" must be a string of at least 32 characters or at least 32 bytes');
    return createSecretKey(Buffer.from(secret, 'utf8'));
  }
  if (secret instanceof Uint8Array) {
    if (secret.byteLength < 32) throw new TypeError('csrfProtection: option "secret" must be a string of at least 32 characters or at least 32 bytes');
    // a copy: later changes to the caller's buffer must not change the key
    return createSecretKey(Buffer.from(secret));
  }
  throw new TypeError('csrfProtection: option "secret" must be a string of at least 32 characters or at least 32 bytes');
}

function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw new TypeError(`csrfProtection: option "${name}" must be a boolean`);
}

// RFC 9110 token characters: what a cookie name, header name or method may be made of.
function isToken(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "!#$%&'*+-.^_`|~".includes(s[i]);
    if (!ok) return false;
  }
  return true;
}

function isAttributeValue(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x3b) return false;
  }
  return true;
}
