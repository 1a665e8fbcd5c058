// The telemetry client against real HTTP servers on 127.0.0.1: batching, brotli and gzip, headers,
// retries and backoff, drop-oldest while the control plane is unreachable, heartbeats, sampling,
// timers that never keep a process alive, and local-only mode opening nothing.

import { describe, it, expect, vi, afterEach } from 'vitest';
import http from 'node:http';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020.js';
import { TelemetryClient, TelemetryError, telemetryFromEnv, validateEndpoint } from '../../dist/middleware/telemetry.js';
import { SDK_NAME, SDK_VERSION } from '../../dist/middleware/event.js';

const root = new URL('../../', import.meta.url);
const TELEMETRY_URL = new URL('dist/middleware/telemetry.js', root).href;
const WS = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const KEY = 'sk_test_0123456789';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addFormat('uuid', UUID_RE);
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/i);
ajv.addSchema(JSON.parse(readFileSync(new URL('schema/event.schema.json', root), 'utf8')));
const validateEnvelope = ajv.compile(JSON.parse(readFileSync(new URL('schema/envelope.schema.json', root), 'utf8')));

/** A valid event; `name` goes into the route so tests can tell events apart. */
function ev(name, decision = 'deny', over = {}) {
  const deny = decision === 'deny';
  return {
    workspace_id: WS,
    app_id: 'test-app',
    sdk: SDK_NAME,
    sdk_version: SDK_VERSION,
    decision,
    vector: deny ? 'xss' : 'none',
    rule: deny ? 'patterns.xss.script-tag' : 'none',
    matched: deny ? '<script>alert(1)</script>' : '',
    route: `/e/${name}`,
    method: 'GET',
    ip_hash: 'ab'.repeat(32),
    timestamp: '2025-01-02T03:04:05.678Z',
    action: deny ? 'blocked' : 'passed',
    ...over,
  };
}
const names = (envelope) => envelope.events.map((e) => e.route.slice(3));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(cond, ms = 3000, what = 'condition') {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const cleanups = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()();
  vi.restoreAllMocks();
});

/**
 * A control plane stand-in. `respond(req, index)` returns { status, headers, body } or
 * { hang: true }, possibly after a delay; every request is recorded with its decoded envelope.
 */
async function startServer(respond = () => ({ status: 202 }), port = 0, serverOptions = {}) {
  const requests = [];
  const state = { connections: 0, inFlight: 0, maxInFlight: 0 };
  const server = http.createServer(serverOptions, (req, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const encoding = req.headers['content-encoding'];
      let text;
      try {
        text = (encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8');
      } catch (err) {
        text = `undecodable: ${err}`;
      }
      let body;
      try {
        body = JSON.parse(text);
      } catch (err) {
        body = { unparsable: String(err) };
      }
      const entry = { url: req.url, method: req.method, headers: req.headers, raw, text, body, at: Date.now() };
      requests.push(entry);
      const r = await respond(entry, requests.length - 1);
      if (r.hang) return;
      state.inFlight--;
      res.writeHead(r.status, r.headers ?? {}).end(r.body ?? '');
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const s = {
    server,
    requests,
    state,
    port: server.address().port,
    get url() {
      return `http://127.0.0.1:${this.port}`;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
  cleanups.push(s.close);
  return s;
}

function client(options) {
  const c = new TelemetryClient({ workspaceId: WS, key: KEY, appId: 'test-app', flushIntervalMs: 60_000, ...options });
  cleanups.push(() => c.close());
  return c;
}

async function freePort() {
  const s = http.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

describe('batching', () => {
  it('sends a batch as soon as batchSize events are queued, the rest on flush()', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, batchSize: 5 });
    for (let i = 0; i < 4; i++) c.enqueue(ev(`a${i}`));
    await sleep(100);
    expect(srv.requests.length).toBe(0);
    for (let i = 4; i < 12; i++) c.enqueue(ev(`a${i}`));
    await waitFor(() => srv.requests.length === 2, 3000, 'two batches');
    await sleep(50);
    expect(srv.requests.map((r) => r.body.events.length)).toEqual([5, 5]);
    expect(c.stats()).toMatchObject({ queued: 2, sent: 10, dropped: 0 });
    await c.flush();
    expect(srv.requests.map((r) => r.body.events.length)).toEqual([5, 5, 2]);
    expect(srv.requests.flatMap((r) => names(r.body))).toEqual(Array.from({ length: 12 }, (_, i) => `a${i}`));
  });

  it('sends what is queued every flushIntervalMs', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, flushIntervalMs: 200 });
    const t0 = Date.now();
    c.enqueue(ev('i0'));
    c.enqueue(ev('i1', 'allow'));
    await sleep(50);
    expect(srv.requests.length).toBe(0);
    await waitFor(() => srv.requests.length === 1, 2000, 'the interval flush');
    expect(srv.requests[0].at - t0).toBeGreaterThanOrEqual(150);
    expect(names(srv.requests[0].body)).toEqual(['i0', 'i1']);
  });

  it('sends denies before allows, and never two requests at once', async () => {
    const srv = await startServer(async () => {
      await sleep(30);
      return { status: 202 };
    });
    const c = client({ endpoint: srv.url, batchSize: 4 });
    for (let i = 0; i < 10; i++) c.enqueue(ev(`x${i}`, i % 2 ? 'deny' : 'allow'));
    await c.flush();
    expect(srv.state.maxInFlight).toBe(1);
    expect(srv.requests.map((r) => names(r.body))).toEqual([
      ['x1', 'x3', 'x5', 'x7'],
      ['x9', 'x0', 'x2', 'x4'],
      ['x6', 'x8'],
    ]);
  });
});

describe('request format', () => {
  it('POSTs a brotli envelope valid against the schema, with the right headers and path', async () => {
    const srv = await startServer();
    const c = client({ endpoint: `${srv.url}/ingest/base/`, appId: 'test-app' });
    expect(c.stats().encoding).toBe('br');
    const events = [ev('g0'), ev('g1', 'allow'), ev('g2', 'deny', { ip: '203.0.113.9', action: 'sanitized' })];
    for (const e of events) c.enqueue(e);
    await c.flush();
    expect(srv.requests.length).toBe(1);
    const r = srv.requests[0];
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/ingest/base/v1/events');
    expect(r.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(r.raw).toString('utf8')).toBe(r.text);
    expect(r.raw.length).toBeLessThan(Buffer.byteLength(r.text));
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.headers['user-agent']).toBe(`shield-node/${SDK_VERSION}`);
    expect(r.headers['idempotency-key']).toMatch(UUID_RE);
    expect(validateEnvelope(r.body), JSON.stringify(validateEnvelope.errors)).toBe(true);
    expect(r.body).toMatchObject({
      sdk: SDK_NAME, sdk_version: SDK_VERSION, app_id: 'test-app', workspace_id: WS,
      instance_id: c.instanceId, kind: 'events', dropped: 0,
    });
    expect(c.instanceId).toMatch(UUID_RE);
    expect(Math.abs(Date.parse(r.body.sent_at) - Date.now())).toBeLessThan(5000);
    expect(r.body.events).toEqual([events[0], events[2], events[1]]); // denies first
  });

  it("compression: 'gzip' (and the older gzip: true) sends gzip bodies", async () => {
    const srv = await startServer();
    for (const options of [{ compression: 'gzip' }, { gzip: true }]) {
      const c = client({ endpoint: srv.url, ...options });
      expect(c.stats().encoding).toBe('gzip');
      c.enqueue(ev('z'));
      await c.flush();
      const r = srv.requests.at(-1);
      expect(r.headers['content-encoding']).toBe('gzip');
      expect(r.raw[0]).toBe(0x1f); // gzip magic
      expect(r.raw[1]).toBe(0x8b);
      expect(r.body.events).toEqual([ev('z')]);
    }
    expect(srv.requests.length).toBe(2);
  });

  it("sends plain JSON with compression: 'none' (and gzip: false); joins endpoint paths with or without a trailing slash", async () => {
    const srv = await startServer();
    for (const [suffix, path] of [['', '/v1/events'], ['/', '/v1/events'], ['/a//', '/a/v1/events'], ['/a/b', '/a/b/v1/events']]) {
      const c = client({ endpoint: srv.url + suffix, ...(suffix === '/' ? { gzip: false } : { compression: 'none' }) });
      expect(c.stats().encoding).toBe('identity');
      c.enqueue(ev('p'));
      await c.flush();
      const r = srv.requests.at(-1);
      expect(r.url).toBe(path);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(r.raw.toString('utf8')).events).toEqual([ev('p')]);
    }
    expect(srv.requests.length).toBe(4);
  });

  it('drops only the trailing slashes of the endpoint path, and keeps its query', async () => {
    const srv = await startServer();
    const cases = [
      ['/a///?x=1', '/a/v1/events?x=1'], ['//', '/v1/events'], ['/a//b/', '/a//b/v1/events'],
      ['/a/%2F/', '/a/%2F/v1/events'], ['/a/./b/..//', '/a/v1/events'], ['/ /x/', '/%20/x/v1/events'],
    ];
    for (const [suffix, path] of cases) {
      const c = client({ endpoint: srv.url + suffix, compression: 'none' });
      c.enqueue(ev('p'));
      await c.flush();
      expect(srv.requests.at(-1).url, suffix).toBe(path);
    }
  });

  it('an endpoint path with a long run of slashes: once minutes, now milliseconds', async () => {
    // the path alone is 300 KB: the stand-in takes request lines of up to 1 MiB
    const srv = await startServer(undefined, 0, { maxHeaderSize: 1 << 20 });
    const run = '/'.repeat(300_000);
    for (const [suffix, path] of [[`${run}x`, `${run}x/v1/events`], [`/x${run}`, '/x/v1/events']]) {
      const c = client({ endpoint: srv.url + suffix, compression: 'none' });
      c.enqueue(ev('p'));
      await c.flush();
      expect(srv.requests.at(-1).url).toBe(path);
    }
  });

  it('encodes any string exactly as JSON.stringify would, and sends only the schema fields', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, batchSize: 1000, queueSize: 1000 });
    const unit = fc.oneof(
      fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', 'é', 'ÿ', '😀', '\ud800', '\udfff', '</script>'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 30 });
    const events = fc.sample(
      fc.record({
        decision: fc.constantFrom('allow', 'deny'), matched: text, route: text, rule: text, vector: text,
        method: text, ip_hash: text, timestamp: text, app_id: text, ip: fc.option(text, { nil: undefined }),
      }),
      { numRuns: 400, seed: 42 },
    ).map((r, i) => ({ ...ev(`f${i}`), ...r, secret_body: 'never sent' }));
    for (const e of events) c.enqueue(e);
    await c.flush();
    expect(srv.requests.length).toBe(1);
    const sent = srv.requests[0].body.events;
    const expected = [...events.filter((e) => e.decision === 'deny'), ...events.filter((e) => e.decision !== 'deny')].map((e) => {
      const { secret_body, ...fields } = e;
      return JSON.parse(JSON.stringify(fields));
    });
    expect(sent).toEqual(expected);
    expect(srv.requests[0].text).not.toContain('secret_body');
  });

  it('ip_hash values are cached by value: 64 characters of any kind, and past the cache size, still exact', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, batchSize: 1000, queueSize: 6000 });
    const odd = ['"'.repeat(64), 'é'.repeat(64), `${'a'.repeat(62)}\\n`, '\ud800'.repeat(64), 'x'.repeat(63), 'x'.repeat(65)];
    const events = [];
    // 5,000 distinct hex hashes (more than the cache holds), each sent twice, and the odd ones
    for (let i = 0; i < 5000; i++) events.push(ev(`h${i}`, i % 3 === 0 ? 'deny' : 'allow', { ip_hash: i.toString(16).padStart(64, '0') }));
    for (let i = 0; i < 5000; i += 7) events.push(ev(`r${i}`, 'allow', { ip_hash: i.toString(16).padStart(64, '0') }));
    odd.forEach((h, i) => events.push(ev(`o${i}`, 'deny', { ip_hash: h }), ev(`p${i}`, 'deny', { ip_hash: h })));
    events.push(ev('n', 'deny', { ip_hash: 7 }));
    for (const e of events) c.enqueue(e);
    await c.flush();
    const sent = srv.requests.flatMap((r) => r.body.events);
    const expected = [...events.filter((e) => e.decision === 'deny'), ...events.filter((e) => e.decision !== 'deny')];
    expect(sent).toEqual(expected.map((e) => JSON.parse(JSON.stringify(e))));
    // each cached entry has memory of its own: a slice of Node's shared 8 KB buffer pool would
    // keep the whole block alive for as long as the entry is cached (white box: the encoder's
    // ip_hash cache, still holding the last values)
    const cached = [...c.encoder.ipHash.map.values()];
    expect(cached.length).toBeGreaterThan(100);
    for (const b of cached) expect([b.byteOffset, b.buffer.byteLength]).toEqual([0, b.length]);
  });
});

describe('retries', () => {
  it('a 415 to brotli: the same batch again at once as gzip, under the same key and not as a retry; gzip from then on', async () => {
    const srv = await startServer((r) => (r.headers['content-encoding'] === 'br' ? { status: 415, body: '{"error":"unsupported_media_type"}' } : { status: 202 }));
    const c = client({ endpoint: srv.url, backoffBaseMs: 60_000, backoffCapMs: 60_000 }); // a retry would wait a minute
    c.enqueue(ev('a'));
    c.enqueue(ev('b', 'allow'));
    await c.flush();
    expect(srv.requests.map((r) => r.headers['content-encoding'])).toEqual(['br', 'gzip']);
    expect(srv.requests[1].body.events).toEqual([ev('a'), ev('b', 'allow')]);
    expect(srv.requests[1].headers['idempotency-key']).toMatch(UUID_RE);
    // the same key: an earlier attempt whose answer was lost may have been stored
    expect(srv.requests[1].headers['idempotency-key']).toBe(srv.requests[0].headers['idempotency-key']);
    expect(c.stats()).toMatchObject({ sent: 2, retries: 0, failedBatches: 0, encoding: 'gzip' });
    c.enqueue(ev('c'));
    await c.flush();
    expect(srv.requests.map((r) => r.headers['content-encoding'])).toEqual(['br', 'gzip', 'gzip']);
    expect(c.stats().sent).toBe(3);
  });

  it('a 415 to gzip is a refusal like any other 4xx: brotli falls back once, then the batch is refused', async () => {
    const srv = await startServer(() => ({ status: 415, body: 'no such encoding' }));
    for (const compression of ['br', 'gzip', 'none']) {
      const errors = [];
      const before = srv.requests.length;
      const c = client({ endpoint: srv.url, compression, onError: (e) => errors.push(e) });
      c.enqueue(ev('a'));
      await c.flush();
      const encodings = srv.requests.slice(before).map((r) => r.headers['content-encoding']);
      expect(encodings).toEqual(compression === 'br' ? ['br', 'gzip'] : compression === 'gzip' ? ['gzip'] : [undefined]);
      expect(errors.map((e) => [e.kind, e.status])).toEqual([['rejected', 415]]);
      expect(c.stats()).toMatchObject({ sent: 0, retries: 0, failedBatches: 1 });
    }
  });

  it('a heartbeat refused with 415 as brotli goes again as gzip', async () => {
    const srv = await startServer((r) => ({ status: r.headers['content-encoding'] === 'br' ? 415 : 202 }));
    const errors = [];
    const c = client({ endpoint: srv.url, heartbeatMs: 100, onError: (e) => errors.push(e) });
    await waitFor(() => srv.requests.length >= 3, 3000, 'a heartbeat as brotli, then two as gzip');
    expect(srv.requests.slice(0, 3).map((r) => r.headers['content-encoding'])).toEqual(['br', 'gzip', 'gzip']);
    expect(srv.requests[1].body).toMatchObject({ kind: 'heartbeat', events: [], instance_id: c.instanceId });
    expect(errors).toEqual([]);
  });

  // White box: the client's compressor made to hang on gzip, so that close() comes while a body
  // is being compressed, without depending on timing.
  function hangGzip(c) {
    const compressor = c.compressor;
    const real = compressor.compress.bind(compressor);
    const calls = [];
    compressor.compress = (input, encoding) => {
      calls.push(encoding);
      if (encoding !== 'gzip') return real(input, encoding);
      return new Promise((_resolve, reject) => { compressor.pending = reject; });
    };
    return calls;
  }

  it('close() while the gzip copy after a 415 is compressed: one close report, no encode failure', async () => {
    const srv = await startServer((r) => ({ status: r.headers['content-encoding'] === 'br' ? 415 : 202 }));
    const errors = [];
    const c = client({ endpoint: srv.url, timeoutMs: 200, onError: (e) => errors.push(e) });
    const calls = hangGzip(c);
    c.enqueue(ev('a'));
    void c.flush();
    await waitFor(() => calls.includes('gzip'), 3000, 'the gzip copy');
    await c.close();
    await sleep(20);
    expect(errors.map((e) => e.kind)).toEqual(['close']);
    expect(c.stats()).toMatchObject({ sent: 0, failedBatches: 0 });
  });

  it('close() while a heartbeat is compressed: one close report, no encode failure', async () => {
    const srv = await startServer((r) => ({ status: r.headers['content-encoding'] === 'br' ? 415 : 202 }));
    const errors = [];
    const c = client({ endpoint: srv.url, timeoutMs: 200, heartbeatMs: 50, onError: (e) => errors.push(e) });
    const calls = hangGzip(c);
    await waitFor(() => calls.includes('gzip'), 3000, 'a heartbeat compressed as gzip');
    await c.close();
    await sleep(20);
    expect(errors.map((e) => e.kind)).toEqual(['close']);
    expect(srv.requests.map((r) => r.body.kind)).toEqual(['heartbeat']);
  });

  it('retries 500s with the same Idempotency-Key and body; a new batch gets a new key', async () => {
    const srv = await startServer((_r, i) => ({ status: i < 2 ? 500 : 202 }));
    const c = client({ endpoint: srv.url, backoffBaseMs: 5, backoffCapMs: 20 });
    c.enqueue(ev('r0'));
    await c.flush();
    c.enqueue(ev('r1'));
    await c.flush();
    expect(srv.requests.length).toBe(4);
    const keys = srv.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[1]).toBe(keys[2]);
    expect(keys[3]).not.toBe(keys[0]);
    expect(srv.requests[1].raw.equals(srv.requests[0].raw)).toBe(true);
    expect(srv.requests[2].raw.equals(srv.requests[0].raw)).toBe(true);
    expect(c.stats()).toMatchObject({ sent: 2, retries: 2, failedBatches: 0 });
  });

  it('honours Retry-After in seconds (429) and as an HTTP date (503)', async () => {
    const srv = await startServer((_r, i) => {
      if (i === 0) return { status: 429, headers: { 'Retry-After': '1' } };
      if (i === 1) return { status: 503, headers: { 'Retry-After': new Date(Date.now() + 2000).toUTCString() } };
      return { status: 202 };
    });
    const c = client({ endpoint: srv.url, backoffBaseMs: 1, backoffCapMs: 5 });
    c.enqueue(ev('ra'));
    await c.flush();
    expect(srv.requests.length).toBe(3);
    expect(srv.requests[1].at - srv.requests[0].at).toBeGreaterThanOrEqual(950);
    expect(srv.requests[2].at - srv.requests[1].at).toBeGreaterThanOrEqual(900);
    expect(c.stats()).toMatchObject({ sent: 1, retries: 2 });
  });

  it.each([400, 401])('does not retry %i; counts the batch and reports status and body once', async (status) => {
    const body = `${'invalid workspace key '.repeat(12)}END-MARKER`;
    const srv = await startServer(() => ({ status, body }));
    const errors = [];
    const c = client({ endpoint: srv.url, backoffBaseMs: 1, backoffCapMs: 2, onError: (e) => errors.push(e) });
    c.enqueue(ev('n0'));
    await c.flush();
    await sleep(100);
    expect(srv.requests.length).toBe(1);
    expect(c.stats()).toMatchObject({ sent: 0, retries: 0, failedBatches: 1 });
    expect(errors.length).toBe(1);
    expect(errors[0]).toBeInstanceOf(TelemetryError);
    expect(errors[0]).toMatchObject({ kind: 'rejected', status });
    expect(errors[0].message).toContain(String(status));
    expect(errors[0].message).toContain(body.slice(0, 200));
    expect(errors[0].message).not.toContain('END-MARKER');
    expect(errors[0].message).not.toContain(KEY);
  });

  it('gives a batch up after maxRetries and goes on with the next one', async () => {
    const srv = await startServer((_r, i) => ({ status: i < 3 ? 503 : 202 }));
    const errors = [];
    const c = client({ endpoint: srv.url, maxRetries: 2, backoffBaseMs: 1, backoffCapMs: 5, onError: (e) => errors.push(e) });
    c.enqueue(ev('m0'));
    await c.flush();
    expect(srv.requests.length).toBe(3);
    expect(c.stats()).toMatchObject({ failedBatches: 1, retries: 2, sent: 0 });
    expect(errors.map((e) => e.kind)).toEqual(['gave-up']);
    c.enqueue(ev('m1'));
    await c.flush();
    expect(names(srv.requests[3].body)).toEqual(['m1']);
    expect(c.stats().sent).toBe(1);
  });

  it('a request without a complete response within timeoutMs is retried, then given up', async () => {
    const srv = await startServer(() => ({ hang: true }));
    const errors = [];
    const c = client({ endpoint: srv.url, timeoutMs: 200, maxRetries: 1, backoffBaseMs: 1, backoffCapMs: 5, onError: (e) => errors.push(e) });
    c.enqueue(ev('slow'));
    const t0 = Date.now();
    await c.flush();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(380);
    expect(srv.requests.length).toBe(2);
    expect(srv.requests[1].headers['idempotency-key']).toBe(srv.requests[0].headers['idempotency-key']);
    expect(c.stats()).toMatchObject({ retries: 1, failedBatches: 1, sent: 0 });
    expect(errors.map((e) => e.kind)).toEqual(['gave-up']);
    expect(errors[0].message).toMatch(/200 ms/);
  });

  it('by default warns on the console once per kind of failure, never per batch', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const srv = await startServer(() => ({ status: 403, body: 'forbidden' }));
    const c = new TelemetryClient({ endpoint: srv.url, workspaceId: WS, key: KEY, appId: 'x' });
    cleanups.push(() => c.close());
    for (let i = 0; i < 3; i++) {
      c.enqueue(ev(`w${i}`));
      await c.flush();
    }
    expect(srv.requests.length).toBe(3);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('403');
  });
});

describe('bounded queue', () => {
  it('while unreachable: drops the oldest allows first, keeps denies, and the next envelopes carry `dropped`', async () => {
    const port = await freePort(); // nothing listens: connections are refused
    const errors = [];
    const c = client({
      endpoint: `http://127.0.0.1:${port}`, queueSize: 6, batchSize: 4, maxRetries: 1000,
      backoffBaseMs: 10, backoffCapMs: 30, onError: (e) => errors.push(e),
    });
    for (const [n, d] of [['D1', 'deny'], ['D2', 'deny'], ['A1', 'allow'], ['A2', 'allow'], ['A3', 'allow'], ['A4', 'allow'], ['A5', 'allow'], ['A6', 'allow']]) {
      c.enqueue(ev(n, d));
    }
    expect(c.stats()).toMatchObject({ queued: 6, dropped: 2 }); // A1, A2
    // A full batch (D1 D2 A3 A4) is taken and retried against the closed port.
    await waitFor(() => c.stats().retries >= 2, 3000, 'retries against a closed port');
    expect(c.stats()).toMatchObject({ queued: 2, sent: 0 });
    // Events keep queueing meanwhile, bounded: A5, A6, A7 make room, oldest first.
    for (const [n, d] of [['D3', 'deny'], ['A7', 'allow'], ['A8', 'allow'], ['A9', 'allow'], ['A10', 'allow'], ['A11', 'allow'], ['D4', 'deny']]) {
      c.enqueue(ev(n, d));
    }
    expect(c.stats()).toMatchObject({ queued: 6, dropped: 5 });
    // The control plane comes back on the same port.
    const srv = await startServer(() => ({ status: 202 }), port);
    await waitFor(() => srv.requests.length === 2, 5000, 'delivery after recovery');
    await c.flush();
    expect(srv.requests.map((r) => names(r.body))).toEqual([
      ['D1', 'D2', 'A3', 'A4'],
      ['D3', 'D4', 'A8', 'A9'],
      ['A10', 'A11'],
    ]);
    // The first envelope was built before the later drops; each carries the count at its time.
    expect(srv.requests.map((r) => r.body.dropped)).toEqual([2, 5, 5]);
    for (const r of srv.requests) expect(validateEnvelope(r.body)).toBe(true);
    expect(c.stats()).toMatchObject({ queued: 0, dropped: 5, sent: 10, failedBatches: 0 });
    expect(errors).toEqual([]);
  });

  it('an allow never displaces a deny: with only denies queued, a new allow is dropped, a new deny drops the oldest deny', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, queueSize: 3, batchSize: 10 });
    for (const n of ['D1', 'D2', 'D3']) c.enqueue(ev(n));
    c.enqueue(ev('A1', 'allow'));
    expect(c.stats()).toMatchObject({ queued: 3, dropped: 1 });
    await c.flush();
    expect(names(srv.requests[0].body)).toEqual(['D1', 'D2', 'D3']);
    for (const n of ['D4', 'D5', 'D6', 'D7']) c.enqueue(ev(n));
    expect(c.stats()).toMatchObject({ queued: 3, dropped: 2 });
    await c.flush();
    expect(names(srv.requests[1].body)).toEqual(['D5', 'D6', 'D7']);
    expect(srv.requests.map((r) => r.body.dropped)).toEqual([1, 2]);
  });

  it('sampleAllow: 0 drops clean allows only (not denies, not allows with findings), and does not count them as dropped', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, sampleAllow: 0 });
    for (let i = 0; i < 20; i++) c.enqueue(ev(`clean${i}`, 'allow'));
    for (let i = 0; i < 3; i++) c.enqueue(ev(`deny${i}`));
    for (let i = 0; i < 2; i++) c.enqueue(ev(`observed${i}`, 'allow', { vector: 'sql', rule: 'patterns.sql.union', action: 'observed' }));
    await c.flush();
    expect(names(srv.requests[0].body)).toEqual(['deny0', 'deny1', 'deny2', 'observed0', 'observed1']);
    expect(c.stats()).toMatchObject({ dropped: 0, sent: 5 });
  });

  it('sampleAllow: 0.5 keeps about half of the clean allows', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, sampleAllow: 0.5, batchSize: 1000 });
    for (let i = 0; i < 2000; i++) c.enqueue(ev(`s${i}`, 'allow'));
    await c.flush();
    const kept = srv.requests.reduce((n, r) => n + r.body.events.length, 0);
    expect(kept).toBeGreaterThan(850); // binomial(2000, 0.5): sd 22
    expect(kept).toBeLessThan(1150);
  });
});

describe('heartbeat', () => {
  it('an idle instance sends heartbeat envelopes every heartbeatMs', async () => {
    const srv = await startServer();
    const t0 = Date.now();
    const c = client({ endpoint: srv.url, heartbeatMs: 150 });
    await waitFor(() => srv.requests.length >= 2, 3000, 'two heartbeats');
    const [h1, h2] = srv.requests;
    expect(h1.at - t0).toBeGreaterThanOrEqual(120);
    expect(h2.at - h1.at).toBeGreaterThanOrEqual(120);
    for (const h of [h1, h2]) {
      expect(h.body).toMatchObject({ kind: 'heartbeat', events: [], instance_id: c.instanceId });
      expect(validateEnvelope(h.body)).toBe(true);
    }
  });

  it('events sent reset the heartbeat clock', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url, heartbeatMs: 300 });
    await sleep(150);
    c.enqueue(ev('h'));
    await c.flush();
    const sentAt = srv.requests.find((r) => r.body.kind === 'events').at;
    const nextHeartbeat = () => srv.requests.find((r) => r.body.kind === 'heartbeat' && r.at > sentAt);
    await waitFor(nextHeartbeat, 3000, 'the heartbeat');
    // Unreset, it would come 300 ms after the start, about 150 ms after the events.
    expect(nextHeartbeat().at - sentAt).toBeGreaterThanOrEqual(270);
  });
});

describe('lifecycle', () => {
  function runChild(code) {
    return new Promise((resolve) => {
      const t0 = Date.now();
      const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.on('exit', (code, signal) => {
        clearTimeout(killer);
        resolve({ code, signal, out, err, elapsed: Date.now() - t0 });
      });
    });
  }
  const childClient = (port, extra = '') => `
    import { TelemetryClient } from ${JSON.stringify(TELEMETRY_URL)};
    const c = new TelemetryClient({ endpoint: 'http://127.0.0.1:${port}', workspaceId: ${JSON.stringify(WS)}, key: 'k',
      appId: 'child', flushIntervalMs: 50, heartbeatMs: 100 ${extra} });
    const ev = ${JSON.stringify(ev('child'))};`;

  it('timers and a request in flight never keep the process alive', async () => {
    const srv = await startServer(() => ({ hang: true }));
    const r = await runChild(`${childClient(srv.port, ', batchSize: 1')}
      c.enqueue(ev);
      setTimeout(() => {}, 300); // the application's own work, long enough for the request to arrive
    `);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.elapsed).toBeLessThan(5000);
    expect(srv.requests.length).toBeGreaterThanOrEqual(1); // the request was in flight, unanswered
  });

  it('an awaited close() delivers what is queued before the process exits', async () => {
    const srv = await startServer();
    const r = await runChild(`${childClient(srv.port)}
      for (let i = 0; i < 3; i++) c.enqueue(ev);
      await c.close();
      console.log(JSON.stringify(c.stats()));
    `);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ sent: 3, queued: 0 });
    expect(srv.requests.length).toBe(1);
    expect(srv.requests[0].body.events.length).toBe(3);
  });

  it('an awaited flush() keeps the process alive until the batch is delivered', async () => {
    const srv = await startServer(async () => {
      await sleep(300); // slower than the child's own work
      return { status: 202 };
    });
    // The first batch is already in flight (unref'd) when flush() is called; the second is sent by flush().
    const r = await runChild(`${childClient(srv.port, ', batchSize: 1')}
      c.enqueue(ev);
      await new Promise((r) => setTimeout(r, 50));
      c.enqueue(ev);
      await c.flush();
      console.log(JSON.stringify(c.stats()));
    `);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ sent: 2, queued: 0 });
  });

  it('close() is bounded by timeoutMs against a hanging endpoint, reports the loss, and later enqueues are ignored', async () => {
    const srv = await startServer(() => ({ hang: true }));
    const errors = [];
    const c = client({ endpoint: srv.url, timeoutMs: 300, onError: (e) => errors.push(e) });
    c.enqueue(ev('c0'));
    c.enqueue(ev('c1'));
    const t0 = Date.now();
    await c.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(errors.map((e) => e.kind)).toContain('close');
    c.enqueue(ev('c2'));
    expect(c.stats().queued).toBe(0);
    await c.flush(); // resolves at once after close
    await c.close(); // idempotent
    expect(srv.requests.length).toBe(1);
  });

  it('enqueue never throws and flush() never rejects', async () => {
    const errors = [];
    const c = client({ endpoint: `http://127.0.0.1:${await freePort()}`, maxRetries: 0, onError: (e) => errors.push(e) });
    const hostile = { get decision() { throw new Error('boom'); } };
    for (const bad of [null, undefined, 42, 'event', hostile]) expect(() => c.enqueue(bad)).not.toThrow();
    expect(errors.some((e) => e.kind === 'internal')).toBe(true);
    await expect(c.flush()).resolves.toBeUndefined(); // refused connection, no retries: given up
    expect(c.stats().failedBatches).toBe(1);
    const throwing = client({ endpoint: `http://127.0.0.1:${await freePort()}`, maxRetries: 0, onError: () => { throw new Error('bad handler'); } });
    throwing.enqueue(ev('t'));
    await expect(throwing.flush()).resolves.toBeUndefined();
  });

  it('malformed events still make valid JSON (the schema, not a parse error, refuses them)', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url });
    for (const bad of [{}, 42, { decision: 'deny', matched: 7, route: { nested: true }, ip: null }]) c.enqueue(bad);
    c.enqueue(ev('ok'));
    await c.flush();
    const { events } = srv.requests[0].body;
    expect(events).toHaveLength(4);
    // Denies first: the malformed deny, the good one, then {} and 42 (no decision: the allow queue).
    expect(events[0]).toMatchObject({ decision: 'deny', matched: 7, route: { nested: true }, ip: null });
    expect(events[1]).toEqual(ev('ok'));
    expect(events[2]).toMatchObject({ workspace_id: null, decision: null, route: null });
    expect(events[3]).toMatchObject({ workspace_id: null, decision: null, route: null });
  });

  it('a value JSON.stringify refuses (a BigInt, a cycle) is null, and the rest of the batch goes', async () => {
    const srv = await startServer();
    const errors = [];
    const c = client({ endpoint: srv.url, onError: (e) => errors.push(e) });
    const cycle = {};
    cycle.self = cycle;
    c.enqueue(ev('big', 'deny', { matched: 10n, route: cycle, app_id: 5n }));
    c.enqueue(ev('ok'));
    await c.flush();
    expect(errors).toEqual([]);
    const { events } = srv.requests[0].body;
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ matched: null, route: null, app_id: null, decision: 'deny' });
    expect(events[1]).toEqual(ev('ok'));
  });

  it('per-instance fields that are objects are written as they are now, not as they were', async () => {
    const srv = await startServer();
    const c = client({ endpoint: srv.url });
    const ws = { id: 1 };
    c.enqueue(ev('a', 'deny', { workspace_id: ws }));
    await c.flush();
    ws.id = 2;
    c.enqueue(ev('b', 'deny', { workspace_id: ws }));
    await c.flush();
    expect(srv.requests.map((r) => r.body.events[0].workspace_id)).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

describe('configuration', () => {
  const full = (url) => ({ SHIELD_ENDPOINT: url, SHIELD_WORKSPACE_ID: WS, SHIELD_KEY: KEY });

  it('telemetryFromEnv: null with any two of the three variables, and then no timer and no connection', async () => {
    const srv = await startServer();
    const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const env = full(srv.url);
    for (const missing of Object.keys(env)) {
      for (const value of [undefined, '', '   ']) {
        const partial = { ...env, [missing]: value };
        if (value === undefined) delete partial[missing];
        expect(telemetryFromEnv(partial, { flushIntervalMs: 20, heartbeatMs: 20 })).toBeNull();
      }
    }
    expect(setIntervalSpy).not.toHaveBeenCalled();
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    await sleep(200); // ten flush intervals and heartbeats, had anything been created
    expect(srv.state.connections).toBe(0);
    expect(srv.requests.length).toBe(0);

    // The same server sees a connection as soon as the three are set (the test can fail).
    const c = telemetryFromEnv(env, { flushIntervalMs: 20 });
    cleanups.push(() => c.close());
    expect(c).toBeInstanceOf(TelemetryClient);
    c.enqueue(ev('env'));
    await waitFor(() => srv.requests.length === 1, 2000, 'the enabled client');
    expect(srv.state.connections).toBe(1);
    expect(srv.requests[0].body.app_id).toBe('default');
  });

  it('telemetryFromEnv: appId from overrides, then SHIELD_APP_ID, then "default"', async () => {
    const srv = await startServer();
    const cases = [
      [{ ...full(srv.url), SHIELD_APP_ID: 'from-env' }, { appId: 'from-option' }, 'from-option'],
      [{ ...full(srv.url), SHIELD_APP_ID: 'from-env' }, {}, 'from-env'],
      [full(srv.url), undefined, 'default'],
    ];
    for (const [env, overrides, expected] of cases) {
      const c = telemetryFromEnv(env, overrides);
      cleanups.push(() => c.close());
      c.enqueue(ev('app'));
      await c.flush();
      expect(srv.requests.at(-1).body.app_id).toBe(expected);
    }
  });

  it('validateEndpoint: https anywhere, http only to loopback', () => {
    for (const ok of ['https://x', 'https://ingest.example.com/base/', 'http://127.0.0.1:8080', 'http://127.9.8.7', 'http://localhost:3000', 'http://[::1]:3000/']) {
      expect(validateEndpoint(ok)).toBeInstanceOf(URL);
    }
    for (const bad of ['http://example.com', 'http://128.0.0.1', 'http://10.0.0.1', 'http://localhost.example.com', 'http://127.0.0.1.nip.io', 'ftp://x', 'ingest.example.com', '']) {
      expect(() => validateEndpoint(bad)).toThrow(TypeError);
      expect(() => validateEndpoint(bad)).toThrow(/SHIELD_ENDPOINT/);
    }
  });

  it('the client refuses a bad workspace id, key or option with a TypeError naming it', () => {
    const base = { endpoint: 'https://x', workspaceId: WS, key: KEY, appId: 'a' };
    const cases = [
      [{ workspaceId: 'not-a-uuid' }, /SHIELD_WORKSPACE_ID/],
      [{ key: '' }, /SHIELD_KEY/],
      [{ key: 'abc\r\nX-Injected: 1' }, /SHIELD_KEY/],
      [{ endpoint: 'http://example.com' }, /SHIELD_ENDPOINT/],
      [{ appId: '' }, /appId/],
      [{ batchSize: 1001 }, /batchSize/],
      [{ batchSize: 0 }, /batchSize/],
      [{ queueSize: 1.5 }, /queueSize/],
      [{ sampleAllow: 1.5 }, /sampleAllow/],
      [{ flushIntervalMs: 2 ** 31 }, /flushIntervalMs/],
      [{ maxRetries: -1 }, /maxRetries/],
      [{ compression: 'zstd' }, /compression must be 'br', 'gzip' or 'none'/],
      [{ compression: true }, /compression must be/],
      [{ compression: 'gzip', gzip: true }, /compression and gzip both given/],
      [{ gzip: 'yes' }, /gzip must be true or false/],
    ];
    for (const [over, message] of cases) {
      expect(() => new TelemetryClient({ ...base, ...over })).toThrow(TypeError);
      expect(() => new TelemetryClient({ ...base, ...over })).toThrow(message);
    }
    expect(() => telemetryFromEnv({ SHIELD_ENDPOINT: 'http://example.com', SHIELD_WORKSPACE_ID: WS, SHIELD_KEY: KEY })).toThrow(/SHIELD_ENDPOINT/);
  });
});
