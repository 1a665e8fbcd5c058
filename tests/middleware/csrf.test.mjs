// csrfProtection() (middleware/csrf.ts) over real HTTP on 127.0.0.1, on Express 5 and
// Express 4: the cookie a GET receives and its attributes, req.csrfToken(), each refusal
// reason (403 JSON), the token in the header, a form field and a JSON field, forged and
// tampered tokens, tokens of another secret, safe methods, the __Host- prefix, other
// Set-Cookie headers kept, onReject; option errors that name the option.

import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { csrfProtection, CSRF_DEFAULTS } from '../../dist/middleware/csrf.js';
import { EXPRESSES, listen } from './support.mjs';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const OTHER_SECRET = 'another-secret-of-at-least-32-characters';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;

// The documented token format, built independently of the module.
const makeToken = (secret, random = randomBytes(32)) =>
  `${random.toString('base64url')}.${createHmac('sha256', secret).update(random).digest('base64url')}`;

function makeApp(express, options, { before, trustProxy = false } = {}) {
  const app = express();
  if (trustProxy) app.set('trust proxy', 1);
  if (before) app.use(before);
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  app.use(csrfProtection(options));
  app.get('/form', (req, res) => res.json({ token: req.csrfToken() }));
  app.all('/submit', (req, res) => res.json({ ok: true, method: req.method }));
  app.get('/cookie', (req, res) => {
    res.cookie('app', 'route');
    res.json({ token: req.csrfToken() });
  });
  return app;
}

/** The Set-Cookie headers of a response, and the csrf one parsed. */
function cookiesOf(res, name = CSRF_DEFAULTS.cookieName) {
  const all = res.headers.getSetCookie();
  const line = all.find((c) => c.startsWith(`${name}=`)) ?? null;
  if (line === null) return { all, line, value: null, attributes: null };
  const [pair, ...attributes] = line.split('; ');
  return { all, line, value: pair.slice(name.length + 1), attributes };
}

async function getToken(url, name) {
  const res = await fetch(`${url}/form`);
  const { token } = await res.json();
  const { value } = cookiesOf(res, name);
  expect(value).toBe(token);
  return token;
}

const post = (url, { cookie, headers = {}, body, method = 'POST' } = {}) =>
  fetch(`${url}/submit`, { method, headers: { ...(cookie ? { cookie } : {}), ...headers }, body });

async function expectRefused(res, message) {
  expect(res.status).toBe(403);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await res.json()).toEqual({ error: 'csrf', message });
}

describe('default secret', () => {
  it('warns once per process and is shared by every instance of the process', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const a = csrfProtection();
      const b = csrfProtection({ headerName: 'x-other' });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/no "secret" given.*will not survive a restart/);
      const [express] = EXPRESSES[0].slice(1);
      const appA = express();
      appA.use(a);
      appA.get('/form', (req, res) => res.json({ token: req.csrfToken() }));
      const appB = express();
      appB.use(b);
      appB.post('/submit', (req, res) => res.json({ ok: true }));
      const sa = await listen(appA);
      const sb = await listen(appB);
      try {
        const token = await getToken(sa.url);
        const res = await post(sb.url, { cookie: `shield.csrf=${token}`, headers: { 'x-other': token } });
        expect(res.status).toBe(200);
        csrfProtection();
        expect(warn).toHaveBeenCalledTimes(1);
      } finally {
        await sa.close();
        await sb.close();
      }
    } finally {
      warn.mockRestore();
    }
  });
});

describe.each(EXPRESSES)('%s', (_name, express) => {
  const s = {};
  beforeAll(async () => {
    s.main = await listen(makeApp(express, { secret: SECRET }));
    s.other = await listen(makeApp(express, { secret: OTHER_SECRET }));
    s.host = await listen(makeApp(express, { secret: SECRET, hostPrefix: true }));
    s.proxied = await listen(makeApp(express, { secret: SECRET }, { trustProxy: true }));
    s.custom = await listen(makeApp(express, {
      secret: Buffer.from(SECRET),
      headerName: 'X-XSRF',
      fieldName: 'authenticity',
      ignoreMethods: ['get', 'head', 'options', 'PATCH'],
      cookie: { sameSite: 'lax', httpOnly: false, maxAge: 3600 },
    }));
    s.appCookies = await listen(makeApp(express, { secret: SECRET }, {
      before: (req, res, next) => { res.cookie('early', 'mw'); res.cookie('early2', 'mw2'); next(); },
    }));
    s.rejectCustom = await listen(makeApp(express, {
      secret: SECRET,
      onReject: (req, res, reason) => { res.statusCode = 419; res.end(`custom: ${reason}`); },
    }));
    s.rejectLog = await listen(makeApp(express, { secret: SECRET, onReject: (req, res, reason) => s.rejectLog.seen.push(reason) }));
    s.rejectLog.seen = [];
  });
  afterAll(async () => {
    await Promise.all(Object.values(s).map((x) => x.close()));
  });

  describe('issuing', () => {
    it('gives a GET a signed cookie, and req.csrfToken() returns its value', async () => {
      const res = await fetch(`${s.main.url}/form`);
      expect(res.status).toBe(200);
      const { token } = await res.json();
      const c = cookiesOf(res);
      expect(c.value).toMatch(TOKEN_SHAPE);
      expect(c.value).toBe(token);
      expect(c.attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict']);
      // the signature is HMAC-SHA-256(secret, random bytes)
      const random = Buffer.from(token.split('.')[0], 'base64url');
      expect(random).toHaveLength(32);
      expect(token).toBe(makeToken(SECRET, random));
    });

    it('issues a different token to each new client', async () => {
      const a = await getToken(s.main.url);
      const b = await getToken(s.main.url);
      expect(a).not.toBe(b);
    });

    it('keeps a valid cookie: no new Set-Cookie, same token', async () => {
      const token = await getToken(s.main.url);
      const res = await fetch(`${s.main.url}/form`, { headers: { cookie: `x=1; shield.csrf=${token}; y=2` } });
      expect(cookiesOf(res).line).toBeNull();
      expect((await res.json()).token).toBe(token);
    });

    it('replaces an invalid cookie with a fresh one', async () => {
      const token = await getToken(s.other.url);
      const res = await fetch(`${s.main.url}/form`, { headers: { cookie: `shield.csrf=${token}` } });
      const { value } = cookiesOf(res);
      expect(value).toMatch(TOKEN_SHAPE);
      expect(value).not.toBe(token);
      expect((await res.json()).token).toBe(value);
    });

    it('adds Secure when req.secure is true (trust proxy, X-Forwarded-Proto: https)', async () => {
      const res = await fetch(`${s.proxied.url}/form`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(cookiesOf(res).attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Secure']);
      const spoofed = await fetch(`${s.main.url}/form`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(cookiesOf(spoofed).attributes).not.toContain('Secure');
    });

    it('keeps the Set-Cookie headers of other middleware and of the route', async () => {
      const res = await fetch(`${s.appCookies.url}/cookie`);
      const { all, value } = cookiesOf(res);
      expect(value).toMatch(TOKEN_SHAPE);
      expect(all.map((c) => c.split(';')[0])).toEqual(['early=mw', 'early2=mw2', `shield.csrf=${value}`, 'app=route']);
    });
  });

  describe('checking', () => {
    it('refuses a POST without the cookie (and issues one for the next attempt)', async () => {
      const res = await post(s.main.url, { headers: { 'x-csrf-token': makeToken(SECRET) } });
      expect(cookiesOf(res).value).toMatch(TOKEN_SHAPE);
      await expectRefused(res, 'missing CSRF cookie');
    });

    it('refuses a POST with the cookie but no token', async () => {
      const token = await getToken(s.main.url);
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${token}` }), 'missing CSRF token');
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': '' } }), 'missing CSRF token');
    });

    it('accepts the token in the x-csrf-token header', async () => {
      const token = await getToken(s.main.url);
      const res = await post(s.main.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true, method: 'POST' });
    });

    it('accepts the token in a urlencoded form field _csrf', async () => {
      const token = await getToken(s.main.url);
      const res = await post(s.main.url, {
        cookie: `shield.csrf=${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'x', _csrf: token }).toString(),
      });
      expect(res.status).toBe(200);
    });

    it('accepts the token in a JSON body field _csrf', async () => {
      const token = await getToken(s.main.url);
      const res = await post(s.main.url, {
        cookie: `shield.csrf=${token}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ _csrf: token }),
      });
      expect(res.status).toBe(200);
    });

    it('refuses a token that does not match the cookie, even one validly signed', async () => {
      const token = await getToken(s.main.url);
      const other = await getToken(s.main.url);
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': other } }), 'CSRF token does not match');
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token.slice(0, 40) } }), 'CSRF token does not match');
      await expectRefused(await post(s.main.url, {
        cookie: `shield.csrf=${token}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ _csrf: ['x'] }),
      }), 'missing CSRF token');
    });

    it('refuses a cookie whose signature was tampered with', async () => {
      const token = await getToken(s.main.url);
      const [random, sig] = token.split('.');
      const flipped = `${random}.${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${flipped}`, headers: { 'x-csrf-token': flipped } }), 'invalid CSRF cookie');
      // a new random part under the old signature
      const swapped = `${randomBytes(32).toString('base64url')}.${sig}`;
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${swapped}`, headers: { 'x-csrf-token': swapped } }), 'invalid CSRF cookie');
      // wrong shapes: unsigned, padded, too long
      for (const bad of [random, `${token}=`, `${token}A`, 'x'.repeat(87)]) {
        await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${bad}`, headers: { 'x-csrf-token': bad } }), 'invalid CSRF cookie');
      }
    });

    it('refuses a cookie and token pair signed with another secret', async () => {
      const token = await getToken(s.other.url);
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token } }), 'invalid CSRF cookie');
      const forged = makeToken(OTHER_SECRET);
      await expectRefused(await post(s.main.url, { cookie: `shield.csrf=${forged}`, headers: { 'x-csrf-token': forged } }), 'invalid CSRF cookie');
      // the same pair is fine where that secret is the key
      expect((await post(s.other.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token } })).status).toBe(200);
    });

    it('accepts a forged-looking pair only when signed with the secret itself', async () => {
      const token = makeToken(SECRET);
      expect((await post(s.main.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token } })).status).toBe(200);
    });

    it('checks PUT, PATCH and DELETE, and skips GET, HEAD and OPTIONS', async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        await expectRefused(await post(s.main.url, { method }), 'missing CSRF cookie');
      }
      for (const method of ['GET', 'HEAD', 'OPTIONS']) {
        const res = await post(s.main.url, { method });
        expect(res.status, method).toBe(200);
      }
    });

    it('parses the Cookie header tolerantly: spaces, quotes, other cookies, the valid one of several', async () => {
      const token = await getToken(s.main.url);
      const stale = makeToken(OTHER_SECRET);
      for (const cookie of [`a=1;shield.csrf="${token}" ; b=2`, `shield.csrf=${stale}; shield.csrf=${token}`, `novalue; =x; shield.csrf = ${token}`]) {
        const res = await post(s.main.url, { cookie, headers: { 'x-csrf-token': token } });
        expect(res.status, cookie).toBe(200);
      }
      // a cookie whose name only ends with the right name is someone else's
      await expectRefused(await post(s.main.url, { cookie: `xshield.csrf=${token}`, headers: { 'x-csrf-token': token } }), 'missing CSRF cookie');
    });
  });

  describe('__Host- prefix', () => {
    it('names the cookie __Host-shield.csrf with Secure, Path=/ and no Domain', async () => {
      const res = await fetch(`${s.host.url}/form`);
      const c = cookiesOf(res, '__Host-shield.csrf');
      expect(c.value).toMatch(TOKEN_SHAPE);
      expect(c.attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Secure']);
      expect(c.line).not.toMatch(/domain=/i);
    });

    it('checks the prefixed cookie, not one without the prefix', async () => {
      const token = await getToken(s.host.url, '__Host-shield.csrf');
      expect((await post(s.host.url, { cookie: `__Host-shield.csrf=${token}`, headers: { 'x-csrf-token': token } })).status).toBe(200);
      await expectRefused(await post(s.host.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token } }), 'missing CSRF cookie');
    });

    it('refuses a cookie name without the prefix and attributes a __Host- cookie cannot have', () => {
      expect(() => csrfProtection({ secret: SECRET, hostPrefix: true, cookieName: 'csrf' }))
        .toThrow(/option "cookieName" must start with "__Host-" when hostPrefix is true/);
      expect(() => csrfProtection({ secret: SECRET, hostPrefix: true, cookie: { secure: false } })).toThrow(/option "cookie.secure"/);
      expect(() => csrfProtection({ secret: SECRET, hostPrefix: true, cookie: { domain: 'example.com' } })).toThrow(/option "cookie.domain"/);
      expect(() => csrfProtection({ secret: SECRET, hostPrefix: true, cookie: { path: '/app' } })).toThrow(/option "cookie.path" must be "\/"/);
      expect(() => csrfProtection({ secret: SECRET, hostPrefix: true, cookieName: '__Host-mine' })).not.toThrow();
    });
  });

  describe('options', () => {
    it('uses a custom header, field, ignored methods and cookie attributes', async () => {
      const res = await fetch(`${s.custom.url}/form`);
      const c = cookiesOf(res);
      expect(c.attributes).toEqual(['Path=/', 'Max-Age=3600', 'SameSite=Lax']);
      const token = c.value;
      expect((await post(s.custom.url, { cookie: `shield.csrf=${token}`, headers: { 'x-xsrf': token } })).status).toBe(200);
      expect((await post(s.custom.url, {
        cookie: `shield.csrf=${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `authenticity=${token}`,
      })).status).toBe(200);
      await expectRefused(await post(s.custom.url, { cookie: `shield.csrf=${token}`, headers: { 'x-csrf-token': token } }), 'missing CSRF token');
      expect((await post(s.custom.url, { method: 'PATCH' })).status).toBe(200);
      // a Buffer secret is the same key as the string it holds
      const fromMain = await getToken(s.main.url);
      expect((await post(s.custom.url, { cookie: `shield.csrf=${fromMain}`, headers: { 'x-xsrf': fromMain } })).status).toBe(200);
    });

    it('onReject can answer the refusal itself', async () => {
      const res = await post(s.rejectCustom.url);
      expect(res.status).toBe(419);
      expect(await res.text()).toBe('custom: missing CSRF cookie');
    });

    it('onReject that does not answer gets the default 403', async () => {
      const token = await getToken(s.rejectLog.url);
      await expectRefused(await post(s.rejectLog.url, { cookie: `shield.csrf=${token}` }), 'missing CSRF token');
      expect(s.rejectLog.seen).toEqual(['missing CSRF token']);
    });
  });
});

describe('reading the Cookie header', () => {
  // The middleware called directly (it needs only these few members): headers far beyond
  // Node's 16 KB header limit, and a Cookie header given as an array.
  const mw = csrfProtection({ secret: SECRET });
  const TOKEN = makeToken(SECRET);
  const STALE = makeToken(OTHER_SECRET);
  const outcome = (cookie) => {
    const res = {
      statusCode: 200, headersSent: false, body: null,
      getHeader: () => undefined, setHeader: () => {}, end(body) { this.body = body; },
    };
    let passed = false;
    mw({ method: 'POST', headers: { cookie, 'x-csrf-token': TOKEN } }, res, () => { passed = true; });
    return passed ? 'ok' : JSON.parse(res.body).message;
  };

  // [Cookie header, outcome], as the search for '=' from each pair to the end of the header gave them
  const cases = [
    [`flag; shield.csrf=${TOKEN}`, 'ok'],
    [`shield.csrf; a=${TOKEN}`, 'missing CSRF cookie'], // the '=' of the next pair is not this pair's
    [`shield.csrf;=${TOKEN}`, 'missing CSRF cookie'],
    [`shield.csrf; shield.csrf=${TOKEN}`, 'ok'],
    [`a; b;; ;c; shield.csrf = "${TOKEN}" ;d`, 'ok'],
    [`a=b=c; shield.csrf\t=\t${TOKEN}; e`, 'ok'],
    ['shield.csrf', 'missing CSRF cookie'],
    [`=${TOKEN}; shield.csrf`, 'missing CSRF cookie'],
    ['shield.csrf=; x', 'invalid CSRF cookie'],
    [`x;shield.csrf=${STALE}; y`, 'invalid CSRF cookie'],
    [`x;shield.csrf=${STALE}; y; shield.csrf=${TOKEN}; z`, 'ok'],
    [`shield.csrf=${TOKEN}=`, 'invalid CSRF cookie'],
    [`${'shield.csrf=x; '.repeat(8)}shield.csrf=${TOKEN}`, 'invalid CSRF cookie'], // 8 of a name at most
    [`${'shield.csrf; '.repeat(8)}shield.csrf=${TOKEN}`, 'ok'], // pairs without '=' are not counted
    [['flag', `shield.csrf=${TOKEN}`], 'ok'],
    [['shield.csrf', `x=${TOKEN}`], 'missing CSRF cookie'],
  ];
  it.each(cases)('%j', (cookie, expected) => {
    expect(outcome(cookie)).toBe(expected);
  });

  it('the cookie after 3,000,000 pairs without \'=\': once minutes, now milliseconds', () => {
    expect(outcome(`${'a;'.repeat(3_000_000)}shield.csrf=${TOKEN}`)).toBe('ok');
  });
});

describe('CSRF_DEFAULTS', () => {
  it('holds the documented defaults', () => {
    expect(CSRF_DEFAULTS).toEqual({
      cookieName: 'shield.csrf',
      hostPrefixCookieName: '__Host-shield.csrf',
      hostPrefix: false,
      headerName: 'x-csrf-token',
      fieldName: '_csrf',
      ignoreMethods: ['GET', 'HEAD', 'OPTIONS'],
      cookie: { sameSite: 'Strict', httpOnly: true, path: '/' },
    });
    expect(Object.isFrozen(CSRF_DEFAULTS)).toBe(true);
  });
});

describe('option errors name the option', () => {
  const cases = [
    [{ secret: 'short' }, /option "secret" must be a string of at least 32 characters/],
    [{ secret: 'x'.repeat(31) }, /option "secret"/],
    [{ secret: Buffer.alloc(31) }, /option "secret" must be a string of at least 32 characters or at least 32 bytes/],
    [{ secret: 12345 }, /option "secret"/],
    [{ secret: SECRET, cookieName: 'bad name' }, /option "cookieName"/],
    [{ secret: SECRET, cookieName: '' }, /option "cookieName"/],
    [{ secret: SECRET, hostPrefix: 'yes' }, /option "hostPrefix" must be a boolean/],
    [{ secret: SECRET, headerName: 'x csrf' }, /option "headerName"/],
    [{ secret: SECRET, fieldName: 7 }, /option "fieldName"/],
    [{ secret: SECRET, ignoreMethods: 'GET' }, /option "ignoreMethods"/],
    [{ secret: SECRET, ignoreMethods: ['GET', 1] }, /option "ignoreMethods"/],
    [{ secret: SECRET, cookie: { sameSite: 'sometimes' } }, /option "cookie.sameSite"/],
    [{ secret: SECRET, cookie: { sameSite: 'None', secure: false } }, /option "cookie.secure" cannot be false with sameSite "None"/],
    [{ secret: SECRET, cookie: { httpOnly: 'no' } }, /option "cookie.httpOnly" must be a boolean/],
    [{ secret: SECRET, cookie: { maxAge: -1 } }, /option "cookie.maxAge"/],
    [{ secret: SECRET, cookie: { path: 'app' } }, /option "cookie.path"/],
    [{ secret: SECRET, cookie: { path: '/;x' } }, /option "cookie.path"/],
    [{ secret: SECRET, cookie: { expires: 1 } }, /unknown option "cookie.expires"/],
    [{ secret: SECRET, onReject: 'log' }, /option "onReject" must be a function/],
  ];
  it.each(cases)('%j', (options, message) => {
    expect(() => csrfProtection(options)).toThrow(TypeError);
    expect(() => csrfProtection(options)).toThrow(message);
    expect(() => csrfProtection(options)).toThrow(/^csrfProtection: /);
  });

  it('sameSite None always adds Secure', async () => {
    const [express] = EXPRESSES[0].slice(1);
    const app = express();
    app.use(csrfProtection({ secret: SECRET, cookie: { sameSite: 'none' } }));
    app.get('/form', (req, res) => res.json({ token: req.csrfToken() }));
    const srv = await listen(app);
    try {
      const res = await fetch(`${srv.url}/form`);
      expect(cookiesOf(res).attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=None', 'Secure']);
    } finally {
      await srv.close();
    }
  });
});
