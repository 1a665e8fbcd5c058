// `shield login` end to end: the real bin against a real control plane, the approval done
// the way a browser does it (sign in, open /device, submit its form); plus the RFC 8628
// answers a real server cannot produce on demand (slow_down, expired_token) from a stub.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, statSync, readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@shield/control-plane';
import { runCli, runToEnd, freePort, browserSignIn } from './support.mjs';

let tmp;
let cp;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'shield-cli-login-'));
  cp = await startServer({ port: 0, host: '127.0.0.1', dataDir: join(tmp, 'cp'), devicePollS: 1, log: () => {} });
});
afterAll(async () => {
  await cp?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Reads the code the CLI printed, then approves or denies it as a signed-in browser would. */
async function decide(run, action) {
  const [, link, userCode] = await run.waitFor(/^ {2}(http\S+)\n.*the code ([A-Z0-9]{4}-[A-Z0-9]{4})/m);
  expect(link).toBe(`${cp.url}/device?user_code=${userCode}`);
  const { email, password } = cp.bootstrap.owner;
  const jar = await browserSignIn(cp.url, email, password);
  const page = await fetch(link, { headers: { cookie: jar.header() } });
  jar.keep(page);
  const html = await page.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)[1];
  const workspace = /<option value="([^"]+)"/.exec(html)[1];
  expect(workspace).toBe(cp.bootstrap.workspace_id);
  const res = await fetch(`${cp.url}/device`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    body: new URLSearchParams({ _csrf: csrf, user_code: userCode, workspace_id: workspace, action }).toString(),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.text()).toContain(action === 'approve' ? 'Device approved' : 'Device denied');
}

describe('shield login', () => {
  it('approved in the browser: exits 0 and stores a working token, 0600 in a 0700 directory, beside other endpoints', async () => {
    const home = join(tmp, 'home-ok');
    mkdirSync(home, { mode: 0o755 });
    const other = { endpoint: 'https://other.example', workspace_id: '00000000-0000-4000-8000-000000000000', access_token: 'sht_other', expires_at: '2099-01-01T00:00:00.000Z' };
    writeFileSync(join(home, 'credentials.json'), JSON.stringify({ version: 1, endpoints: { [other.endpoint]: other } }), { mode: 0o600 });

    const run = runCli(['login', '--endpoint', `${cp.url}/`, '--no-browser'], { env: { SHIELD_HOME: home } });
    await decide(run, 'approve');
    const { code } = await run.exited;
    expect(code, run.describe()).toBe(0);
    expect(run.stdout).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+, workspace [0-9a-f-]{36}\./);
    // one line before waiting, one at the end: no line per poll
    expect(run.stdout.split('\n').filter((l) => l !== '')).toHaveLength(5);

    const file = join(home, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readdirSync(home)).toEqual(['credentials.json']);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    expect(creds.version).toBe(1);
    expect(creds.endpoints[other.endpoint]).toEqual(other);
    const mine = creds.endpoints[cp.url];
    expect(mine).toMatchObject({ endpoint: cp.url, workspace_id: cp.bootstrap.workspace_id });
    expect(mine.access_token).toMatch(/^sht_/);
    expect(Date.parse(mine.expires_at)).toBeGreaterThan(Date.now() + 3600_000);

    const overview = await fetch(`${cp.url}/v1/workspaces/${mine.workspace_id}/overview`, { headers: { authorization: `Bearer ${mine.access_token}` } });
    expect(overview.status).toBe(200);
  });

  it('denied in the browser: exits 1 with a clear message and writes nothing', async () => {
    const home = join(tmp, 'home-denied');
    const run = runCli(['login', '--endpoint', cp.url, '--no-browser'], { env: { SHIELD_HOME: home } });
    await decide(run, 'deny');
    const { code } = await run.exited;
    expect(code).toBe(1);
    expect(run.stderr).toBe('shield: the login was denied on the approval page; nothing was stored\n');
    expect(existsSync(join(home, 'credentials.json'))).toBe(false);
  });

  it.each([
    ['http://example.com', '--endpoint must use https:// (plain http:// is accepted only for a loopback address'],
    ['http://10.0.0.1:8787', '--endpoint must use https://'],
    ['ftp://example.com', '--endpoint must be an https:// URL'],
    ['example.com', '--endpoint must be an absolute URL'],
    ['https://example.com/?next=1', '--endpoint must be the base URL, without a query or fragment'],
  ])('refuses --endpoint %s (exit 2) before any request', async (endpoint, message) => {
    const r = await runToEnd(['login', '--endpoint', endpoint, '--no-browser'], { env: { SHIELD_HOME: join(tmp, 'never') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('a missing --endpoint is a usage error; an unreachable one a clear failure', async () => {
    const missing = await runToEnd(['login'], { env: { SHIELD_HOME: join(tmp, 'never') } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--endpoint <url>' not specified");
    const port = await freePort();
    const down = await runToEnd(['login', '--endpoint', `http://127.0.0.1:${port}`, '--no-browser'], { env: { SHIELD_HOME: join(tmp, 'never') } });
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`shield: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });
});

/** A stand-in control plane answering the token endpoint from a script of replies. */
async function stubServer(replies) {
  const polls = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const send = (status, json) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(json)); };
      if (req.url === '/v1/auth/device') {
        return send(200, { device_code: 'shd_test', user_code: 'BCDF-GHJK', verification_uri: 'http://127.0.0.1/device', verification_uri_complete: 'http://127.0.0.1/device?user_code=BCDF-GHJK', expires_in: 60, interval: 1 });
      }
      polls.push({ at: Date.now(), body: JSON.parse(body) });
      const [status, json] = replies[Math.min(polls.length - 1, replies.length - 1)];
      send(status, json);
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${server.address().port}`, polls, close: () => server.close() };
}

describe('shield login polling (RFC 8628 answers)', () => {
  it('slows down when told to, keeps waiting while pending, then stores the token', async () => {
    const stub = await stubServer([
      [400, { error: 'slow_down', interval: 2 }],
      [400, { error: 'authorization_pending' }],
      [200, { access_token: 'sht_stub', token_type: 'Bearer', expires_in: 600, workspace_id: '11111111-1111-4111-8111-111111111111' }],
    ]);
    try {
      const home = join(tmp, 'home-stub');
      const r = await runToEnd(['login', '--endpoint', stub.url, '--no-browser'], { env: { SHIELD_HOME: home } });
      expect(r.code, r.stderr).toBe(0);
      expect(stub.polls).toHaveLength(3);
      expect(stub.polls[0].body).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'shd_test' });
      // after slow_down the interval is the returned 2 s, from then on
      expect(stub.polls[1].at - stub.polls[0].at).toBeGreaterThanOrEqual(1900);
      expect(stub.polls[2].at - stub.polls[1].at).toBeGreaterThanOrEqual(1900);
      const creds = JSON.parse(readFileSync(join(home, 'credentials.json'), 'utf8'));
      expect(creds.endpoints[stub.url]).toMatchObject({ access_token: 'sht_stub', workspace_id: '11111111-1111-4111-8111-111111111111' });
    } finally {
      stub.close();
    }
  });

  it('fails clearly on expired_token and on an unexpected error', async () => {
    const expired = await stubServer([[400, { error: 'authorization_pending' }], [400, { error: 'expired_token' }]]);
    const odd = await stubServer([[400, { error: 'invalid_grant', error_description: 'unknown device_code' }]]);
    try {
      const a = await runToEnd(['login', '--endpoint', expired.url, '--no-browser'], { env: { SHIELD_HOME: join(tmp, 'home-exp') } });
      expect(a.code).toBe(1);
      expect(a.stderr).toBe('shield: the code expired before it was approved; run `shield login` again\n');
      const b = await runToEnd(['login', '--endpoint', odd.url, '--no-browser'], { env: { SHIELD_HOME: join(tmp, 'home-odd') } });
      expect(b.code).toBe(1);
      expect(b.stderr).toBe(`shield: ${odd.url} refused the login: HTTP 400: unknown device_code\n`);
    } finally {
      expired.close();
      odd.close();
    }
  });
});
