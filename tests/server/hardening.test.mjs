// What the control plane refuses so that one user cannot reach another's data or lock them
// out: account creation by administrators only, password changes ending other sessions and
// tokens, tokens ending with membership, the https cookie, per-address limits behind a proxy,
// CSRF on non-Bearer credentials, and the caps on device codes and ingest.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { resolveConfig } from '@shield/control-plane';
import { startControlPlane, Client, makeEvent, makeEnvelope, postEvents, deviceToken } from './support.mjs';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe('accounts, passwords and tokens', () => {
  let cp;
  let admin;
  let ws2;
  let olivia;
  let oliviaPassword;
  beforeAll(async () => {
    cp = await startControlPlane();
    admin = new Client(cp.url);
    await admin.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    ws2 = (await admin.request('POST', '/v1/workspaces', { body: { name: 'second' } })).json.id;
    const added = await admin.request('POST', `/v1/workspaces/${ws2}/members`, { body: { email: 'olivia@example.test', role: 'owner' } });
    expect(added.status).toBe(201);
    oliviaPassword = added.json.password;
    olivia = new Client(cp.url);
    await olivia.signIn('olivia@example.test', oliviaPassword);
  });
  afterAll(async () => {
    await cp.stop();
  });

  it('an owner who is not an administrator cannot create accounts (nor learn a password)', async () => {
    const r = await olivia.request('POST', `/v1/workspaces/${ws2}/members`, { body: { email: 'victim@example.test' } });
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ error: 'no_such_account', field: 'email' });
    const existing = await olivia.request('POST', `/v1/workspaces/${ws2}/members`, { body: { email: cp.bootstrap.owner.email, role: 'owner' } });
    expect(existing.status).toBe(201);
    expect(existing.json.password).toBeUndefined();
  });

  it('changing the password ends the other sessions and the tokens, and keeps this one', async () => {
    const other = new Client(cp.url);
    await other.signIn('olivia@example.test', oliviaPassword);
    const token = await deviceToken(cp.url, olivia, ws2);
    const read = () => fetch(`${cp.url}/v1/workspaces/${ws2}/events`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await read()).toBe(200);
    const wrong = await olivia.request('POST', '/v1/auth/password', { body: { current_password: 'not it at all', new_password: 'a brand new passphrase' } });
    expect(wrong.status).toBe(403);
    expect(wrong.json.field).toBe('current_password');
    const short = await olivia.request('POST', '/v1/auth/password', { body: { current_password: oliviaPassword, new_password: 'short' } });
    expect(short.json.field).toBe('new_password');
    // attack-like text is fine in a password: passwords are exempt from the scan and only hashed
    const ok = await olivia.request('POST', '/v1/auth/password', { body: { current_password: oliviaPassword, new_password: "<script>' OR 1=1--" } });
    expect(ok.status).toBe(204);
    expect((await olivia.request('GET', '/v1/auth/session')).status).toBe(200);
    expect((await other.request('GET', '/v1/auth/session')).status).toBe(401);
    expect(await read()).toBe(401);
    await expect(new Client(cp.url).signIn('olivia@example.test', oliviaPassword)).rejects.toThrow(/401/);
    await new Client(cp.url).signIn('olivia@example.test', "<script>' OR 1=1--");
  });

  it("a member's access token stops working when the member is removed", async () => {
    const added = await admin.request('POST', `/v1/workspaces/${ws2}/members`, { body: { email: 'pat@example.test' } });
    const pat = new Client(cp.url);
    await pat.signIn('pat@example.test', added.json.password);
    const token = await deviceToken(cp.url, pat, ws2);
    const read = () => fetch(`${cp.url}/v1/workspaces/${ws2}/events`, { headers: { authorization: `Bearer ${token}` } });
    expect((await read()).status).toBe(200);
    expect((await admin.request('DELETE', `/v1/workspaces/${ws2}/members/${added.json.account_id}`)).status).toBe(204);
    const after = await read();
    expect(after.status).toBe(401);
  });

  it('the last owner cannot be demoted by re-adding it as a member', async () => {
    const ws3 = (await olivia.request('POST', '/v1/workspaces', { body: { name: 'third' } })).json.id;
    const r = await olivia.request('POST', `/v1/workspaces/${ws3}/members`, { body: { email: 'olivia@example.test', role: 'member' } });
    expect(r.status).toBe(409);
    expect(r.json.error).toBe('last_owner');
  });

  it('a key sends only what its scopes allow', async () => {
    const ws = cp.bootstrap.workspace_id;
    const made = (scopes) => admin.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: `only ${scopes.join(' ')}`, scopes } });
    const eventsKey = (await made(['events'])).json;
    const findingsKey = (await made(['findings'])).json;
    expect(eventsKey.scopes).toEqual(['events']);
    const upload = (key) => fetch(`${cp.url}/v1/findings`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ schema_version: '1', kind: 'audit', tool: { name: 'shield', version: '0.1.0' }, repository: { name: 'acme/scoped' }, generated_at: new Date().toISOString(), findings: [] }),
    });
    expect((await upload(eventsKey.key)).status).toBe(403);
    expect((await upload(findingsKey.key)).status).toBe(201);
    expect((await postEvents(cp.url, eventsKey.key, [makeEvent(ws)])).status).toBe(202);
    const refused = await postEvents(cp.url, findingsKey.key, [makeEvent(ws)]);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/may not send events \(scopes: findings\)/);
    for (const bad of [[], ['events', 'events'], ['admin'], 'events']) {
      const r = await admin.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: 'bad', scopes: bad } });
      expect(r.status).toBe(400);
      expect(r.json.field).toBe('scopes');
    }
  });

  it('a Basic credential does not exempt a sign-in from CSRF', async () => {
    const res = await fetch(`${cp.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      body: JSON.stringify({ email: cp.bootstrap.owner.email, password: cp.bootstrap.owner.password }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().some((c) => c.includes('shield_session'))).toBe(false);
  });
});

describe('https cookie and per-address limits behind a proxy', () => {
  let cp;
  beforeAll(async () => {
    cp = await startControlPlane({ trustProxy: 1 });
  });
  afterAll(async () => {
    await cp.stop();
  });
  const from = (ip, proto = 'http') => ({ 'x-forwarded-for': ip, 'x-forwarded-proto': proto });

  it('over https through the proxy the session cookie is __Host- and Secure, and a plain one is not a session', async () => {
    const c = new Client(cp.url);
    c.csrf = (await c.request('GET', '/v1/auth/csrf', { headers: from('198.51.100.7', 'https') })).json.csrf_token;
    const r = await c.request('POST', '/v1/auth/login', { body: { email: cp.bootstrap.owner.email, password: cp.bootstrap.owner.password }, headers: from('198.51.100.7', 'https') });
    expect(r.status).toBe(200);
    const cookie = r.headers.getSetCookie().find((x) => x.startsWith('__Host-shield_session='));
    expect(cookie).toMatch(/; Secure/);
    const sid = cookie.split(';')[0].split('=')[1];
    const asPlain = await fetch(`${cp.url}/v1/auth/session`, { headers: { cookie: `shield_session=${sid}`, ...from('198.51.100.7', 'https') } });
    expect(asPlain.status).toBe(401);
    const asHost = await fetch(`${cp.url}/v1/auth/session`, { headers: { cookie: `__Host-shield_session=${sid}`, ...from('198.51.100.7', 'https') } });
    expect(asHost.status).toBe(200);
  });

  it("failed sign-ins from one address do not lock the owner out from another", async () => {
    const attacker = new Client(cp.url);
    attacker.csrf = (await attacker.request('GET', '/v1/auth/csrf', { headers: from('203.0.113.9') })).json.csrf_token;
    const statuses = [];
    // 10 are checked; the 50 after them are refused and, refused, take nothing from the
    // owner's per-email bucket
    for (let i = 0; i < 60; i++) {
      statuses.push((await attacker.request('POST', '/v1/auth/login', { body: { email: cp.bootstrap.owner.email, password: `guess ${i}` }, headers: from('203.0.113.9') })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    const owner = new Client(cp.url);
    owner.csrf = (await owner.request('GET', '/v1/auth/csrf', { headers: from('198.51.100.1') })).json.csrf_token;
    const ok = await owner.request('POST', '/v1/auth/login', { body: { email: cp.bootstrap.owner.email, password: cp.bootstrap.owner.password }, headers: from('198.51.100.1') });
    expect(ok.status).toBe(200);
  });

  it('device codes are limited per address, and an IPv6 /64 is one address', async () => {
    const ask = (ip) => fetch(`${cp.url}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json', ...from(ip) }, body: '{}' });
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await ask(`2001:db8:1:2::${(i + 1).toString(16)}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    const last = await ask('2001:db8:1:2:ffff::1');
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await ask('2001:db8:1:3::1')).status).toBe(200);
  });
});

describe('configuration', () => {
  it('refuses to trust proxy ranges so wide that clients could forge their address', () => {
    for (const wide of ['0.0.0.0/0', '0.0.0.0/1,128.0.0.0/1', '::/0', '::0/0', '2000::/3']) {
      expect(() => resolveConfig({ trustProxy: wide })).toThrow(/wider than/);
    }
    for (const fine of [1, '10.0.0.0/8', 'loopback', '192.168.1.10', 'fd00::/16']) expect(resolveConfig({ trustProxy: fine }).trustProxy).toBe(fine);
    expect(() => resolveConfig({ trustProxy: true })).toThrow(/trustProxy/);
    expect(() => resolveConfig({ colour: 'red' })).toThrow(/"colour" is not known/);
  });
});

describe('caps', () => {
  it('at most maxPendingDeviceCodes logins wait at once (503 beyond)', async () => {
    const cp = await startControlPlane({ maxPendingDeviceCodes: 2 });
    try {
      const ask = () => fetch(`${cp.url}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect((await ask()).status).toBe(200);
      expect((await ask()).status).toBe(200);
      const third = await ask();
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('60');
    } finally {
      await cp.stop();
    }
  });

  it('ingest beyond maxIngestInFlight answers 503 with Retry-After at once', async () => {
    const cp = await startControlPlane({ maxIngestInFlight: 0 });
    try {
      const ws = cp.bootstrap.workspace_id;
      const r = await postEvents(cp.url, cp.bootstrap.api_key, [makeEvent(ws)]);
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(await cp.store.countEvents(ws)).toBe(0);
    } finally {
      await cp.stop();
    }
  });

  it('refuses an event with a lone surrogate and an envelope whose dropped count is not a safe integer', async () => {
    const cp = await startControlPlane();
    try {
      const ws = cp.bootstrap.workspace_id;
      const lone = await postEvents(cp.url, cp.bootstrap.api_key, `[${JSON.stringify(makeEvent(ws)).replace('"app_id":"shop"', '"app_id":"shop\\udfff"')}]`);
      expect(lone.json.accepted).toBe(0);
      expect(lone.json.rejected[0].errors[0]).toMatch(/^app_id is not well-formed Unicode/);
      const loneEnvelope = await postEvents(cp.url, cp.bootstrap.api_key, JSON.stringify(makeEnvelope(ws, [])).replace('"app_id":"shop"', '"app_id":"shop\\ud800"'));
      expect(loneEnvelope.status).toBe(400);
      expect(loneEnvelope.json.message).toMatch(/^app_id is not well-formed Unicode/);
      const huge = await postEvents(cp.url, cp.bootstrap.api_key, JSON.stringify(makeEnvelope(ws, [makeEvent(ws)])).replace('"dropped":0', '"dropped":1e300'));
      expect(huge.status).toBe(400);
      expect(huge.json.field).toBe('dropped');
    } finally {
      await cp.stop();
    }
  });
});

describe('device approval', () => {
  it('concurrent wrong codes cannot get past the limit', async () => {
    const cp = await startControlPlane();
    try {
      const owner = new Client(cp.url);
      await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
      const letters = 'BCDFGHJKMNPQRSTVWXZ';
      const code = (i) => `BCDF-${letters[i % 19]}${letters[Math.floor(i / 19) % 19]}GH`;
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => owner.request('POST', '/device', { form: { _csrf: owner.csrf, user_code: code(i), action: 'deny' } })));
      const checked = answers.filter((r) => r.status === 400).length;
      expect(checked).toBeLessThanOrEqual(10);
      expect(answers.filter((r) => r.status === 429).length).toBe(40 - checked);
    } finally {
      await cp.stop();
    }
  });

  it('an approved login not yet exchanged dies with the membership and with a password change', async () => {
    const cp = await startControlPlane();
    try {
      const admin = new Client(cp.url);
      await admin.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
      const ws = cp.bootstrap.workspace_id;
      const exchange = (deviceCode) => fetch(`${cp.url}/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: GRANT, device_code: deviceCode }) }).then((r) => r.json());
      const approvedBy = async (client) => {
        const d = await fetch(`${cp.url}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
        expect((await client.request('POST', '/device', { form: { _csrf: client.csrf, user_code: d.user_code, workspace_id: ws, action: 'approve' } })).status).toBe(200);
        return d.device_code;
      };
      const added = await admin.request('POST', `/v1/workspaces/${ws}/members`, { body: { email: 'bob@example.test' } });
      const bob = new Client(cp.url);
      await bob.signIn('bob@example.test', added.json.password);
      const bobsCode = await approvedBy(bob);
      expect((await admin.request('DELETE', `/v1/workspaces/${ws}/members/${added.json.account_id}`)).status).toBe(204);
      expect((await exchange(bobsCode)).error).toBe('access_denied');

      const stolen = await approvedBy(admin);
      expect((await admin.request('POST', '/v1/auth/password', { body: { current_password: cp.bootstrap.owner.password, new_password: 'a new owner passphrase' } })).status).toBe(204);
      expect((await exchange(stolen)).error).toBe('access_denied');
    } finally {
      await cp.stop();
    }
  });

  it('wrong user codes are limited per account: 10, then 429 even for a real code', async () => {
    const cp = await startControlPlane();
    try {
      const owner = new Client(cp.url);
      await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
      const approve = (code) => owner.request('POST', '/device', { form: { _csrf: owner.csrf, user_code: code, workspace_id: cp.bootstrap.workspace_id, action: 'approve' } });
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await approve(`BCDF-GH${'BCDFGHJKMN'[i]}${'BCDFGHJKMN'[i]}`)).status);
      expect(statuses).toEqual(Array(10).fill(400));
      const real = await fetch(`${cp.url}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
      const limited = await approve(real.user_code);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      const poll = await fetch(`${cp.url}/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: GRANT, device_code: real.device_code }) }).then((r) => r.json());
      expect(poll.error).toBe('authorization_pending');
    } finally {
      await cp.stop();
    }
  });
});
