// The read and settings API the dashboard uses, under /v1/workspaces/:workspace. Every route
// checks the caller against that workspace first (principal.js); query parameters are checked
// one by one and a bad one is named.
import { Router } from 'express';
import { ApiError, badRequest, notFound, forbidden } from '../errors.js';
import { newApiKey, randomUUID } from '../auth/secrets.js';
import { hashPassword, newPassword } from '../auth/passwords.js';
import { DAY_MS, dayOf } from '../time.js';
import { normalizeRepositoryName } from '../findings/parse.js';
import { LastOwnerError, KEY_SCOPES } from '../store/store.js';
import { workspaceJson, keyJson, overviewJson, fleetJson, repositoryJson, uploadJson, findingJson, memberJson } from '../http/shapes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
// anchored, one optional group at a time: linear on any input (and inputs are capped at 40)
const TIME = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$/;
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
    queryOf(req, []);
    if (p.kind === 'key') throw forbidden('API keys may only send events and findings');
    if (p.kind === 'token') {
      await auth.requireWorkspace(req, p.workspaceId, 'read');
      return void res.json({ workspaces: [{ ...workspaceJson(await store.workspace(p.workspaceId)), role: 'member' }] });
    }
    const list = await store.workspacesOf(p.accountId);
    res.json({ workspaces: list.map(workspaceJson) });
  });

  router.post('/v1/workspaces', async (req, res) => {
    const p = await auth.requireSession(req);
    const body = objectBody(req);
    knownFields(body, ['name', 'retention_days']);
    const name = nameField(body, 'name');
    const retentionDays = retentionField(body, config.retentionDays);
    const ws = await store.createWorkspace({ id: randomUUID(), name, retentionDays, ownerAccountId: p.accountId });
    res.status(201).json({ ...workspaceJson(ws), role: 'owner' });
  });

  router.get('/v1/workspaces/:workspace', async (req, res) => {
    queryOf(req, []);
    res.json(workspaceJson(await workspaceOf(req, 'read')));
  });

  router.patch('/v1/workspaces/:workspace', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const body = objectBody(req);
    knownFields(body, ['name', 'retention_days']);
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
    res.json(overviewJson(await store.overview(ws.id, { from, to, app: stringParam(q.app, 'app', 128), limit })));
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
    queryOf(req, []);
    const now = Date.now();
    res.json({ instances: (await store.fleet(ws.id)).map((f) => fleetJson(f, now, config.fleetStaleS)) });
  });

  router.get('/v1/workspaces/:workspace/findings', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    const q = queryOf(req, ['repository', 'upload_id', 'kind', 'limit']);
    const raw = stringParam(q.repository, 'repository', 512);
    if (raw === undefined) {
      if (Object.keys(q).length > 0) throw badRequest('upload_id, kind and limit go with repository', Object.keys(q)[0]);
      return void res.json({ repositories: (await store.findingRepositories(ws.id)).map(repositoryJson) });
    }
    // the same spellings as uploads: https://github.com/acme/shop.git is github.com/acme/shop
    const repository = normalizeRepositoryName(raw);
    if (repository === null) throw badRequest('repository is not a repository name', 'repository');
    const uploadId = q.upload_id === undefined ? undefined : intParam(q.upload_id, 'upload_id', 1, Number.MAX_SAFE_INTEGER, 0);
    if (q.kind !== undefined && q.kind !== 'sca' && q.kind !== 'audit') throw badRequest('kind must be sca or audit', 'kind');
    const limit = intParam(q.limit, 'limit', 1, 5000, 1000);
    const found = await store.repositoryFindings(ws.id, repository, { uploadId, kind: q.kind, limit });
    if (found === undefined) throw notFound('no such upload for this repository');
    res.json({ repository: found.repository, upload: uploadJson(found.upload), findings: found.findings.map(findingJson) });
  });

  // ---- keys and members (owners) -------------------------------------------------------

  router.get('/v1/workspaces/:workspace/keys', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    queryOf(req, []);
    res.json({ keys: (await store.apiKeys(ws.id)).map(keyJson) });
  });

  router.post('/v1/workspaces/:workspace/keys', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const body = objectBody(req);
    knownFields(body, ['name', 'scopes']);
    const name = nameField(body, 'name');
    const scopes = scopesField(body);
    const fresh = newApiKey();
    const key = await store.createApiKey({ id: fresh.id, workspaceId: ws.id, name, prefix: fresh.prefix, hash: fresh.hash, scopes });
    res.status(201).json({ ...keyJson(key), key: fresh.key });
  });

  router.delete('/v1/workspaces/:workspace/keys/:key', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    if (!(await store.revokeApiKey(ws.id, String(req.params.key)))) throw notFound('no such active key in this workspace');
    res.status(204).end();
  });

  router.get('/v1/workspaces/:workspace/members', async (req, res) => {
    const ws = await workspaceOf(req, 'read');
    queryOf(req, []);
    res.json({ members: (await store.members(ws.id)).map(memberJson) });
  });

  router.post('/v1/workspaces/:workspace/members', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const body = objectBody(req);
    knownFields(body, ['email', 'role']);
    const email = emailField(body);
    const role = body.role ?? 'member';
    if (role !== 'owner' && role !== 'member') throw badRequest('role must be owner or member', 'role');
    let account = await store.accountByEmail(email);
    let password;
    if (account === undefined) {
      // Accounts are global: an owner who could create one (and learn its password) could
      // later read every workspace it is added to. Only administrators create accounts; the
      // generated password is shown to them once and the user changes it on first sign-in.
      const caller = await store.account(req.principal.accountId);
      if (!caller?.isAdmin) throw new ApiError(404, 'no_such_account', 'no account has this email; an administrator creates accounts', { field: 'email' });
      password = newPassword();
      account = await store.createAccount({ email, passwordHash: await hashPassword(password) });
    }
    await lastOwnerIs409(() => store.addMember(ws.id, account.id, role));
    res.status(201).json({ account_id: account.id, email: account.email, role, ...(password === undefined ? {} : { password }) });
  });

  router.delete('/v1/workspaces/:workspace/members/:account', async (req, res) => {
    const ws = await workspaceOf(req, 'admin');
    const accountId = intParam(req.params.account, 'account', 1, Number.MAX_SAFE_INTEGER, 0);
    const members = await store.members(ws.id);
    const target = members.find((m) => m.accountId === accountId);
    if (target === undefined) throw notFound('no such member');
    await lastOwnerIs409(() => store.removeMember(ws.id, accountId));
    res.status(204).end();
  });

  return router;
}


/** The store refuses (atomically) to leave a workspace ownerless; that is a 409 here. */
async function lastOwnerIs409(fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof LastOwnerError) throw new ApiError(409, 'last_owner', 'a workspace keeps at least one owner: add another owner first');
    throw err;
  }
}

/** Refuses fields the route does not know, rather than silently ignoring them. */
function knownFields(body, known) {
  for (const k of Object.keys(body)) {
    if (!known.includes(k)) throw badRequest(`unknown field "${k.slice(0, 40)}" (known: ${known.join(', ')})`, k.slice(0, 40));
  }
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
  const t = typeof v === 'string' && DAY.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  // round trip: 2024-02-30 parses (as March 1) but is no day
  if (!Number.isFinite(t) || dayOf(t) !== v) throw badRequest(`${field} must be a UTC day, YYYY-MM-DD`, field);
  return v;
}

function timeParam(v, field) {
  const t = typeof v === 'string' && v.length <= 40 && TIME.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw badRequest(`${field} must be an ISO 8601 date-time with Z or an offset, e.g. 2026-01-31T12:00:00Z`, field);
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

/** `scopes`: a non-empty subset of events and findings (default both), kept in canonical order. */
function scopesField(body) {
  const v = body.scopes;
  if (v === undefined) return [...KEY_SCOPES];
  if (!Array.isArray(v) || v.length === 0 || v.length > KEY_SCOPES.length || v.some((x) => !KEY_SCOPES.includes(x)) || new Set(v).size !== v.length) {
    throw badRequest(`scopes must be a non-empty list of distinct values from: ${KEY_SCOPES.join(', ')}`, 'scopes');
  }
  return KEY_SCOPES.filter((x) => v.includes(x));
}

function emailField(body) {
  const v = body.email;
  // One @, something on each side, no spaces: deliverability is the owner's business.
  if (typeof v !== 'string' || v.length > 320 || v.indexOf('@') < 1 || v.indexOf('@') !== v.lastIndexOf('@') || v.endsWith('@') || /\s/.test(v)) throw badRequest('email must be an email address', 'email');
  return v;
}

