// Helpers for the control-plane suites: a real server on 127.0.0.1 over a real sqlite file in
// a fresh temporary data directory, and small HTTP helpers (fetch is undici's, built into Node).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID, randomBytes } from 'node:crypto';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startServer } from '@shield/control-plane';

/** A fresh data directory under the system temp dir. */
export function tempDir(prefix = 'shield-cp-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Starts a control plane on a free port with a fresh data dir (unless given).
 * @param {Record<string, unknown>} [options]
 */
export async function startControlPlane(options = {}) {
  const dataDir = options.dataDir ?? tempDir();
  const logs = [];
  const cp = await startServer({ port: 0, host: '127.0.0.1', dataDir, log: (l) => logs.push(l), ...options });
  return {
    ...cp,
    dataDir,
    logs,
    async stop({ keep = false } = {}) {
      await cp.close();
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A browser-like client: keeps cookies, fetches the CSRF token, signs in. */
export class Client {
  constructor(base) {
    this.base = base;
    /** @type {Map<string, string>} */
    this.cookies = new Map();
    this.csrf = '';
  }

  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method, path, { body, headers = {}, form } = {}) {
    const h = { ...headers };
    if (this.cookies.size > 0) h.cookie = this.cookieHeader();
    if (this.csrf && method !== 'GET' && h['x-csrf-token'] === undefined) h['x-csrf-token'] = this.csrf;
    let payload;
    if (form !== undefined) {
      h['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(form).toString();
    } else if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
    }
    const res = await fetch(this.base + path, { method, headers: h, body: payload, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, headers: res.headers, text, json };
  }

  async signIn(email, password) {
    const t = await this.request('GET', '/v1/auth/csrf');
    this.csrf = t.json.csrf_token;
    const r = await this.request('POST', '/v1/auth/login', { body: { email, password } });
    if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
    this.csrf = r.json.csrf_token;
    return r.json;
  }
}

/** One valid decision event of `workspaceId` (fields overridable). */
export function makeEvent(workspaceId, over = {}) {
  return {
    workspace_id: workspaceId,
    app_id: 'shop',
    sdk: '@shield/node',
    sdk_version: '0.1.0',
    decision: 'deny',
    vector: 'xss',
    rule: 'patterns.xss.script-tag',
    matched: '<script>alert(1)</script>',
    route: '/search',
    method: 'GET',
    ip_hash: randomBytes(32).toString('hex'),
    timestamp: new Date().toISOString(),
    action: 'blocked',
    ...over,
  };
}

/** A telemetry envelope around `events`. */
export function makeEnvelope(workspaceId, events, over = {}) {
  return {
    sdk: '@shield/node',
    sdk_version: '0.1.0',
    app_id: 'shop',
    workspace_id: workspaceId,
    instance_id: randomUUID(),
    kind: events.length === 0 ? 'heartbeat' : 'events',
    sent_at: new Date().toISOString(),
    dropped: 0,
    events,
    ...over,
  };
}

/** POST /v1/events with a key; `gzip` or `brotli` compresses. */
export async function postEvents(base, key, body, { gzip = false, brotli = false, headers = {} } = {}) {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers };
  if (gzip) h['content-encoding'] = 'gzip';
  if (brotli) h['content-encoding'] = 'br';
  const res = await fetch(`${base}/v1/events`, { method: 'POST', headers: h, body: gzip ? gzipSync(raw) : brotli ? brotliCompressSync(raw) : raw });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, json, text };
}

/**
 * A `shield login` token for `workspaceId`, obtained the way the CLI and a browser do it: ask
 * for a device code, approve it on /device with the signed-in `client`, exchange it.
 */
export async function deviceToken(base, client, workspaceId) {
  const start = await fetch(`${base}/v1/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
  const approved = await client.request('POST', '/device', { form: { _csrf: client.csrf, user_code: start.user_code, workspace_id: workspaceId, action: 'approve' } });
  if (approved.status !== 200) throw new Error(`approval failed: ${approved.status} ${approved.text}`);
  const tok = await fetch(`${base}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: start.device_code }),
  }).then((r) => r.json());
  if (tok.workspace_id !== workspaceId) throw new Error(`token for the wrong workspace: ${JSON.stringify(tok)}`);
  return tok.access_token;
}
