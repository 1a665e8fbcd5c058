// securityHeaders() (middleware/security-headers.ts) over real HTTP on 127.0.0.1, on Express 5
// and Express 4: the 16 headers with their values on every response (also 404s and errors),
// X-Powered-By removed, Strict-Transport-Security only over HTTPS (Express's req.secure with
// `trust proxy`, never a spoofed X-Forwarded-Proto, and a real TLS socket), overrides and
// `false`, and option errors that name the key; the direct store into Node's own responses
// (what getHeader() and the wire show, a fresh pair per response) and the setHeader() fallback.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { securityHeaders, securityHeaderSetter, headerStore, SECURITY_HEADERS } from '../../dist/middleware/security-headers.js';
import { EXPRESSES, listen } from './support.mjs';

// Written out here, not read from the module: a changed default must fail this suite.
const EXPECTED = {
  'content-security-policy':
    "default-src 'self'; base-uri 'self'; font-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; " +
    "img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' https: 'unsafe-inline'; " +
    'upgrade-insecure-requests',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'origin-agent-cluster': '?1',
  'permissions-policy': 'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()',
  'feature-policy': "accelerometer 'none'; camera 'none'; geolocation 'none'; gyroscope 'none'; magnetometer 'none'; microphone 'none'; payment 'none'; usb 'none'",
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
  'x-ua-compatible': 'IE=edge',
};
const NAMES = Object.keys(EXPECTED);
const HSTS = 'strict-transport-security';

function makeApp(express, options, { trustProxy = false } = {}) {
  const app = express();
  if (trustProxy) app.set('trust proxy', 1);
  app.use(securityHeaders(options));
  app.get('/', (req, res) => res.send('ok'));
  app.get('/boom', () => { throw new Error('boom'); });
  // keeps Express's default error page from printing the stack during the suite
  app.use((err, req, res, _next) => res.status(500).send('error'));
  return app;
}

describe('SECURITY_HEADERS', () => {
  it('lists the 16 headers with their default values, frozen', () => {
    expect(Object.isFrozen(SECURITY_HEADERS)).toBe(true);
    expect(Object.keys(SECURITY_HEADERS)).toHaveLength(16);
    const lowered = Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([k, v]) => [k.toLowerCase(), v]));
    expect(lowered).toEqual(EXPECTED);
    expect(() => { SECURITY_HEADERS['X-Frame-Options'] = 'SAMEORIGIN'; }).toThrow(TypeError);
  });
});

describe.each(EXPRESSES)('%s', (_name, express) => {
  const servers = {};
  beforeAll(async () => {
    servers.plain = await listen(makeApp(express));
    servers.proxied = await listen(makeApp(express, undefined, { trustProxy: true }));
    servers.custom = await listen(makeApp(express, {
      'content-security-policy': "default-src 'self' https://cdn.example",
      'Cross-Origin-Embedder-Policy': false,
      'X-FRAME-OPTIONS': 'SAMEORIGIN',
      'Strict-Transport-Security': 'max-age=63072000; includeSubDomains; preload',
    }, { trustProxy: true }));
    servers.permissions = await listen(makeApp(express, { 'Permissions-Policy': 'camera=(self)' }));
  });
  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s.close()));
  });

  it('sets the 15 non-HSTS headers over plain HTTP, and no Strict-Transport-Security', async () => {
    const res = await fetch(`${servers.plain.url}/`);
    expect(res.status).toBe(200);
    for (const name of NAMES) {
      if (name === HSTS) expect(res.headers.get(name)).toBeNull();
      else expect(res.headers.get(name), name).toBe(EXPECTED[name]);
    }
  });

  it('removes X-Powered-By (Express sets it by default)', async () => {
    const res = await fetch(`${servers.plain.url}/`);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('sets them on error responses and 404s too', async () => {
    const boom = await fetch(`${servers.plain.url}/boom`);
    expect(boom.status).toBe(500);
    for (const name of NAMES) if (name !== HSTS) expect(boom.headers.get(name), name).toBe(EXPECTED[name]);
    const missing = await fetch(`${servers.plain.url}/missing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-frame-options')).toBe('DENY');
    expect(missing.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    // Express's own 404 page replaces the policy with a stricter one of its own
    expect(missing.headers.get('content-security-policy')).toBe("default-src 'none'");
  });

  it('ignores X-Forwarded-Proto when Express does not trust the proxy', async () => {
    const res = await fetch(`${servers.plain.url}/`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.headers.get(HSTS)).toBeNull();
  });

  it('sends all 16 when req.secure is true (trust proxy 1, X-Forwarded-Proto: https)', async () => {
    const res = await fetch(`${servers.proxied.url}/`, { headers: { 'x-forwarded-proto': 'https' } });
    for (const name of NAMES) expect(res.headers.get(name), name).toBe(EXPECTED[name]);
    const plain = await fetch(`${servers.proxied.url}/`, { headers: { 'x-forwarded-proto': 'http' } });
    expect(plain.headers.get(HSTS)).toBeNull();
  });

  it('applies overrides (any letter case) and leaves out headers switched off', async () => {
    const res = await fetch(`${servers.custom.url}/`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.headers.get('content-security-policy')).toBe("default-src 'self' https://cdn.example");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('cross-origin-embedder-policy')).toBeNull();
    expect(res.headers.get(HSTS)).toBe('max-age=63072000; includeSubDomains; preload');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    // an overridden HSTS still waits for HTTPS
    const plain = await fetch(`${servers.custom.url}/`);
    expect(plain.headers.get(HSTS)).toBeNull();
  });

  it('drops the default Feature-Policy once Permissions-Policy is overridden', async () => {
    const res = await fetch(`${servers.permissions.url}/`);
    expect(res.headers.get('permissions-policy')).toBe('camera=(self)');
    expect(res.headers.get('feature-policy')).toBeNull();
    expect(res.headers.get('x-dns-prefetch-control')).toBe('off');
  });
});

describe('Strict-Transport-Security on a real TLS socket (req.socket.encrypted)', () => {
  let dir;
  let server;
  let port;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shield-headers-'));
    // a throwaway certificate; .ci/run installs openssl where a machine lacks it
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const setHeaders = securityHeaderSetter({});
    // plain node:https, no Express: only the socket says it is TLS
    server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      setHeaders(req, res);
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = server.address().port;
  });
  afterAll(async () => {
    if (server) await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is sent over TLS', async () => {
    const headers = await new Promise((resolve, reject) => {
      https.get({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.headers);
      }).on('error', reject);
    });
    expect(headers[HSTS]).toBe(EXPECTED[HSTS]);
    expect(headers['x-frame-options']).toBe('DENY');
  });
});

describe('securityHeaderSetter', () => {
  const fakeRes = () => {
    const headers = new Map([['x-powered-by', 'Express']]);
    return {
      headers,
      setHeader: (n, v) => headers.set(n.toLowerCase(), v),
      removeHeader: (n) => headers.delete(n.toLowerCase()),
    };
  };

  it('returns null for false', () => {
    expect(securityHeaderSetter(false)).toBeNull();
  });

  it('sets the headers without next(), HSTS only for secure requests', () => {
    const set = securityHeaderSetter();
    const res = fakeRes();
    set({ secure: false, socket: {} }, res);
    expect(res.headers.size).toBe(15);
    expect(res.headers.has('x-powered-by')).toBe(false);
    expect(res.headers.has(HSTS)).toBe(false);
    const tls = fakeRes();
    set({ socket: { encrypted: true } }, tls);
    expect(tls.headers.get(HSTS)).toBe(EXPECTED[HSTS]);
    const secure = fakeRes();
    set({ secure: true, socket: {} }, secure);
    expect(Object.fromEntries(secure.headers)).toEqual(EXPECTED);
    // a prototype's secure (Express's) is asked when X-Forwarded-Proto is there; an own one always
    const expressLike = { get secure() { return this.headers['x-forwarded-proto'] === 'https'; } };
    const viaProxy = fakeRes();
    set(Object.assign(Object.create(expressLike), { socket: {}, headers: { 'x-forwarded-proto': 'https' } }), viaProxy);
    expect(viaProxy.headers.get(HSTS)).toBe(EXPECTED[HSTS]);
    const own = fakeRes();
    set({ secure: true, socket: {}, headers: {} }, own);
    expect(own.headers.get(HSTS)).toBe(EXPECTED[HSTS]);
    const given = fakeRes();
    set({ secure: true, socket: {}, headers: { host: 'a' } }, given, { 'x-forwarded-proto': 'https' });
    expect(given.headers.get(HSTS)).toBe(EXPECTED[HSTS]);
  });

  it('keeps an explicit Feature-Policy next to an overridden Permissions-Policy', () => {
    const res = fakeRes();
    securityHeaderSetter({ 'Permissions-Policy': 'usb=()', 'feature-policy': "usb 'none'" })({ socket: {} }, res);
    expect(res.headers.get('permissions-policy')).toBe('usb=()');
    expect(res.headers.get('feature-policy')).toBe("usb 'none'");
  });

  it('treats an undefined value as not given', () => {
    const res = fakeRes();
    securityHeaderSetter({ 'X-Frame-Options': undefined })({ socket: {} }, res);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('option errors name the key', () => {
  const cases = [
    [{ 'X-Frame-Option': 'DENY' }, /unknown option "X-Frame-Option"/],
    [{ 'Cache-Control': 'no-store' }, /unknown option "Cache-Control"/],
    [{ 'X-Frame-Options': true }, /option "X-Frame-Options" must be a string or false, got boolean/],
    [{ 'Referrer-Policy': 1 }, /option "Referrer-Policy" must be a string or false, got number/],
    [{ 'Referrer-Policy': null }, /option "Referrer-Policy" must be a string or false, got null/],
    [{ 'Content-Security-Policy': "default-src 'self'\r\nSet-Cookie: a=1" }, /option "Content-Security-Policy" must not contain CR, LF or NUL/],
    [{ 'x-frame-options': 'DENY\n' }, /option "x-frame-options" must not contain CR, LF or NUL/],
    [{ 'X-Frame-Options': 'DE\0NY' }, /option "X-Frame-Options" must not contain CR, LF or NUL/],
    [{ 'X-Frame-Options': 'DENY\u0001' }, /option "X-Frame-Options" contains a character not allowed/],
    [{ 'X-Frame-Options': 'D\u0100NY' }, /option "X-Frame-Options" contains a character not allowed/],
    [{ 'X-Frame-Options': '  ' }, /option "X-Frame-Options" must not be empty/],
    [{ 'X-Frame-Options': 'DENY', 'x-frame-options': false }, /option "x-frame-options" is given twice/],
  ];
  it.each(cases)('%j', (options, message) => {
    expect(() => securityHeaders(options)).toThrow(TypeError);
    expect(() => securityHeaders(options)).toThrow(message);
    expect(() => securityHeaderSetter(options)).toThrow(message);
  });

  it('refuses options that are not an object', () => {
    expect(() => securityHeaders('DENY')).toThrow(/securityHeaders: options must be an object/);
    expect(() => securityHeaders([])).toThrow(/securityHeaders: options must be an object/);
  });
});

describe('the header store of Node responses', () => {
  const response = () => new http.ServerResponse(new http.IncomingMessage(undefined));

  it('is found on this Node, so the direct store is what runs here', () => {
    const sym = headerStore();
    expect(typeof sym).toBe('symbol');
    expect(headerStore()).toBe(sym); // probed once
  });

  it('leaves the headers where getHeader(), getHeaderNames(), getRawHeaderNames() and removeHeader() see them', () => {
    const res = response();
    res.setHeader('X-Powered-By', 'Express');
    res.setHeader('Content-Type', 'text/plain');
    let calls = 0;
    const own = res.setHeader;
    res.setHeader = function (...args) { calls++; return own.apply(this, args); };
    securityHeaderSetter()({ socket: {} }, res);
    expect(calls).toBe(0); // stored directly, not through setHeader()
    expect(res.hasHeader('x-powered-by')).toBe(false);
    expect(res.getHeader('content-type')).toBe('text/plain');
    for (const name of NAMES) {
      if (name === HSTS) expect(res.hasHeader(name)).toBe(false);
      else expect(res.getHeader(name), name).toBe(EXPECTED[name]);
    }
    expect(res.getHeaderNames()).toHaveLength(16); // content-type and the 15
    expect(res.getRawHeaderNames()).toContain('X-Frame-Options'); // the case sent on the wire
    res.removeHeader('X-Frame-Options');
    expect(res.hasHeader('x-frame-options')).toBe(false);
    const tls = response();
    securityHeaderSetter()({ socket: { encrypted: true } }, tls);
    expect(tls.getHeader(HSTS)).toBe(EXPECTED[HSTS]);
  });

  it('reads no inherited name as a header, and later setHeader(), appendHeader() and removeHeader() work on what it left', () => {
    const res = response();
    securityHeaderSetter()({ socket: {} }, res);
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(res.hasHeader(name), name).toBe(false);
      expect(res.getHeader(name), name).toBeUndefined();
    }
    res.setHeader('Cache-Control', 'no-store');
    res.appendHeader('Cache-Control', 'private');
    expect(res.getHeader('cache-control')).toEqual(['no-store', 'private']);
    res.removeHeader('Referrer-Policy');
    expect(res.getHeaderNames()).toHaveLength(15); // the 15, less Referrer-Policy, and Cache-Control
    expect(Object.keys(res.getHeaders())).not.toContain('referrer-policy');
  });

  it('keeps a Strict-Transport-Security the app set itself on a request shield does not see as HTTPS', () => {
    const res = response();
    res.setHeader('Strict-Transport-Security', 'max-age=60');
    res.setHeader('X-Powered-By', 'Express');
    securityHeaderSetter()({ socket: {} }, res);
    expect(res.getHeader('strict-transport-security')).toBe('max-age=60');
    expect(res.hasHeader('x-powered-by')).toBe(false);
  });

  it('replaces a value the app set before, as setHeader() does', () => {
    const res = response();
    res.setHeader('X-Frame-Options', 'SAMEORIGIN');
    securityHeaderSetter()({ socket: {} }, res);
    expect(res.getHeader('x-frame-options')).toBe('DENY');
  });

  it('gives each response pairs of its own: appendHeader() on one leaves the next alone', () => {
    const set = securityHeaderSetter();
    const a = response();
    set({ socket: {} }, a);
    a.appendHeader('Content-Security-Policy', "img-src 'self'");
    expect(a.getHeader('content-security-policy')).toEqual([EXPECTED['content-security-policy'], "img-src 'self'"]);
    const b = response();
    set({ socket: {} }, b);
    expect(b.getHeader('content-security-policy')).toBe(EXPECTED['content-security-policy']);
  });

  it('calls setHeader() once headers are sent, which throws as before', () => {
    const res = response();
    res.writeHead(200);
    expect(res.headersSent).toBe(true);
    expect(() => securityHeaderSetter()({ socket: {} }, res)).toThrow(/after they are sent/);
  });

  it('sends the names in their canonical case over real HTTP', async () => {
    const server = await listen(makeApp(EXPRESSES[0][1]));
    try {
      const raw = await new Promise((resolve, reject) => {
        http.get(`${server.url}/`, (res) => { res.resume(); resolve(res.rawHeaders); }).on('error', reject);
      });
      const names = raw.filter((_, i) => i % 2 === 0);
      expect(names).toContain('Content-Security-Policy');
      expect(names).toContain('X-Content-Type-Options');
      expect(names).not.toContain('X-Powered-By');
      expect(names.filter((n) => n.toLowerCase() === 'x-frame-options')).toEqual(['X-Frame-Options']);
    } finally {
      await server.close();
    }
  });
});
