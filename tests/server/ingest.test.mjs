// POST /v1/events over real HTTP into a real sqlite file: what is stored, and each way a
// request can be wrong, with its status and the field its message names.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { startControlPlane, makeEvent, makeEnvelope, postEvents, Client } from './support.mjs';
import { brotliWindowBits } from '../../server/src/http/body.js';

let cp;
let ws;
let key;

beforeAll(async () => {
  cp = await startControlPlane();
  ws = cp.bootstrap.workspace_id;
  key = cp.bootstrap.api_key;
});
afterAll(async () => {
  await cp.stop();
});

describe('POST /v1/events: accepted batches', () => {
  it('stores an envelope, updates the fleet record and answers 202 { accepted, rejected }', async () => {
    const before = await cp.store.countEvents(ws);
    const env = makeEnvelope(ws, [makeEvent(ws), makeEvent(ws, { decision: 'allow', vector: 'none', rule: 'none', matched: '', action: 'passed' })]);
    const r = await postEvents(cp.url, key, env);
    expect(r.status).toBe(202);
    expect(r.json).toEqual({ accepted: 2, rejected: [] });
    expect(await cp.store.countEvents(ws)).toBe(before + 2);
    const fleet = await cp.store.fleet(ws);
    const me = fleet.find((f) => f.instanceId === env.instance_id);
    expect(me).toMatchObject({ appId: 'shop', sdk: '@shield/node', sdkVersion: '0.1.0', events: 2 });
    expect(me.lastEventAt).toBeGreaterThan(0);
  });

  it('accepts a bare array, a gzip body and a brotli body', async () => {
    const before = await cp.store.countEvents(ws);
    expect((await postEvents(cp.url, key, [makeEvent(ws)])).json).toEqual({ accepted: 1, rejected: [] });
    expect((await postEvents(cp.url, key, makeEnvelope(ws, [makeEvent(ws), makeEvent(ws)]), { gzip: true })).json).toEqual({ accepted: 2, rejected: [] });
    const route = `/brotli-${randomUUID()}`;
    const matched = "é ' OR 1=1-- 😀";
    const viaBrotli = [makeEvent(ws, { route, matched }), makeEvent(ws, { route, matched }), makeEvent(ws)];
    expect((await postEvents(cp.url, key, makeEnvelope(ws, viaBrotli), { brotli: true })).json).toEqual({ accepted: 3, rejected: [] });
    expect(await cp.store.countEvents(ws)).toBe(before + 6);
    const c = new Client(cp.url);
    await c.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const feed = await c.request('GET', `/v1/workspaces/${ws}/events?route=${encodeURIComponent(route)}`);
    expect(feed.json.events.map((e) => e.matched)).toEqual([matched, matched]);
  });

  it('a heartbeat stores no event but keeps the instance in the fleet', async () => {
    const env = makeEnvelope(ws, [], { kind: 'heartbeat', dropped: 7 });
    const r = await postEvents(cp.url, key, env);
    expect(r.status).toBe(202);
    expect(r.json.accepted).toBe(0);
    const me = (await cp.store.fleet(ws)).find((f) => f.instanceId === env.instance_id);
    expect(me).toMatchObject({ events: 0, dropped: 7, lastEventAt: null });
  });

  it('stores attack text as inert data, byte for byte, and serves it back as JSON', async () => {
    const matched = "<svg onload=alert(1)>' OR 1=1-- ${7*7} ../../etc/passwd";
    const route = `/probe-${randomUUID()}`;
    const r = await postEvents(cp.url, key, makeEnvelope(ws, [makeEvent(ws, { matched, route })]));
    expect(r.json.accepted).toBe(1);
    const c = new Client(cp.url);
    await c.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const feed = await c.request('GET', `/v1/workspaces/${ws}/events?route=${encodeURIComponent(route)}`);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(feed.json.events.map((e) => e.matched)).toEqual([matched]);
  });

  it('rejects bad events by index and stores the good ones', async () => {
    const before = await cp.store.countEvents(ws);
    const events = [
      makeEvent(ws),
      makeEvent(ws, { decision: 'maybe' }),
      makeEvent(ws, { matched: 'x'.repeat(81) }),
      makeEvent(ws, { timestamp: '2020-01-01T00:00:00Z' }),
      makeEvent(ws, { timestamp: new Date(Date.now() + 3_600_000).toISOString() }),
      makeEvent(ws, { extra: 1 }),
      makeEvent(ws, { ip_hash: 'not-hex' }),
      makeEvent(ws),
    ];
    const r = await postEvents(cp.url, key, makeEnvelope(ws, events));
    expect(r.status).toBe(202);
    expect(r.json.accepted).toBe(2);
    expect(r.json.rejected.map((x) => x.index)).toEqual([1, 2, 3, 4, 5, 6]);
    const first = r.json.rejected.map((x) => x.errors[0]);
    expect(first[0]).toMatch(/^decision must be one of allow, deny/);
    expect(first[1]).toMatch(/^matched must NOT have more than 80 characters/);
    expect(first[2]).toMatch(/^timestamp is older than/);
    expect(first[3]).toMatch(/^timestamp is more than 600 s ahead/);
    expect(first[4]).toMatch(/unknown field "extra"/);
    expect(first[5]).toMatch(/^ip_hash must match pattern/);
    expect(await cp.store.countEvents(ws)).toBe(before + 2);
  });

  it('an unknown field with a huge name is named, cut, in a short message', async () => {
    const r = await postEvents(cp.url, key, [makeEvent(ws, { ['k'.repeat(10_000)]: 1 })]);
    expect(r.json.rejected[0].errors[0]).toMatch(/^body has an unknown field "k{64}…"$/);
    const env = await postEvents(cp.url, key, { ...makeEnvelope(ws, []), ['x"y'.repeat(5000)]: true });
    expect(env.status).toBe(400);
    expect(env.json.field).toBe('body');
    expect(env.json.message.length).toBeLessThan(120);
  });

  it('matched counts code points: 80 astral characters pass, 81 do not', async () => {
    const r = await postEvents(cp.url, key, [makeEvent(ws, { matched: '😀'.repeat(80) }), makeEvent(ws, { matched: '😀'.repeat(81) })]);
    expect(r.json.accepted).toBe(1);
    expect(r.json.rejected.map((x) => x.index)).toEqual([1]);
  });
});

describe('POST /v1/events: Idempotency-Key', () => {
  it('stores a retried batch once and answers the retry with the first response', async () => {
    const before = await cp.store.countEvents(ws);
    const body = makeEnvelope(ws, [makeEvent(ws), makeEvent(ws, { decision: 'bad' })]);
    const headers = { 'idempotency-key': randomUUID() };
    const a = await postEvents(cp.url, key, body, { headers });
    const b = await postEvents(cp.url, key, body, { headers, gzip: true });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.json).toEqual(a.json);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await cp.store.countEvents(ws)).toBe(before + 1);
  });

  it('refuses the same key with another body (409)', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    expect((await postEvents(cp.url, key, [makeEvent(ws)], { headers })).status).toBe(202);
    const r = await postEvents(cp.url, key, [makeEvent(ws), makeEvent(ws)], { headers });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error: 'idempotency_conflict', field: 'Idempotency-Key' });
  });
});

describe('brotli window sizes', () => {
  const sample = Buffer.from(JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ route: `/r/${i}`, n: i }))));
  const br = (quality, lgwin) => brotliCompressSync(sample, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: quality, [zlibConstants.BROTLI_PARAM_LGWIN]: lgwin } });

  it('reads the window every encoder setting declares (RFC 7932, section 9.1)', () => {
    for (let lgwin = 10; lgwin <= 24; lgwin++) {
      expect(brotliWindowBits(br(5, lgwin)), `quality 5, lgwin ${lgwin}`).toBe(lgwin);
      expect(brotliWindowBits(br(11, lgwin)), `quality 11, lgwin ${lgwin}`).toBe(lgwin);
      // qualities 0 and 1 raise a window under 2^18 to 2^18, as libbrotli does
      expect(brotliWindowBits(br(0, lgwin)), `quality 0, lgwin ${lgwin}`).toBe(Math.max(lgwin, 18));
      expect(brotliWindowBits(br(1, lgwin)), `quality 1, lgwin ${lgwin}`).toBe(Math.max(lgwin, 18));
    }
    expect(brotliWindowBits(brotliCompressSync(sample))).toBe(22); // Node's default
    expect(brotliWindowBits(Buffer.from([0x11]))).toBe(31); // the large-window marker
    expect(brotliWindowBits(Buffer.alloc(0))).toBe(0);
  });

  it('takes every window up to 4 MiB; over it the message names the window', async () => {
    for (const lgwin of [10, 16, 17, 18, 22]) {
      const env = makeEnvelope(ws, [makeEvent(ws)]);
      const res = await fetch(`${cp.url}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': 'br' },
        body: brotliCompressSync(Buffer.from(JSON.stringify(env)), { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_LGWIN]: lgwin } }),
      });
      expect(res.status, `lgwin ${lgwin}`).toBe(202);
      expect((await res.json()).accepted).toBe(1);
    }
    for (const [params, says] of [
      [{ [zlibConstants.BROTLI_PARAM_LGWIN]: 23 }, 'a window of 2^23 bytes'],
      [{ [zlibConstants.BROTLI_PARAM_LARGE_WINDOW]: 1, [zlibConstants.BROTLI_PARAM_LGWIN]: 26 }, 'the large-window extension'],
    ]) {
      const res = await fetch(`${cp.url}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': 'br' },
        body: brotliCompressSync(Buffer.from(JSON.stringify([makeEvent(ws)])), { params }),
      });
      expect(res.status).toBe(400);
      const json = await res.json();
      expect(json).toMatchObject({ error: 'invalid_brotli', field: 'body' });
      expect(json.message).toContain(says);
    }
  });
});

describe('POST /v1/events: malformed requests', () => {
  const good = () => JSON.stringify([makeEvent(ws)]);
  const env = (over) => JSON.stringify(makeEnvelope(ws, [makeEvent(ws)], over));
  // [name, request, status, error code, field named]
  const cases = [
    ['no credentials', () => ({ key: null, body: good() }), 401, 'unauthorized', undefined],
    ['unknown key', () => ({ key: 'shk_nope', body: good() }), 401, 'unauthorized', undefined],
    ['not a bearer scheme', () => ({ raw: `Basic ${Buffer.from('a:b').toString('base64')}`, body: good() }), 401, 'unauthorized', undefined],
    ['text/plain', () => ({ body: good(), type: 'text/plain' }), 415, 'unsupported_media_type', 'Content-Type'],
    ['no content type', () => ({ body: good(), type: null }), 415, 'unsupported_media_type', 'Content-Type'],
    ['deflate encoding', () => ({ body: good(), encoding: 'deflate' }), 415, 'unsupported_media_type', 'Content-Encoding'],
    ['bad JSON', () => ({ body: '{"events": [' }), 400, 'invalid_json', 'body'],
    ['a JSON string', () => ({ body: '"hello"' }), 400, 'invalid_body', 'body'],
    ['JSON null', () => ({ body: 'null' }), 400, 'invalid_body', 'body'],
    ['bad gzip', () => ({ bytes: Buffer.from('not gzip at all'), encoding: 'gzip' }), 400, 'invalid_gzip', 'body'],
    ['truncated gzip', () => ({ bytes: gzipSync(Buffer.from(good())).subarray(0, 20), encoding: 'gzip' }), 400, 'invalid_gzip', 'body'],
    ['bad brotli', () => ({ bytes: Buffer.from('not brotli at all'), encoding: 'br' }), 400, 'invalid_brotli', 'body'],
    ['truncated brotli', () => ({ bytes: brotliCompressSync(Buffer.from(good())).subarray(0, 20), encoding: 'br' }), 400, 'invalid_brotli', 'body'],
    ['gzip bytes labelled br', () => ({ bytes: gzipSync(Buffer.from(good())), encoding: 'br' }), 400, 'invalid_brotli', 'body'],
    ['envelope without sdk', () => ({ body: JSON.stringify({ ...makeEnvelope(ws, [makeEvent(ws)]), sdk: undefined }) }), 400, 'invalid_envelope', 'sdk'],
    ['envelope kind wrong', () => ({ body: env({ kind: 'batch' }) }), 400, 'invalid_envelope', 'kind'],
    ['envelope dropped negative', () => ({ body: env({ dropped: -1 }) }), 400, 'invalid_envelope', 'dropped'],
    ['envelope dropped a string', () => ({ body: env({ dropped: '3' }) }), 400, 'invalid_envelope', 'dropped'],
    ['envelope instance_id not a uuid', () => ({ body: env({ instance_id: 'abc' }) }), 400, 'invalid_envelope', 'instance_id'],
    ['envelope sent_at not UTC', () => ({ body: env({ sent_at: '2026-01-01T00:00:00+02:00' }) }), 400, 'invalid_envelope', 'sent_at'],
    ['envelope unknown field', () => ({ body: env({ extra: true }) }), 400, 'invalid_envelope', 'body'],
    ['heartbeat with events', () => ({ body: env({ kind: 'heartbeat' }) }), 400, 'invalid_envelope', 'events'],
    ['envelope events not an array', () => ({ body: env({ events: {} }) }), 400, 'invalid_envelope', 'events'],
    ['envelope of another workspace', () => ({ body: JSON.stringify(makeEnvelope(randomUUID(), [])) }), 403, 'forbidden', 'workspace_id'],
    ['an event of another workspace', () => ({ body: JSON.stringify([makeEvent(ws), makeEvent(randomUUID())]) }), 403, 'forbidden', 'events[1].workspace_id'],
    ['1,001 events', () => ({ body: JSON.stringify(Array.from({ length: 1001 }, () => makeEvent(ws))) }), 413, 'payload_too_large', 'body'],
    ['body over the byte cap', () => ({ body: `[${' '.repeat(4 * 1024 * 1024)}]` }), 413, 'payload_too_large', 'body'],
    ['gzip bomb', () => ({ bytes: gzipSync(Buffer.alloc(9 * 1024 * 1024, 32)), encoding: 'gzip' }), 413, 'payload_too_large', 'body'],
    ['brotli bomb', () => ({ bytes: brotliCompressSync(Buffer.alloc(9 * 1024 * 1024, 32)), encoding: 'br' }), 413, 'payload_too_large', 'body'],
    ['brotli with a 16 MiB window', () => ({ bytes: brotliCompressSync(Buffer.from(good()), { params: { [zlibConstants.BROTLI_PARAM_LGWIN]: 24 } }), encoding: 'br' }), 400, 'invalid_brotli', 'body'],
    ['brotli with a large window', () => ({ bytes: brotliCompressSync(Buffer.from(good()), { params: { [zlibConstants.BROTLI_PARAM_LARGE_WINDOW]: 1, [zlibConstants.BROTLI_PARAM_LGWIN]: 26 } }), encoding: 'br' }), 400, 'invalid_brotli', 'body'],
    ['bad idempotency key', () => ({ body: good(), headers: { 'idempotency-key': 'a b' } }), 400, 'invalid_request', 'Idempotency-Key'],
  ];

  it.each(cases)('%s -> %i', async (name, make, status, code, field) => {
    const before = await cp.store.countEvents(ws);
    const c = make();
    const headers = { ...(c.headers ?? {}) };
    if (c.raw !== undefined) headers.authorization = c.raw;
    else if (c.key !== null) headers.authorization = `Bearer ${c.key ?? key}`;
    if (c.type !== null) headers['content-type'] = c.type ?? 'application/json';
    if (c.encoding !== undefined) headers['content-encoding'] = c.encoding;
    const res = await fetch(`${cp.url}/v1/events`, { method: 'POST', headers, body: c.bytes ?? c.body });
    const json = await res.json();
    expect(res.status).toBe(status);
    expect(json.error).toBe(code);
    expect(typeof json.message).toBe('string');
    if (field !== undefined) expect(json.field).toBe(field);
    expect(await cp.store.countEvents(ws)).toBe(before);
  });

  it('a session cannot post events, and a revoked key is refused', async () => {
    const c = new Client(cp.url);
    await c.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const viaSession = await c.request('POST', '/v1/events', { body: [makeEvent(ws)] });
    expect(viaSession.status).toBe(403);
    const made = await c.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: 'temp' } });
    expect(made.status).toBe(201);
    expect((await postEvents(cp.url, made.json.key, [makeEvent(ws)])).status).toBe(202);
    expect((await c.request('DELETE', `/v1/workspaces/${ws}/keys/${made.json.id}`)).status).toBe(204);
    const r = await postEvents(cp.url, made.json.key, [makeEvent(ws)]);
    expect(r.status).toBe(401);
    expect(r.json.message).toMatch(/revoked/);
  });
});

describe('POST /v1/events: rate limit', () => {
  it('answers 429 with Retry-After once a key exceeds its budget', async () => {
    const small = await startControlPlane({ keyRate: { rate: 1, burst: 3 } });
    try {
      const k = small.bootstrap.api_key;
      const w = small.bootstrap.workspace_id;
      const statuses = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await postEvents(small.url, k, [makeEvent(w)]);
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 3)).toEqual([202, 202, 202]);
      expect(statuses[4]).toBe(429);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(last.json.error).toBe('rate_limited');
    } finally {
      await small.stop();
    }
  });
});
