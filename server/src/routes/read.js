// The read and settings API the dashboard uses, under /v1/workspaces/:workspace. Every route
// checks the caller against that workspace first (principal.js); query parameters are checked
// one by one and a bad one is named.
import { Router } from 'express';
import { ApiError, badRequest, notFound } from '../errors.js';
import { newApiKey, randomUUID } from '../auth/secrets.js';
import { hashPassword, newPassword, PASSWORD_LIMITS } from '../auth/passwords.js';
import { dayOf } from '../store/sqlite/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const DAY_MS = 86_400_000;
const FILTERS = ['decision', 'vector', 'rule', 'route', 'method', 'ip_hash', 'app'];

/** @param {{ store: any, auth: any, config: any }} ctx */
export function readRoutes({ store, auth, config }) {
  const router = Router();

  /** The :workspace parameter, checked for `need`; 404 for what cannot be a workspace id. */
  async function workspaceOf(req, need) {
    const id = String(req.params.workspace).toLowerCase();
    if (!UUID.test(id)) throw notFound('no such workspace');
    await auth.requireWorkspace(req, id, need);
    const ws = await store.workspace(id);
    if (ws === undefined) throw notFound('no such workspace');
    return ws;
  }

  router.get('/v1/workspaces', async (req, res) => {
    const p = await auth.requirePrincipal(req);
    if (p.kind === 'key') throw new ApiError(403, 'forbidden', 'API keys may only send events and findings');
    if (p.kind === 'token') return void res.json({ workspaces: [{ ...workspaceJson(await store.workspace(p.workspaceId)), role: 'member' }] });
    const list = await store.workspacesOf(p.accountId);
    res.json({ workspaces: list.map((w) => ({ ...workspaceJson(w), role: w.role })) });
  });

  router.post('/v1/workspaces', async (req, res) => {
    const p = await auth.requireSession(req);
    const name = nameField(req.body, 'name');
    const retentionDays = retentionField(req.body, config.retentionDays);
    const ws = await store.createWorkspace({ id: randomUUID(), name, retentionDays, ownerAccountId: p.accountId });
    res.status(201).json({ ...workspaceJson(ws), role: 'owner' });
  });

  router.get('/v1/workspaces/:workspace', async (req, res) => {
    res.json(workspaceJson(await workspaceOf(req, 'read')));
  });

  router.patch('/v1/workspaces/:workspace', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const body = objectBody(req);
    for (const k of Object.keys(body)) if (k !== 'name' && k !== 'retention_days') throw badRequest(`unknown field "${k}" (use name or retention_days)`, k);
    const name = body.name === undefined ? undefined : nameField(body, 'name');
    const retentionDays = body.retention_days === undefined ? undefined : retentionField(body, ws.retentionDays);
    res.json(workspaceJson(await store.updateWorkspace(ws.id, { name, retentionDays })));
  });

  router.get('/v1/workspaces/:workspace/overview', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    const q = queryOf(req, ['from', 'to', 'app', 'limit']);
    const to = q.to === undefined ? dayOf(Date.now()) : dayParam(q.to, 'to');
    const from = q.from === undefined ? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS) : dayParam(q.from, 'from');
    if (from > to) throw badRequest('from must not be after to', 'from');
    const limit = intParam(q.limit, 'limit', 1, 100, 10);
    res.json(await store.overview(ws.id, { from, to, app: stringParam(q.app, 'app', 128), limit }));
  });

  router.get('/v1/workspaces/:workspace/events', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    const q = queryOf(req, ['from', 'to', 'limit', 'cursor', ...FILTERS]);
    /** @type {Record<string, unknown>} */
    const query = { limit: intParam(q.limit, 'limit', 1, 500, 50) };
    if (q.from !== undefined) query.from = timeParam(q.from, 'from');
    if (q.to !== undefined) query.to = timeParam(q.to, 'to');
    if (q.decision !== undefined && q.decision !== 'allow' && q.decision !== 'deny') throw badRequest('decision must be allow or deny', 'decision');
    for (const f of FILTERS) {
      const v = stringParam(q[f], f, f === 'route' ? 2048 : 128);
      if (v !== undefined) query[f] = v;
    }
    if (q.cursor !== undefined) query.cursor = cursorParam(q.cursor);
    const page = await store.events(ws.id, query);
    res.json({ events: page.events, next_cursor: page.next === null ? null : Buffer.from(`${page.next.ts}.${page.next.id}`).toString('base64url') });
  });

  router.get('/v1/workspaces/:workspace/fleet', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    const now = Date.now();
    const instances = (await store.fleet(ws.id)).map((f) => ({
      instance_id: f.instanceId, app_id: f.appId, sdk: f.sdk, sdk_version: f.sdkVersion,
      first_seen: iso(f.firstSeen), last_seen: iso(f.lastSeen), last_event_at: f.lastEventAt ? iso(f.lastEventAt) : null,
      events: f.events, dropped: f.dropped, status: now - f.lastSeen <= config.fleetStaleS * 1000 ? 'active' : 'stale',
    }));
    res.json({ instances });
  });

  router.get('/v1/workspaces/:workspace/findings', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    const repository = stringParam(req.query.repository, 'repository', 512);
    if (repository === undefined) return void res.json({ repositories: await store.findingRepositories(ws.id) });
    const uploadId = req.query.upload_id === undefined ? undefined : intParam(req.query.upload_id, 'upload_id', 1, Number.MAX_SAFE_INTEGER, 0);
    const limit = intParam(req.query.limit, 'limit', 1, 5000, 1000);
    const found = await store.repositoryFindings(ws.id, repository, { uploadId, limit });
    if (found === undefined) throw notFound('no uploads for this repository');
    res.json(found);
  });

  // ---- keys and members (owners) -------------------------------------------------------

  router.get('/v1/workspaces/:workspace/keys', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    res.json({ keys: (await store.apiKeys(ws.id)).map(keyJson) });
  });

  router.post('/v1/workspaces/:workspace/keys', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const name = nameField(objectBody(req), 'name');
    const fresh = newApiKey();
    const key = await store.createApiKey({ id: fresh.id, workspaceId: ws.id, name, prefix: fresh.prefix, hash: fresh.hash });
    res.status(201).json({ ...keyJson(key), key: fresh.key });
  });

  router.delete('/v1/workspaces/:workspace/keys/:key', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    if (!(await store.revokeApiKey(ws.id, String(req.params.key)))) throw notFound('no such active key in this workspace');
    res.status(204).end();
  });

  router.get('/v1/workspaces/:workspace/members', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    res.json({ members: (await store.members(ws.id)).map((m) => ({ account_id: m.accountId, email: m.email, role: m.role, created_at: iso(m.createdAt) })) });
  });

  router.post('/v1/workspaces/:workspace/members', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const body = objectBody(req);
    const email = emailField(body);
    const role = body.role ?? 'member';
    if (role !== 'owner' && role !== 'member') throw badRequest('role must be owner or member', 'role');
    let account = await store.accountByEmail(email);
    let password;
    if (account === undefined) {
      // A new account gets a generated password, shown once to the owner who added it.
      password = newPassword();
      account = await store.createAccount({ email, passwordHash: await hashPassword(password) });
    }
    await store.addMember(ws.id, account.id, role);
    res.status(201).json({ account_id: account.id, email: account.email, role, ...(password === undefined ? {} : { password }) });
  });

  router.delete('/v1/workspaces/:workspace/members/:account', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const accountId = intParam(req.params.account, 'account', 1, Number.MAX_SAFE_INTEGER, 0);
    const members = await store.members(ws.id);
    const target = members.find((m) => m.accountId === accountId);
    if (target === undefined) throw notFound('no such member');
    if (target.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1) throw new ApiError(409, 'last_owner', 'a workspace keeps at least one owner');
    await store.removeMember(ws.id, accountId);
    res.status(204).end();
  });

  return router;
}

const iso = (ms) => new Date(ms).toISOString();

function workspaceJson(w) {
  return { id: w.id, name: w.name, retention_days: w.retentionDays, created_at: iso(w.createdAt) };
}

function keyJson(k) {
  return { id: k.id, name: k.name, prefix: k.prefix, created_at: iso(k.createdAt), last_used_at: k.lastUsedAt ? iso(k.lastUsedAt) : null, revoked_at: k.revokedAt ? iso(k.revokedAt) : null };
}

function objectBody(req) {
  const b = req.body;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw badRequest('body must be a JSON object', 'body');
  return b;
}

/** Query parameters, each given once; unknown ones are an error rather than silently ignored. */
function queryOf(req, known) {
  const q = req.query;
  for (const k of Object.keys(q)) {
    if (!known.includes(k)) throw badRequest(`unknown query parameter "${k.slice(0, 40)}" (known: ${known.join(', ')})`, k.slice(0, 40));
    if (typeof q[k] !== 'string') throw badRequest(`query parameter "${k}" must be given once, as a plain value`, k);
  }
  return q;
}

function stringParam(v, field, max) {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw badRequest(`${field} must be a non-empty string of at most ${max} characters`, field);
  return v;
}

function intParam(v, field, min, max, fallback) {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^[0-9]{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw badRequest(`${field} must be an integer from ${min} to ${max}`, field);
  return n;
}

function dayParam(v, field) {
  if (typeof v !== 'string' || !DAY.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) throw badRequest(`${field} must be a UTC day, YYYY-MM-DD`, field);
  return v;
}

function timeParam(v, field) {
  const t = typeof v === 'string' && v.length <= 40 ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw badRequest(`${field} must be an ISO 8601 date-time`, field);
  return t;
}

function cursorParam(v) {
  const text = typeof v === 'string' && v.length <= 64 ? Buffer.from(v, 'base64url').toString() : '';
  const dot = text.indexOf('.');
  const ts = Number(text.slice(0, dot));
  const id = Number(text.slice(dot + 1));
  if (dot <= 0 || !Number.isSafeInteger(ts) || !Number.isSafeInteger(id)) throw badRequest('cursor is not one this API returned', 'cursor');
  return { ts, id };
}

function nameField(body, field) {
  const v = body?.[field];
  if (typeof v !== 'string' || v.trim().length === 0 || v.length > 100) throw badRequest(`${field} must be a non-empty string of at most 100 characters`, field);
  return v.trim();
}

function retentionField(body, fallback) {
  const v = body?.retention_days;
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 1 || v > 3650) throw badRequest('retention_days must be an integer from 1 to 3650', 'retention_days');
  return v;
}

function emailField(body) {
  const v = body.email;
  // One @, something on each side, no spaces: deliverability is the owner's business.
  if (typeof v !== 'string' || v.length > 320 || v.indexOf('@') < 1 || v.indexOf('@') !== v.lastIndexOf('@') || v.endsWith('@') || /\s/.test(v)) throw badRequest('email must be an email address', 'email');
  return v;
}

export { PASSWORD_LIMITS };
