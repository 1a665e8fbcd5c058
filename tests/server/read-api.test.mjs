// The read API over real HTTP: overview aggregates from the rollups, the events feed with its
// cursor and filters, fleet, findings, settings; and each bad parameter named in a 400.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startControlPlane, Client, makeEvent, makeEnvelope, postEvents } from './support.mjs';

const DAY = 86_400_000;
let cp;
let ws;
let owner;
const ipA = randomBytes(32).toString('hex');
const ipB = randomBytes(32).toString('hex');
const day = (ms) => new Date(ms).toISOString().slice(0, 10);
// the events below sit up to 4 s before `now` and must share its UTC day: in the first minute of a day, step back
const now = Date.now() % DAY < 60_000 ? Date.now() - 60_000 : Date.now();

beforeAll(async () => {
  cp = await startControlPlane();
  ws = cp.bootstrap.workspace_id;
  owner = new Client(cp.url);
  await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
  const at = (ms) => new Date(ms).toISOString();
  const events = [
    // today: 3 xss denies from A on /search, 1 sql deny from B on /login, 2 clean allows
    ...[0, 1, 2].map((i) => makeEvent(ws, { ip_hash: ipA, route: '/search', vector: 'xss', rule: 'patterns.xss.script-tag', timestamp: at(now - 1000 - i) })),
    makeEvent(ws, { ip_hash: ipB, route: '/login', method: 'POST', vector: 'sql', rule: 'patterns.sql.tautology', matched: "' OR 1=1", timestamp: at(now - 2000) }),
    makeEvent(ws, { decision: 'allow', vector: 'none', rule: 'none', matched: '', action: 'passed', ip_hash: ipB, route: '/', timestamp: at(now - 3000) }),
    makeEvent(ws, { decision: 'allow', vector: 'none', rule: 'none', matched: '', action: 'passed', ip_hash: ipA, route: '/', app_id: 'admin', timestamp: at(now - 4000) }),
    // two days ago: one path deny from A
    makeEvent(ws, { ip_hash: ipA, route: '/files/:name', vector: 'path', rule: 'patterns.path.dot-dot', matched: '../../etc/passwd', timestamp: at(now - 2 * DAY) }),
  ];
  const r = await postEvents(cp.url, cp.bootstrap.api_key, makeEnvelope(ws, events));
  expect(r.json).toEqual({ accepted: 7, rejected: [] });
});
afterAll(async () => {
  await cp.stop();
});

describe('overview', () => {
  it('counts per day and the tops from the rollups', async () => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/overview?from=${day(now - 6 * DAY)}&to=${day(now)}`);
    expect(r.status).toBe(200);
    const o = r.json;
    expect(o.totals).toEqual({ allow: 2, deny: 5 });
    expect(o.per_day).toEqual([
      { day: day(now - 2 * DAY), allow: 0, deny: 1 },
      { day: day(now), allow: 2, deny: 4 },
    ]);
    expect(o.top_vectors).toEqual([{ vector: 'xss', denied: 3 }, { vector: 'path', denied: 1 }, { vector: 'sql', denied: 1 }]);
    expect(o.top_categories[0]).toEqual({ rule: 'patterns.xss.script-tag', vector: 'xss', denied: 3 });
    expect(o.top_routes[0]).toEqual({ route: '/search', method: 'GET', requests: 3, denied: 3 });
    expect(o.top_offenders).toEqual([{ ip_hash: ipA, denied: 4 }, { ip_hash: ipB, denied: 1 }]);
  });

  it('a repeated parameter resolves last-value-wins (shield guards the control plane too)', async () => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/overview?app=shop&app=admin`);
    expect(r.status).toBe(200);
    expect(r.json.totals).toEqual({ allow: 1, deny: 0 });
  });

  it('honours the day range (inclusive) and the app filter', async () => {
    const today = await owner.request('GET', `/v1/workspaces/${ws}/overview?from=${day(now)}&to=${day(now)}`);
    expect(today.json.totals).toEqual({ allow: 2, deny: 4 });
    const admin = await owner.request('GET', `/v1/workspaces/${ws}/overview?app=admin`);
    expect(admin.json.totals).toEqual({ allow: 1, deny: 0 });
    const past = await owner.request('GET', `/v1/workspaces/${ws}/overview?from=${day(now - 2 * DAY)}&to=${day(now - 2 * DAY)}`);
    expect(past.json.top_offenders).toEqual([{ ip_hash: ipA, denied: 1 }]);
  });

  it.each([
    ['from=2026-13-01', 'from'],
    ['to=yesterday', 'to'],
    [`from=${day(now)}&to=${day(now - DAY)}`, 'from'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['bogus=1', 'bogus'],
  ])('400 for %s naming %s', async (q, field) => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/overview?${q}`);
    expect(r.status).toBe(400);
    expect(r.json.field).toBe(field);
  });
});

describe('events feed', () => {
  it('newest first, paginated by cursor without gaps or repeats', async () => {
    const all = await owner.request('GET', `/v1/workspaces/${ws}/events?limit=500`);
    expect(all.json.events.length).toBe(7);
    const times = all.json.events.map((e) => Date.parse(e.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const seen = [];
    let cursor = null;
    for (let page = 0; page < 10; page++) {
      const r = await owner.request('GET', `/v1/workspaces/${ws}/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...r.json.events.map((e) => e.id));
      cursor = r.json.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(all.json.events.map((e) => e.id));
  });

  it('returns events in the ingest shape, ip_hash as 64 hex characters', async () => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/events?vector=sql`);
    expect(r.json.events).toHaveLength(1);
    expect(r.json.events[0]).toMatchObject({ workspace_id: ws, vector: 'sql', rule: 'patterns.sql.tautology', matched: "' OR 1=1", route: '/login', method: 'POST', ip_hash: ipB, decision: 'deny', action: 'blocked' });
  });

  it.each([
    ['decision=deny', 5],
    ['decision=allow', 2],
    ['vector=xss', 3],
    ['rule=patterns.path.dot-dot', 1],
    ['route=%2Fsearch', 3],
    ['method=POST', 1],
    [`ip_hash=${ipA}`, 5],
    ['app=admin', 1],
    [`from=${encodeURIComponent(new Date(now - DAY).toISOString())}`, 6],
    [`to=${encodeURIComponent(new Date(now - DAY).toISOString())}`, 1],
    [`ip_hash=${ipA}&decision=deny&vector=xss`, 3],
  ])('filter %s -> %i events', async (q, n) => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/events?${q}`);
    expect(r.status).toBe(200);
    expect(r.json.events).toHaveLength(n);
  });

  it.each([
    ['decision=block', 'decision'],
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=%21%21', 'cursor'],
    ['from=not-a-date', 'from'],
    ['route=<2,049 characters>', 'route'],
    ['colour=red', 'colour'],
  ])('400 for %s naming %s', async (q, field) => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/events?${q.replace('<2,049 characters>', 'x'.repeat(2049))}`);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_request');
    expect(r.json.field).toBe(field);
  });

  it('an unknown or malformed workspace id is 404 for a member of none, 403 for a real one not theirs', async () => {
    expect((await owner.request('GET', '/v1/workspaces/not-a-uuid/events')).status).toBe(404);
    expect((await owner.request('GET', '/v1/workspaces/00000000-0000-4000-8000-000000000000/events')).status).toBe(403);
  });
});

describe('fleet, findings and settings', () => {
  it('lists the SDK instance that sent the batch as active', async () => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/fleet`);
    expect(r.json.instances).toHaveLength(1);
    expect(r.json.instances[0]).toMatchObject({ app_id: 'shop', sdk: '@shield/node', sdk_version: '0.1.0', events: 7, dropped: 0, status: 'active' });
  });

  it('groups uploaded findings by repository and serves one repository', async () => {
    const upload = {
      schema_version: '1', kind: 'sca', tool: { name: 'shield', version: '0.1.0' }, repository: { name: 'acme/shop', ref: 'main', commit: 'a'.repeat(40) },
      generated_at: new Date().toISOString(),
      findings: [
        { id: 'f-1', rule: 'GHSA-aaaa-bbbb-cccc', severity: 'critical', title: 'prototype pollution in a dependency', package: { ecosystem: 'npm', name: 'left-pad', version: '1.0.0' } },
        { id: 'f-2', rule: 'GHSA-dddd-eeee-ffff', severity: 'low', title: 'a minor issue', package: { ecosystem: 'npm', name: 'right-pad', version: '2.0.0' } },
      ],
      inventory: [{ ecosystem: 'npm', name: 'left-pad', version: '1.0.0', direct: true }],
    };
    const post = await fetch(`${cp.url}/v1/findings`, { method: 'POST', headers: { authorization: `Bearer ${cp.bootstrap.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify(upload) });
    expect(post.status).toBe(201);
    const list = await owner.request('GET', `/v1/workspaces/${ws}/findings`);
    expect(list.json.repositories.map((r) => r.repository)).toEqual(['acme/shop']);
    const one = await owner.request('GET', `/v1/workspaces/${ws}/findings?repository=acme%2Fshop`);
    expect(one.status).toBe(200);
    expect(one.json.findings.map((f) => f.severity)).toEqual(['critical', 'low']);
    expect((await owner.request('GET', `/v1/workspaces/${ws}/findings?repository=acme%2Fnone`)).status).toBe(404);
  });

  it('renames a workspace and sets its retention; refuses unknown fields and bad values', async () => {
    const ok = await owner.request('PATCH', `/v1/workspaces/${ws}`, { body: { name: 'production', retention_days: 90 } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ id: ws, name: 'production', retention_days: 90 });
    const bad = await owner.request('PATCH', `/v1/workspaces/${ws}`, { body: { retention_days: 0 } });
    expect(bad.json.field).toBe('retention_days');
    const unknown = await owner.request('PATCH', `/v1/workspaces/${ws}`, { body: { owner: 'me' } });
    expect(unknown.json.field).toBe('owner');
  });

  it('shows a new key once, lists it by prefix only, and a member cannot administer', async () => {
    const made = await owner.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: 'ci' } });
    expect(made.json.key).toMatch(/^shk_/);
    const list = await owner.request('GET', `/v1/workspaces/${ws}/keys`);
    const listed = list.json.keys.find((k) => k.id === made.json.id);
    expect(listed).toMatchObject({ name: 'ci', prefix: made.json.key.slice(0, 12), revoked_at: null });
    expect(JSON.stringify(list.json)).not.toContain(made.json.key);
    const added = await owner.request('POST', `/v1/workspaces/${ws}/members`, { body: { email: 'dave@example.test' } });
    const dave = new Client(cp.url);
    await dave.signIn('dave@example.test', added.json.password);
    expect((await dave.request('GET', `/v1/workspaces/${ws}/events`)).status).toBe(200);
    expect((await dave.request('GET', `/v1/workspaces/${ws}/keys`)).status).toBe(403);
    expect((await dave.request('POST', `/v1/workspaces/${ws}/members`, { body: { email: 'eve@example.test' } })).status).toBe(403);
    const members = await owner.request('GET', `/v1/workspaces/${ws}/members`);
    const me = members.json.members.find((m) => m.role === 'owner');
    const last = await owner.request('DELETE', `/v1/workspaces/${ws}/members/${me.account_id}`);
    expect(last.status).toBe(409);
    expect(last.json.error).toBe('last_owner');
  });

  it('serves a plain page at / and health at /healthz, with security headers', async () => {
    const home = await fetch(`${cp.url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('/v1/openapi.json');
    expect(home.headers.get('x-content-type-options')).toBe('nosniff');
    const health = await fetch(`${cp.url}/healthz`).then((r) => r.json());
    expect(health.status).toBe('ok');
  });
});
