// errorHandler() and scrubText() (middleware/error-handler.ts). Over real HTTP on 127.0.0.1, on
// Express 5 and Express 4: production bodies carry only a generic message (or a scrubbed 4xx
// message marked `expose`) and an incident id; each category of leak is checked by the text
// it would have shown; status propagation; development mode shows message and stack; an error
// after the headers went out is handed to Express. scrubText: a table per category, text that
// must stay, and fast-check properties (seed 42): never throws, idempotent, a secret from the
// environment never survives.

import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import fc from 'fast-check';
import { errorHandler, scrubText, REDACTED } from '../../dist/middleware/error-handler.js';
import { EXPRESSES, listen } from './support.mjs';

const SECRET = 'shield-test-secret-Zq81vK2mPx';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An error as http-errors makes them: a status, and `expose` for client errors. */
const httpError = (status, message, extra = {}) => Object.assign(new Error(message), { status, expose: status < 500 }, extra);

// Texts that must never reach a client, and a fragment of each that would prove the leak.
const LEAKS = {
  stack: ['Error: boom\n    at handler (/app/src/routes/users.js:42:13)\n    at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)', ['users.js', 'node_modules', 'at handler']],
  mysql: ["ER_PARSE_ERROR: You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'x' at line 1", ['ER_PARSE_ERROR', 'SQL syntax', "near 'x'"]],
  sqlite: ['SQLITE_ERROR: no such table: users', ['SQLITE_ERROR', 'no such table', 'users']],
  postgres: ['relation "users" does not exist', ['relation', 'users', 'does not exist']],
  connection: ['could not reach postgres://admin:s3cretpw@db.example.com:5432/app', ['postgres://', 'admin', 's3cretpw', 'db.example.com']],
  mongo: ['failed: mongodb+srv://root:pw123@cluster0.mongodb.net/prod', ['mongodb', 'root', 'pw123', 'cluster0']],
  ado: ['login to Server=sql01;Database=app;User Id=sa;Password=Hunter2!; failed', ['sql01', 'Hunter2!', 'Password=']],
  ipv4: ['upstream 10.12.0.7:8080 timed out', ['10.12.0.7', ':8080']],
  ipv6: ['connect ECONNREFUSED ::1:5432', ['::1']],
  path: ['cannot open C:\\Users\\svc\\app\\config.json', ['C:\\', 'svc', 'config.json']],
  env: [`invalid signature for key ${SECRET}`, [SECRET]],
};

function makeApp(express, options) {
  const app = express();
  const seen = [];
  app.get('/throw', () => { throw new Error(`db at 10.0.0.5 said ${LEAKS.mysql[0]}\n    at q (/app/db.js:1:1)`); });
  app.get('/leak/:kind', (req, res, next) => next(httpError(400, LEAKS[req.params.kind][0])));
  app.get('/status/:code', (req, res, next) => next(httpError(Number(req.params.code), `custom message ${req.params.code}`)));
  app.get('/hidden', (req, res, next) => next(Object.assign(new Error('user 42 is in table accounts'), { status: 404 })));
  app.get('/statusCode', (req, res, next) => next(Object.assign(new Error('gone'), { statusCode: 410, expose: true })));
  app.get('/odd-status', (req, res, next) => next(Object.assign(new Error('moved'), { status: 302, expose: true })));
  app.get('/string', () => { throw 'a string with /app/secret.js'; });
  app.get('/headers', (req, res, next) => next(httpError(429, 'slow down', { headers: { 'Retry-After': '30', 'X-Debug': 'internal' } })));
  app.get('/stale', (req, res, next) => {
    res.setHeader('Content-Disposition', 'attachment; filename="report.csv"');
    next(httpError(500, 'x'));
  });
  app.get('/partial', (req, res, next) => {
    res.write('partial body ');
    setTimeout(() => next(new Error('late failure')), 5);
  });
  app.use(errorHandler({ onError: (err, req, incident) => seen.push({ err, incident, url: req.originalUrl ?? req.url }), ...options }));
  return { app, seen };
}

describe.each(EXPRESSES)('%s', (_name, express) => {
  let prod;
  let dev;
  let envMode;
  beforeAll(async () => {
    process.env.SHIELD_TEST_SECRET = SECRET;
    prod = { ...makeApp(express, { development: false }) };
    Object.assign(prod, await listen(prod.app));
    dev = { ...makeApp(express, { development: true }) };
    Object.assign(dev, await listen(dev.app));
    envMode = { ...makeApp(express, {}) };
    Object.assign(envMode, await listen(envMode.app));
  });
  afterAll(async () => {
    delete process.env.SHIELD_TEST_SECRET;
    await Promise.all([prod.close(), dev.close(), envMode.close()]);
  });

  describe('production', () => {
    it('answers an unexpected error with 500, a generic message and an incident id, nothing else', async () => {
      const res = await fetch(`${prod.url}/throw`);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const text = await res.text();
      const body = JSON.parse(text);
      expect(Object.keys(body)).toEqual(['error', 'incident']);
      expect(body.error).toBe('Internal Server Error');
      expect(body.incident).toMatch(UUID);
      for (const leak of ['10.0.0.5', 'ER_PARSE', 'db.js', 'at q', 'stack']) expect(text).not.toContain(leak);
      // the full error went to onError under the same incident id
      const logged = prod.seen.find((e) => e.incident === body.incident);
      expect(logged.url).toBe('/throw');
      expect(logged.err.message).toContain('ER_PARSE_ERROR');
    });

    it.each(Object.keys(LEAKS))('scrubs an exposed 4xx message: %s', async (kind) => {
      const [, fragments] = LEAKS[kind];
      const res = await fetch(`${prod.url}/leak/${kind}`);
      expect(res.status).toBe(400);
      const text = await res.text();
      for (const f of fragments) expect(text).not.toContain(JSON.stringify(f).slice(1, -1));
      const body = JSON.parse(text);
      expect(body.incident).toMatch(UUID);
      // what is left is either the generic text or the message with the leak replaced
      if (body.error !== 'Bad Request') expect(body.error).toContain(REDACTED);
    });

    it('keeps the harmless part of a scrubbed message', async () => {
      const body = await (await fetch(`${prod.url}/leak/connection`)).json();
      expect(body.error).toBe(`could not reach ${REDACTED}`);
      const env = await (await fetch(`${prod.url}/leak/env`)).json();
      expect(env.error).toBe(`invalid signature for key ${REDACTED}`);
      // database errors are dropped whole
      expect((await (await fetch(`${prod.url}/leak/sqlite`)).json()).error).toBe('Bad Request');
    });

    it('propagates 4xx statuses with their exposed message, and hides 5xx messages', async () => {
      for (const [code, error] of [[400, 'custom message 400'], [404, 'custom message 404'], [422, 'custom message 422'], [503, 'Service Unavailable'], [500, 'Internal Server Error']]) {
        const res = await fetch(`${prod.url}/status/${code}`);
        expect(res.status).toBe(code);
        expect((await res.json()).error).toBe(error);
      }
    });

    it('uses the generic text of a 4xx whose message is not marked expose', async () => {
      const res = await fetch(`${prod.url}/hidden`);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe('Not Found');
    });

    it('reads statusCode too, and turns a non-error status into 500', async () => {
      const gone = await fetch(`${prod.url}/statusCode`);
      expect(gone.status).toBe(410);
      expect((await gone.json()).error).toBe('gone');
      const odd = await fetch(`${prod.url}/odd-status`);
      expect(odd.status).toBe(500);
      expect((await odd.json()).error).toBe('Internal Server Error');
    });

    it('handles a thrown string', async () => {
      const res = await fetch(`${prod.url}/string`);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toContain('secret.js');
      expect(JSON.parse(text).error).toBe('Internal Server Error');
    });

    it('passes Retry-After of a 429 through, not other error headers', async () => {
      const res = await fetch(`${prod.url}/headers`);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('30');
      expect(res.headers.get('x-debug')).toBeNull();
      expect((await res.json()).error).toBe('slow down');
    });

    it('drops headers the route set for the body it meant to send', async () => {
      const res = await fetch(`${prod.url}/stale`);
      expect(res.status).toBe(500);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    it('sends no body to HEAD', async () => {
      const res = await fetch(`${prod.url}/throw`, { method: 'HEAD' });
      expect(res.status).toBe(500);
      expect(await res.text()).toBe('');
    });

    it('hands an error after the headers went out to Express, which cuts the response', async () => {
      const before = prod.seen.length;
      const res = await fetch(`${prod.url}/partial`);
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      expect(prod.seen.length).toBe(before + 1);
      expect(prod.seen.at(-1).err.message).toBe('late failure');
    });
  });

  describe('development', () => {
    it('shows the message and the stack, as JSON', async () => {
      const res = await fetch(`${dev.url}/throw`);
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body.error).toContain('ER_PARSE_ERROR');
      expect(body.stack).toMatch(/^Error: db at 10\.0\.0\.5/);
      expect(body.stack).toMatch(/\n\s+at /);
      expect(body.incident).toMatch(UUID);
    });

    it('follows NODE_ENV at each error when the option is not given', async () => {
      const saved = process.env.NODE_ENV;
      try {
        process.env.NODE_ENV = 'development';
        expect((await (await fetch(`${envMode.url}/throw`)).json()).stack).toContain('at ');
        for (const value of ['production', 'Development', 'dev', '']) {
          process.env.NODE_ENV = value;
          const body = await (await fetch(`${envMode.url}/throw`)).json();
          expect(body.stack, value).toBeUndefined();
          expect(body.error).toBe('Internal Server Error');
        }
      } finally {
        if (saved === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = saved;
      }
    });
  });
});

describe('errorHandler options', () => {
  const fakeRes = () => {
    const headers = {};
    return { statusCode: 200, headersSent: false, headers, body: undefined, setHeader(n, v) { headers[n.toLowerCase()] = v; }, removeHeader(n) { delete headers[n.toLowerCase()]; }, end(b) { this.body = b; } };
  };

  it('logs each error once with its incident id by default', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const err = new Error('boom');
      const res = fakeRes();
      errorHandler({ development: false })(err, {}, res, () => {});
      expect(log).toHaveBeenCalledTimes(1);
      const incident = JSON.parse(res.body).incident;
      expect(log.mock.calls[0][0]).toBe(`errorHandler: incident ${incident}:`);
      expect(log.mock.calls[0][1]).toBe(err);
    } finally {
      log.mockRestore();
    }
  });

  it('still answers when onError throws, and reports that once', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const handler = errorHandler({ development: false, onError: () => { throw new Error('logger down'); } });
      for (let i = 0; i < 3; i++) {
        const res = fakeRes();
        handler(new Error('x'), {}, res, () => {});
        expect(res.statusCode).toBe(500);
        expect(JSON.parse(res.body).error).toBe('Internal Server Error');
      }
      expect(log).toHaveBeenCalledTimes(1);
    } finally {
      log.mockRestore();
    }
  });

  it('calls next(err) when the headers were sent', () => {
    const res = { ...fakeRes(), headersSent: true };
    const err = new Error('late');
    const next = vi.fn();
    errorHandler({ onError: () => {} })(err, {}, res, next);
    expect(next).toHaveBeenCalledWith(err);
    expect(res.body).toBeUndefined();
  });

  it('has four parameters, so Express treats it as an error handler', () => {
    expect(errorHandler().length).toBe(4);
  });

  it('refuses bad options, naming them', () => {
    expect(() => errorHandler({ development: 'yes' })).toThrow(/errorHandler: option "development" must be a boolean/);
    expect(() => errorHandler({ onError: 'console' })).toThrow(/errorHandler: option "onError" must be a function/);
    expect(() => errorHandler({ devMode: true })).toThrow(/errorHandler: unknown option "devMode"/);
    expect(() => errorHandler(5)).toThrow(TypeError);
  });
});

describe('scrubText', () => {
  beforeAll(() => { process.env.SHIELD_TEST_SECRET = SECRET; });
  afterAll(() => { delete process.env.SHIELD_TEST_SECRET; });

  // [input, expected output]
  const table = [
    // stack frames: a run of frame lines becomes one marker line
    ['Error: boom\n    at handler (/app/src/x.js:10:5)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\ndone',
      `Error: boom\n${REDACTED}\ndone`],
    ['    at Function.Module._load (node:internal/modules/cjs/loader:1104:14)', REDACTED],
    ['at file:///srv/app/index.mjs:3:9', REDACTED],
    ['failed at Function.handle (/opt/app/server.js:3:1)', `failed at ${REDACTED} ${REDACTED}`],
    ['loaded from /app/node_modules/pg/lib/client.js', `loaded from ${REDACTED}`],
    // database error text: dropped whole
    ["ER_PARSE_ERROR: You have an error in your SQL syntax; near 'x' at line 1", REDACTED],
    ['ER_NO_SUCH_TABLE: Table \'app.users\' doesn\'t exist', REDACTED],
    ['SQLITE_ERROR: no such table: users', REDACTED],
    ['relation "users" does not exist', REDACTED],
    ['duplicate key value violates unique constraint "users_email_key"', REDACTED],
    ['E11000 duplicate key error collection: app.users index: email_1', REDACTED],
    ['ORA-00942: table or view does not exist', REDACTED],
    ['SequelizeDatabaseError: column "x" does not exist', REDACTED],
    // connection strings and credentials in URLs
    ['db postgres://user:pass@host:5432/db down', `db ${REDACTED} down`],
    ['using mongodb://mongo:27017/app', `using ${REDACTED}`],
    ['(mysql://root:root@127.0.0.1/app)', REDACTED],
    ['cache redis://:hunter2@cache:6379/0', `cache ${REDACTED}`],
    ['jdbc:postgresql://db/app', REDACTED],
    ['fetch https://ghp_abc123@github.com/org/repo failed', `fetch ${REDACTED} failed`],
    ['Server=db1;Database=app;Password=x', REDACTED],
    ['password=hunter2', REDACTED],
    ['{"token":"abc"}', REDACTED],
    ['Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-nature_x', `Bearer ${REDACTED}`],
    // internal addresses and names, with ports
    ['from 10.0.0.1', `from ${REDACTED}`],
    ['to 172.16.5.4:3000, 172.31.255.255 and 192.168.1.10', `to ${REDACTED} ${REDACTED} and ${REDACTED}`],
    ['local 127.0.0.1:8080 / ::1 / [::1]:443', `local ${REDACTED} / ${REDACTED} / ${REDACTED}`],
    ['v6 fd12:3456:789a::1 and fe80::1%eth0', `v6 ${REDACTED} and ${REDACTED}`],
    ['metadata 169.254.169.254', `metadata ${REDACTED}`],
    ['getaddrinfo ENOTFOUND db.prod.internal', `getaddrinfo ENOTFOUND ${REDACTED}`],
    ['svc payments.default.svc.cluster.local:80', `svc ${REDACTED}`],
    // file paths
    ['open /app/src/config.js', `open ${REDACTED}`],
    ['read /home/deploy/.env', `read ${REDACTED}`],
    ['C:\\inetpub\\wwwroot\\web.config', REDACTED],
    ['share \\\\fileserver\\backups', `share ${REDACTED}`],
    ['see src/db/pool.ts:10:5', `see ${REDACTED}`],
    // environment values
    [`key=${SECRET}`, `key=${REDACTED}`],
    [`the secret ${SECRET} leaked twice: ${SECRET}!`, `the secret ${REDACTED} leaked twice: ${REDACTED}!`],
    [`glued${SECRET}glued`, `glued${REDACTED}glued`],
  ];
  it.each(table)('%j', (input, expected) => {
    expect(scrubText(input)).toBe(expected);
  });

  const benign = [
    'Invalid email address',
    'Password must be at least 8 characters',
    'at least 8 characters',
    'User 42 not found',
    'Route /users/42 does not accept POST',
    'Unexpected token } in JSON at position 10',
    'public address 8.8.8.8 and 1.1.1.1:53 are fine',
    'see https://example.com/docs/errors.html',
    'version 1.2.3 of the API',
    'quantity must be between 1 and 10',
    'the field "name" is required; got null',
    'Missing CSRF token',
    'time 12:30:45 on 2024-05-01',
  ];
  it.each(benign)('keeps %j', (text) => {
    expect(scrubText(text)).toBe(text);
  });

  it('never throws on values that are not strings', () => {
    for (const v of [undefined, null, 42, {}, [], Symbol('x')]) expect(scrubText(v)).toBe('');
  });

  it('follows the environment as it is when called', () => {
    const value = 'late-added-value-9f2c';
    expect(scrubText(`x ${value}`)).toBe(`x ${value}`);
    process.env.SHIELD_TEST_LATE = value;
    try {
      expect(scrubText(`x ${value}`)).toBe(`x ${REDACTED}`);
    } finally {
      delete process.env.SHIELD_TEST_LATE;
    }
  });

  it('ignores short values and those of shell and locale variables', () => {
    process.env.SHIELD_TEST_SHORT = 'abcde';
    try {
      expect(scrubText('abcde')).toBe('abcde');
      expect(scrubText(`in ${process.env.PWD ?? ''} now`)).not.toContain(REDACTED.repeat(2));
    } finally {
      delete process.env.SHIELD_TEST_SHORT;
    }
  });

  it('is linear: a megabyte of hostile-looking text takes well under a second', () => {
    const unit = '10.0.0.1:1 ::1: a=b; /app/ .js::: ER_ x://y@ eyJ.. ';
    const big = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const t0 = performance.now();
    const out = scrubText(big);
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(out).not.toContain('10.0.0.1');
    const noSpace = 'a:'.repeat(500_000);
    const t1 = performance.now();
    scrubText(noSpace);
    expect(performance.now() - t1).toBeLessThan(1500);
  });

  describe('JSON Web Tokens: each run of base64url and dots is read once', () => {
    const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln';
    // [input, expected output], as the search that started over at every `eyJ` gave them
    const cases = [
      [`eyJeyJeyJ,${JWT}`, REDACTED], // a token right after a run that failed
      [`eyJ!${JWT}!eyJ`, REDACTED],
      ['eyJ'.repeat(10), 'eyJ'.repeat(10)],
      [`${'eyJ'.repeat(5)}.a.b`, `${'eyJ'.repeat(5)}.a.b`], // two dots, 19 characters: too short
      [`${'eyJ'.repeat(6)}.a.b`, REDACTED],
      [`aeyJb.c.${'d'.repeat(14)}`, REDACTED], // `eyJ` inside a run starts it there
      [`x.y.eyJ${'a'.repeat(20)}`, `x.y.eyJ${'a'.repeat(20)}`], // dots before `eyJ` do not count
      [`eyJ.${'a'.repeat(20)},b.c`, `eyJ.${'a'.repeat(20)},b.c`], // nor dots of the next run
      [`eyJ.${'a'.repeat(20)}.`, REDACTED],
      [`eyJa.b,eyJ${'c'.repeat(20)}.d.e`, REDACTED],
      [`ab eyJ.x.y ${JWT}`, `ab eyJ.x.y ${REDACTED}`],
    ];
    it.each(cases)('%j', (input, expected) => {
      expect(scrubText(input)).toBe(expected);
    });

    // The search as it was, one start at a time: the reference on short words.
    const jwtByEveryStart = (w) => {
      for (let at = w.indexOf('eyJ'); at >= 0; at = w.indexOf('eyJ', at + 1)) {
        let i = at;
        let dots = 0;
        while (i < w.length && /[A-Za-z0-9_.-]/.test(w[i])) { if (w[i] === '.') dots++; i++; }
        if (dots >= 2 && i - at >= 20) return true;
      }
      return false;
    };
    it('redacts exactly the words the search from every start redacted (fast-check, seed 42)', () => {
      // no other rule applies to words of these pieces
      const word = fc.array(fc.constantFrom('eyJ', 'e', 'y', 'J', 'a', '-', '_', '.', ',', '!'), { maxLength: 40 }).map((a) => a.join(''));
      fc.assert(fc.property(word, (w) => {
        expect(scrubText(w)).toBe(w !== '' && jwtByEveryStart(w) ? REDACTED : w);
      }), { seed: 42, numRuns: 5000 });
    });

    it('a token after a long run of `eyJ`: once minutes, now milliseconds', () => {
      expect(scrubText(`bad id ${'eyJ'.repeat(150_000)},${JWT}`)).toBe(`bad id ${REDACTED}`);
    });
  });

  describe('properties (fast-check, seed 42)', () => {
    // Pieces that trigger every rule, glued in random order with random separators, so the
    // rules meet each other's output at every boundary.
    const PIECES = [
      SECRET, SECRET.slice(0, 10), REDACTED, '[', ']', 'redacted', 'at ', '    at f (/app/x.js:1:2)', '\n', '\r\n', ' ', '\t', ';', '=', ':', '/', '\\',
      '.', '@', '"', "'", '(', ')', '10.0.0.1', '127.0.0.1:5432', '::1', 'fe80::1', 'fd00::', '8.8.8.8', '192.168.', '.internal', '.local',
      'postgres://', 'u:p@h', 'mongodb+srv://', 'https://', 'file://', 'jdbc:', 'Server=db', 'Password=x', 'token=', 'pwd:', 'ER_PARSE_ERROR', 'ORA-00942',
      'no such table', 'relation "', '" does not exist', 'SQLITE_', '/app/', '/home/', 'C:\\', 'src/a.ts', '.json', 'node_modules', 'node:internal',
      'Function.', '<anonymous>', 'eyJhbGciOiJIUzI1NiJ9', 'abc', 'Z', '9', '0', '255', 'x'.repeat(20),
    ];
    const pieceText = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 4 })), { maxLength: 40 }).map((a) => a.join(''));
    const anyText = fc.oneof(pieceText, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }));

    it('never throws and is idempotent', () => {
      fc.assert(fc.property(anyText, (text) => {
        const once = scrubText(text);
        expect(typeof once).toBe('string');
        expect(scrubText(once)).toBe(once);
      }), { seed: 42, numRuns: 4000 });
    });

    it('never lets the secret from the environment through', () => {
      const withSecret = fc.tuple(pieceText, pieceText, fc.nat({ max: 3 })).map(([a, b, k]) => a + SECRET.repeat(k + 1) + b);
      fc.assert(fc.property(withSecret, (text) => {
        expect(scrubText(text)).not.toContain(SECRET);
      }), { seed: 42, numRuns: 3000 });
    });

    it('leaves text that no rule applies to byte for byte', () => {
      const plain = fc.array(fc.constantFrom('the', 'user', 'name', 'is', 'missing', 'field', ',', '!', '42', ' ', '\n'), { maxLength: 30 }).map((a) => a.join(''));
      fc.assert(fc.property(plain, (text) => {
        expect(scrubText(text)).toBe(text);
      }), { seed: 42, numRuns: 1000 });
    });
  });
});
