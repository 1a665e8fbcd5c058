// Sign-in, sessions, CSRF and the device-authorization login, over real HTTP.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startControlPlane, Client } from './support.mjs';
import { hashPassword, verifyPassword } from '../../server/src/auth/passwords.js';

let cp;
beforeAll(async () => {
  cp = await startControlPlane({ devicePollS: 1 });
});
afterAll(async () => {
  await cp.stop();
});

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const poll = (deviceCode) => fetch(`${cp.url}/v1/auth/token`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: GRANT, device_code: deviceCode }),
}).then(async (r) => ({ status: r.status, json: await r.json(), cache: r.headers.get('cache-control') }));
const startDevice = () => fetch(`${cp.url}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('bootstrap', () => {
  it('writes bootstrap.json with mode 0600 holding a working owner, workspace and key', async () => {
    const file = join(cp.dataDir, 'bootstrap.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const b = JSON.parse(readFileSync(file, 'utf8'));
    expect(b).toEqual(cp.bootstrap);
    expect(b.workspace_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.api_key).toMatch(/^shk_[A-Za-z0-9_-]{43}$/);
    const c = new Client(cp.url);
    const s = await c.signIn(b.owner.email, b.owner.password);
    expect(s.workspaces.map((w) => w.id)).toEqual([b.workspace_id]);
  });

  it('stores keys and passwords only as hashes', async () => {
    const db = readFileSync(join(cp.dataDir, 'shield.db'));
    const wal = (() => { try { return readFileSync(join(cp.dataDir, 'shield.db-wal')); } catch { return Buffer.alloc(0); } })();
    for (const secret of [cp.bootstrap.api_key, cp.bootstrap.owner.password]) {
      expect(db.includes(secret)).toBe(false);
      expect(wal.includes(secret)).toBe(false);
    }
  });
});

describe('passwords', () => {
  it('scrypt hashes verify, and a wrong or malformed one does not', async () => {
    const h = await hashPassword('correct horse battery');
    expect(h).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', h)).toBe(true);
    expect(await verifyPassword('correct horse batterz', h)).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1$1$1$AA$AA')).toBe(false);
    expect(await verifyPassword('x', 'plain')).toBe(false);
  });
});

describe('sessions and CSRF', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie and refuses a wrong password', async () => {
    const c = new Client(cp.url);
    c.csrf = (await c.request('GET', '/v1/auth/csrf')).json.csrf_token;
    const bad = await c.request('POST', '/v1/auth/login', { body: { email: cp.bootstrap.owner.email, password: 'wrong password!' } });
    expect(bad.status).toBe(401);
    expect(bad.json.error).toBe('invalid_credentials');
    const ok = await c.request('POST', '/v1/auth/login', { body: { email: cp.bootstrap.owner.email, password: cp.bootstrap.owner.password } });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.getSetCookie().find((x) => x.startsWith('shield_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // plain http on loopback
    expect((await c.request('GET', '/v1/auth/session')).status).toBe(200);
    expect((await c.request('POST', '/v1/auth/logout')).status).toBe(204);
    expect((await c.request('GET', '/v1/auth/session')).status).toBe(401);
  });

  it('refuses a session-authenticated change without the CSRF token, and a login without one', async () => {
    const c = new Client(cp.url);
    await c.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const ws = cp.bootstrap.workspace_id;
    const noToken = await c.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: 'x' }, headers: { 'x-csrf-token': '' } });
    expect(noToken.status).toBe(403);
    const forged = await c.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: 'x' }, headers: { 'x-csrf-token': 'forged' } });
    expect(forged.status).toBe(403);
    const withToken = await c.request('POST', `/v1/workspaces/${ws}/keys`, { body: { name: 'x' } });
    expect(withToken.status).toBe(201);
    const fresh = new Client(cp.url);
    const login = await fresh.request('POST', '/v1/auth/login', { body: { email: cp.bootstrap.owner.email, password: cp.bootstrap.owner.password } });
    expect(login.status).toBe(403);
  });

  it('limits sign-in attempts per identity with 429 and Retry-After', async () => {
    const c = new Client(cp.url);
    c.csrf = (await c.request('GET', '/v1/auth/csrf')).json.csrf_token;
    const statuses = [];
    let last;
    for (let i = 0; i < 12; i++) {
      last = await c.request('POST', '/v1/auth/login', { body: { email: 'nobody@example.test', password: `guess-${i}` } });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[11]).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('the control plane protects itself with shield: an attack in a JSON body is refused with 403', async () => {
    const c = new Client(cp.url);
    await c.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const r = await c.request('POST', '/v1/workspaces', { body: { name: '<script>alert(1)</script>' } });
    expect(r.status).toBe(403);
    expect(r.json.vector).toBe('xss');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('content-security-policy')).toBeTruthy();
  });

  it('a password holding attack-like text still signs in (passwords are exempt from the scan)', async () => {
    const owner = new Client(cp.url);
    await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const added = await owner.request('POST', `/v1/workspaces/${cp.bootstrap.workspace_id}/members`, { body: { email: 'carol@example.test' } });
    expect(added.status).toBe(201);
    const c = new Client(cp.url);
    await c.signIn('carol@example.test', added.json.password);
    expect(added.json.password.length).toBeGreaterThanOrEqual(24);
  });
});

describe('device authorization (RFC 8628 shape)', () => {
  it('answers device_code, user_code, verification_uri, expires_in, interval', async () => {
    const d = await startDevice();
    expect(d.device_code).toMatch(/^shd_/);
    expect(d.user_code).toMatch(/^[B-Z]{4}-[B-Z]{4}$/);
    expect(d.verification_uri).toBe(`${cp.url}/device`);
    expect(d.verification_uri_complete).toBe(`${cp.url}/device?user_code=${d.user_code}`);
    expect(d.expires_in).toBe(600);
    expect(d.interval).toBe(1);
  });

  it('pending, then slow_down when polled too fast, then a token once approved, then invalid_grant', async () => {
    const d = await startDevice();
    const first = await poll(d.device_code);
    expect(first.status).toBe(400);
    expect(first.json.error).toBe('authorization_pending');
    expect(first.cache).toBe('no-store');
    const fast = await poll(d.device_code);
    expect(fast.json.error).toBe('slow_down');
    const owner = new Client(cp.url);
    await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const page = await owner.request('GET', `/device?user_code=${d.user_code.toLowerCase()}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(d.user_code);
    const ok = await owner.request('POST', '/device', { form: { _csrf: owner.csrf, user_code: d.user_code, workspace_id: cp.bootstrap.workspace_id, action: 'approve' } });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Device approved');
    await sleep(1100 + 5000); // slow_down raised the interval by 5 s
    const tok = await poll(d.device_code);
    expect(tok.status).toBe(200);
    expect(tok.json).toMatchObject({ token_type: 'Bearer', expires_in: 8 * 3600, workspace_id: cp.bootstrap.workspace_id });
    expect(tok.json.access_token).toMatch(/^sht_/);
    const again = await poll(d.device_code);
    expect(again.json.error).toBe('invalid_grant');
    const read = await fetch(`${cp.url}/v1/workspaces/${cp.bootstrap.workspace_id}/overview`, { headers: { authorization: `Bearer ${tok.json.access_token}` } });
    expect(read.status).toBe(200);
    const admin = await fetch(`${cp.url}/v1/workspaces/${cp.bootstrap.workspace_id}/keys`, { headers: { authorization: `Bearer ${tok.json.access_token}` } });
    expect(admin.status).toBe(403);
  }, 20_000);

  it('access_denied after a denial, expired_token after expiry, and unknown codes', async () => {
    const owner = new Client(cp.url);
    await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const d = await startDevice();
    const deny = await owner.request('POST', '/device', { form: { _csrf: owner.csrf, user_code: d.user_code, action: 'deny' } });
    expect(deny.text).toContain('Device denied');
    expect((await poll(d.device_code)).json.error).toBe('access_denied');
    expect((await poll('shd_unknown')).json.error).toBe('invalid_grant');
    const bad = await fetch(`${cp.url}/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'password' }) });
    expect((await bad.json()).error).toBe('unsupported_grant_type');

    const short = await startControlPlane({ deviceCodeTtlS: 60 });
    try {
      const s = await fetch(`${short.url}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
      // expire it in the store by moving the clock of the row, as 60 s of waiting would
      await short.store.db.transaction((db) => db.run('UPDATE device_codes SET expires_at = 0'));
      const r = await fetch(`${short.url}/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: GRANT, device_code: s.device_code }) }).then((x) => x.json());
      expect(r.error).toBe('expired_token');
    } finally {
      await short.stop();
    }
  });

  it('approval needs a session, a valid code and a workspace the user belongs to', async () => {
    const anon = new Client(cp.url);
    anon.csrf = (await anon.request('GET', '/v1/auth/csrf')).json.csrf_token;
    const d = await startDevice();
    const noSession = await anon.request('POST', '/device', { form: { _csrf: anon.csrf, user_code: d.user_code, action: 'approve', workspace_id: cp.bootstrap.workspace_id } });
    expect(noSession.status).toBe(401);
    const owner = new Client(cp.url);
    await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
    const other = await owner.request('POST', '/device', { form: { _csrf: owner.csrf, user_code: d.user_code, action: 'approve', workspace_id: '00000000-0000-4000-8000-000000000000' } });
    expect(other.status).toBe(403);
    const badCode = await owner.request('POST', '/device', { form: { _csrf: owner.csrf, user_code: 'AAAA-0000', action: 'approve', workspace_id: cp.bootstrap.workspace_id } });
    expect(badCode.status).toBe(400);
    expect(badCode.json.field).toBe('user_code');
    expect((await poll(d.device_code)).json.error).toBe('authorization_pending');
  });

  it('a user can sign in on the approval page itself', async () => {
    const d = await startDevice();
    const c = new Client(cp.url);
    const page = await c.request('GET', `/device?user_code=${d.user_code}`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)[1];
    const signedIn = await c.request('POST', '/device', { form: { _csrf: csrf, user_code: d.user_code, email: cp.bootstrap.owner.email, password: cp.bootstrap.owner.password } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain(cp.bootstrap.workspace_id);
    const ok = await c.request('POST', '/device', { form: { _csrf: csrf, user_code: d.user_code, action: 'approve', workspace_id: cp.bootstrap.workspace_id } });
    expect(ok.text).toContain('Device approved');
  });
});

describe('over https', () => {
  it('session and CSRF cookies are Secure with the __Host- prefix, and sign-in works end to end', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const https = await import('node:https');
    const dir = mkdtempSync(join(tmpdir(), 'shield-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    const tls = await startControlPlane({ tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem') });
    const ca = readFileSync(join(dir, 'cert.pem'));
    // node:https with the throwaway certificate as the only trusted root
    const call = (method, path, headers = {}, body) => new Promise((resolve, reject) => {
      const req = https.request(`${tls.url}${path}`, { method, headers, ca }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    try {
      expect(tls.url).toMatch(/^https:\/\/127\.0\.0\.1:/);
      const c = await call('GET', '/v1/auth/csrf');
      const csrfCookie = c.headers['set-cookie'].find((x) => x.startsWith('__Host-shield.csrf='));
      expect(csrfCookie).toMatch(/; Secure/);
      expect(csrfCookie).toMatch(/; Path=\//);
      const login = await call('POST', '/v1/auth/login', {
        'content-type': 'application/json', cookie: csrfCookie.split(';')[0], 'x-csrf-token': c.json.csrf_token,
      }, JSON.stringify({ email: tls.bootstrap.owner.email, password: tls.bootstrap.owner.password }));
      expect(login.status).toBe(200);
      const session = login.headers['set-cookie'].find((x) => x.startsWith('__Host-shield_session='));
      expect(session).toMatch(/HttpOnly/);
      expect(session).toMatch(/SameSite=Strict/);
      expect(session).toMatch(/Secure/);
      const me = await call('GET', '/v1/auth/session', { cookie: session.split(';')[0] });
      expect(me.status).toBe(200);
      expect(me.json.account.email).toBe(tls.bootstrap.owner.email);
      const hsts = (await call('GET', '/healthz')).headers['strict-transport-security'];
      expect(hsts).toMatch(/max-age=/);
    } finally {
      await tls.stop();
    }
  });
});
