// The default store: one sqlite file (WAL) under the data directory. Event batches are written
// by the writer thread's own connection (writer-thread.js) or, without it, through a queue on
// this process's write connection; other writes take that connection's transaction queue; two
// read-only connections serve the read API so a long query never waits behind ingest (WAL
// readers see the last committed state).
import { mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { Db, connectionPragmas } from './driver.js';
import { DAY_MS, dayOf } from '../../time.js';
import { CORE_SCHEMA } from './schema.js';
import { FINDINGS_SCHEMA, ingestFindings, findingRepositories, repositoryFindings, deleteUploadsBefore } from './findings.js';
import { LastOwnerError, KEY_SCOPES } from '../store.js';
import { GroupCommitter, prepareBatch } from './ingest.js';
import { WriterThread } from './writer-thread.js';

// Rows per past day and app the route and address rollups keep (see compactRollups).
export const TOP_KEEP = 500;
// Fleet instances one read returns, most recently seen first.
export const FLEET_LIMIT = 1000;
const COMPACTED = [
  { table: 'rollup_ip', key: 'ip_hash', order: 'denied DESC, ip_hash' },
  { table: 'rollup_route', key: 'route, method', order: 'denied DESC, n DESC, route, method' },
];


/**
 * Opens (creating when missing) the store in `dataDir/shield.db`.
 * writerThread: event batches are written by a worker thread with its own connection, so
 * their statements never wait behind the HTTP thread's work.
 * @param {{ dataDir: string, synchronous?: 'FULL' | 'NORMAL', writerThread?: boolean }} options
 */
export async function openSqliteStore(options) {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = join(options.dataDir, 'shield.db');
  const db = await Db.open(file);
  // events and account data: owner-only, whatever the umask (sqlite gives -wal and -shm the same mode)
  chmodSync(file, 0o600);
  // 8 KB pages: fewer page splits and WAL frames per event than the 4 KB default (measured ~9%).
  // Takes effect only when the file is new.
  await db.exec('PRAGMA page_size = 8192;');
  // FULL: a commit is on disk before ingest answers 202, so even a power cut loses nothing acknowledged.
  await db.exec(connectionPragmas(options.synchronous ?? 'FULL'));
  await db.exec(CORE_SCHEMA + FINDINGS_SCHEMA);
  // two readers: the overview's two big aggregates run side by side, one per core
  const readers = [];
  for (let i = 0; i < 2; i++) {
    const r = await Db.open(file, { readonly: true });
    await r.exec('PRAGMA busy_timeout = 5000;');
    readers.push(r);
  }
  const store = new SqliteStore(db, readers, file);
  if (options.writerThread) store.writer = await WriterThread.start({ file, synchronous: options.synchronous ?? 'FULL' });
  return store;
}

export class SqliteStore {
  /** @param {Db} db @param {Db[]} readers @param {string} file */
  constructor(db, readers, file) {
    this.db = db;
    this.readers = readers;
    this.reader = readers[0];
    this.file = file;
    /** @type {Map<string, number>} workspace UUID -> integer key */
    this.wsKeys = new Map();
    /** @type {GroupCommitter | WriterThread} */
    this.writer = new GroupCommitter(db);
    /** @type {Set<Promise<unknown>>} ingests under way, which close() lets finish */
    this.inflight = new Set();
    this.closing = false;
  }

  async close() {
    this.closing = true;
    await Promise.allSettled([...this.inflight]);
    await this.writer.close();
    await this.db.close();
    for (const r of this.readers) await r.close();
  }

  /** @param {string} workspaceId @returns {Promise<number | undefined>} */
  async wsKey(workspaceId) {
    const cached = this.wsKeys.get(workspaceId);
    if (cached !== undefined) return cached;
    const row = await this.db.get('SELECT ws FROM workspaces WHERE id = ?', [workspaceId]);
    if (row === undefined) return undefined;
    this.wsKeys.set(workspaceId, row.ws);
    return row.ws;
  }

  /** @param {string} workspaceId */
  async mustWsKey(workspaceId) {
    const ws = await this.wsKey(workspaceId);
    if (ws === undefined) throw new Error(`unknown workspace ${workspaceId}`);
    return ws;
  }

  // ---- accounts ------------------------------------------------------------------------

  async createAccount({ email, passwordHash, isAdmin = false }) {
    const createdAt = Date.now();
    const { lastID } = await this.db.transaction((db) => db.run('INSERT INTO accounts (email, password_hash, is_admin, created_at) VALUES (?, ?, ?, ?)', [email, passwordHash, isAdmin ? 1 : 0, createdAt]));
    return { id: lastID, email, passwordHash, isAdmin, createdAt };
  }

  /**
   * A new password hash; every session of the account but `keepSessionHash` and every access
   * token of it end, so a changed password locks out whoever knew the old one.
   */
  async setPassword(accountId, passwordHash, { keepSessionHash = null } = {}) {
    return this.db.transaction(async (db) => {
      const { changes } = await db.run('UPDATE accounts SET password_hash = ? WHERE id = ?', [passwordHash, accountId]);
      await db.run('DELETE FROM sessions WHERE account_id = ? AND hash IS NOT ?', [accountId, keepSessionHash]);
      await db.run('DELETE FROM access_tokens WHERE account_id = ?', [accountId]);
      // and logins it approved that were not exchanged yet
      await db.run("UPDATE device_codes SET status = 'denied' WHERE account_id = ? AND status = 'approved'", [accountId]);
      return changes > 0;
    });
  }

  async accountByEmail(email) {
    return accountRow(await this.db.get('SELECT * FROM accounts WHERE email = ?', [email]));
  }

  async account(id) {
    return accountRow(await this.db.get('SELECT * FROM accounts WHERE id = ?', [id]));
  }

  // ---- workspaces and members ----------------------------------------------------------

  async createWorkspace({ id, name, retentionDays, ownerAccountId }) {
    const createdAt = Date.now();
    await this.db.transaction(async (db) => {
      const { lastID } = await db.run('INSERT INTO workspaces (id, name, retention_days, created_at) VALUES (?, ?, ?, ?)', [id, name, retentionDays, createdAt]);
      if (ownerAccountId !== undefined) await db.run("INSERT INTO members (ws, account_id, role, created_at) VALUES (?, ?, 'owner', ?)", [lastID, ownerAccountId, createdAt]);
    });
    return { id, name, retentionDays, createdAt };
  }

  async workspace(id) {
    return workspaceRow(await this.db.get('SELECT * FROM workspaces WHERE id = ?', [id]));
  }

  async workspacesOf(accountId) {
    const rows = await this.db.all('SELECT w.*, m.role FROM workspaces w JOIN members m ON m.ws = w.ws WHERE m.account_id = ? ORDER BY w.created_at, w.ws', [accountId]);
    return rows.map((r) => ({ ...workspaceRow(r), role: r.role }));
  }

  async updateWorkspace(id, { name, retentionDays }) {
    const { changes } = await this.db.transaction((db) => db.run(
      'UPDATE workspaces SET name = coalesce(?, name), retention_days = coalesce(?, retention_days) WHERE id = ?',
      [name ?? null, retentionDays ?? null, id],
    ));
    return changes > 0 ? this.workspace(id) : undefined;
  }

  async isEmpty() {
    const row = await this.db.get('SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM workspaces) AS n');
    return row.n === 0;
  }

  async members(workspaceId) {
    const rows = await this.db.all(
      'SELECT a.id, a.email, m.role, m.created_at FROM members m JOIN accounts a ON a.id = m.account_id JOIN workspaces w ON w.ws = m.ws WHERE w.id = ? ORDER BY m.created_at, a.id',
      [workspaceId],
    );
    return rows.map((r) => ({ accountId: r.id, email: r.email, role: r.role, createdAt: r.created_at }));
  }

  async role(workspaceId, accountId) {
    const row = await this.db.get('SELECT m.role FROM members m JOIN workspaces w ON w.ws = m.ws WHERE w.id = ? AND m.account_id = ?', [workspaceId, accountId]);
    return row === undefined ? null : row.role;
  }

  /** Adds a member or sets its role; throws LastOwnerError rather than demote the only owner. */
  async addMember(workspaceId, accountId, role) {
    const ws = await this.mustWsKey(workspaceId);
    await this.db.transaction(async (db) => {
      // checked inside the write transaction, so two demotions at once cannot both pass
      if (role !== 'owner') await refuseLastOwner(db, ws, accountId);
      await db.run(
        'INSERT INTO members (ws, account_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (ws, account_id) DO UPDATE SET role = excluded.role',
        [ws, accountId, role, Date.now()],
      );
    });
  }

  /** Removes a member and its access tokens for the workspace; throws LastOwnerError for the only owner. */
  async removeMember(workspaceId, accountId) {
    const ws = await this.mustWsKey(workspaceId);
    const { changes } = await this.db.transaction(async (db) => {
      await refuseLastOwner(db, ws, accountId);
      await db.run('DELETE FROM access_tokens WHERE ws = ? AND account_id = ?', [ws, accountId]);
      await db.run("UPDATE device_codes SET status = 'denied' WHERE ws = ? AND account_id = ? AND status = 'approved'", [ws, accountId]);
      return db.run('DELETE FROM members WHERE ws = ? AND account_id = ?', [ws, accountId]);
    });
    return changes > 0;
  }

  // ---- API keys ------------------------------------------------------------------------

  async createApiKey({ id, workspaceId, name, prefix, hash, scopes = KEY_SCOPES }) {
    const ws = await this.mustWsKey(workspaceId);
    const createdAt = Date.now();
    await this.db.transaction((db) => db.run('INSERT INTO api_keys (id, ws, name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [id, ws, name, prefix, hash, scopes.join(','), createdAt]));
    return { id, workspaceId, name, prefix, scopes: [...scopes], createdAt, lastUsedAt: null, revokedAt: null };
  }

  async apiKeys(workspaceId) {
    const rows = await this.db.all('SELECT k.*, w.id AS workspace_id FROM api_keys k JOIN workspaces w ON w.ws = k.ws WHERE w.id = ? ORDER BY k.created_at, k.id', [workspaceId]);
    return rows.map(apiKeyRow);
  }

  async apiKeyByHash(hash) {
    const row = await this.db.get('SELECT k.*, w.id AS workspace_id FROM api_keys k JOIN workspaces w ON w.ws = k.ws WHERE k.hash = ?', [hash]);
    return row === undefined ? undefined : apiKeyRow(row);
  }

  async revokeApiKey(workspaceId, id) {
    const ws = await this.wsKey(workspaceId);
    if (ws === undefined) return false;
    const { changes } = await this.db.transaction((db) => db.run('UPDATE api_keys SET revoked_at = ? WHERE ws = ? AND id = ? AND revoked_at IS NULL', [Date.now(), ws, id]));
    return changes > 0;
  }

  /** @param {Map<string, number>} lastUsed key id -> time */
  async touchApiKeys(lastUsed) {
    if (lastUsed.size === 0) return;
    const rows = JSON.stringify([...lastUsed]);
    await this.db.transaction((db) => db.run(
      'UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), t.value ->> 1) FROM json_each(?) AS t WHERE api_keys.id = t.value ->> 0',
      [rows],
    ));
  }

  // ---- sessions, device codes, access tokens -------------------------------------------

  async createSession({ hash, accountId, expiresAt }) {
    await this.db.transaction((db) => db.run('INSERT INTO sessions (hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [hash, accountId, Date.now(), expiresAt]));
  }

  async session(hash) {
    const row = await this.db.get('SELECT account_id, expires_at FROM sessions WHERE hash = ?', [hash]);
    return row === undefined ? undefined : { accountId: row.account_id, expiresAt: row.expires_at };
  }

  async deleteSession(hash) {
    await this.db.transaction((db) => db.run('DELETE FROM sessions WHERE hash = ?', [hash]));
  }

  async createDeviceCode({ hash, userCode, intervalS, expiresAt }) {
    await this.db.transaction((db) => db.run(
      "INSERT INTO device_codes (hash, user_code, status, interval_s, created_at, expires_at) VALUES (?, ?, 'pending', ?, ?, ?)",
      [hash, userCode, intervalS, Date.now(), expiresAt],
    ));
  }

  /** Codes still waiting for approval (pending and unexpired). */
  async pendingDeviceCodes(now) {
    return (await this.db.get("SELECT count(*) AS n FROM device_codes WHERE status = 'pending' AND expires_at > ?", [now])).n;
  }

  async deviceCodeByHash(hash) {
    return deviceRow(await this.db.get('SELECT d.*, w.id AS workspace_id FROM device_codes d LEFT JOIN workspaces w ON w.ws = d.ws WHERE d.hash = ?', [hash]));
  }

  async deviceCodeByUserCode(userCode) {
    return deviceRow(await this.db.get('SELECT d.*, w.id AS workspace_id FROM device_codes d LEFT JOIN workspaces w ON w.ws = d.ws WHERE d.user_code = ?', [userCode]));
  }

  /** Approves or denies a pending, unexpired code; false when it is not pending any more. */
  async decideDeviceCode(userCode, { status, accountId, workspaceId }) {
    const ws = workspaceId === null ? null : await this.wsKey(workspaceId);
    if (ws === undefined) return false;
    const { changes } = await this.db.transaction((db) => db.run(
      "UPDATE device_codes SET status = ?, account_id = ?, ws = ? WHERE user_code = ? AND status = 'pending' AND expires_at > ?",
      [status, accountId, ws, userCode, Date.now()],
    ));
    return changes > 0;
  }

  async pollDeviceCode(hash, at, intervalS) {
    await this.db.transaction((db) => db.run('UPDATE device_codes SET last_poll_at = ?, interval_s = coalesce(?, interval_s) WHERE hash = ?', [at, intervalS ?? null, hash]));
  }

  /** Marks an approved code used; true only for the one caller that did it. */
  async useDeviceCode(hash) {
    const { changes } = await this.db.transaction((db) => db.run("UPDATE device_codes SET status = 'used' WHERE hash = ? AND status = 'approved'", [hash]));
    return changes > 0;
  }

  async createAccessToken({ hash, accountId, workspaceId, expiresAt }) {
    const ws = await this.mustWsKey(workspaceId);
    await this.db.transaction((db) => db.run('INSERT INTO access_tokens (hash, account_id, ws, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [hash, accountId, ws, Date.now(), expiresAt]));
  }

  async accessToken(hash) {
    const row = await this.db.get('SELECT t.account_id, t.expires_at, w.id AS workspace_id FROM access_tokens t JOIN workspaces w ON w.ws = t.ws WHERE t.hash = ?', [hash]);
    return row === undefined ? undefined : { accountId: row.account_id, workspaceId: row.workspace_id, expiresAt: row.expires_at };
  }

  // ---- ingest --------------------------------------------------------------------------

  /**
   * Stores one batch atomically (see ingest.js): settles after its commit; concurrent batches
   * share a commit. With writerThread, the writing happens on a worker thread.
   * @param {import('../store.js').IngestBatch} batch
   * @returns {Promise<import('../store.js').IngestResult>}
   */
  ingestEvents(batch) {
    return this.track(async () => this.writer.submit(prepareBatch(await this.mustWsKey(batch.workspaceId), batch)));
  }

  /** Runs an operation close() must wait for; refused once closing started. @template T @param {() => Promise<T>} fn */
  track(fn) {
    if (this.closing) return Promise.reject(new Error('the store is closed'));
    const p = fn();
    this.inflight.add(p);
    p.then(() => this.inflight.delete(p), () => this.inflight.delete(p));
    return p;
  }

  // ---- read ----------------------------------------------------------------------------

  /** @param {string} workspaceId @param {import('../store.js').OverviewQuery} q */
  async overview(workspaceId, q) {
    const ws = await this.wsKey(workspaceId);
    const limit = q.limit ?? 10;
    const empty = { from: q.from, to: q.to, totals: { allow: 0, deny: 0 }, perDay: [], topVectors: [], topCategories: [], topRoutes: [], topOffenders: [] };
    if (ws === undefined) return empty;
    const app = q.app ?? null;
    const base = [ws, q.from, q.to, app];
    const where = 'ws = ?1 AND day BETWEEN ?2 AND ?3 AND (?4 IS NULL OR app_id = ?4)';
    const [r, r2] = this.readers;
    const [days, vectors, rules, routes, ips] = await Promise.all([
      r.all(`SELECT day, sum(CASE WHEN decision = 'allow' THEN n ELSE 0 END) AS allow, sum(CASE WHEN decision = 'deny' THEN n ELSE 0 END) AS deny FROM rollup_day WHERE ${where} GROUP BY day ORDER BY day`, base),
      r.all(`SELECT vector, sum(n) AS n FROM rollup_day WHERE ${where} AND decision = 'deny' GROUP BY vector ORDER BY n DESC, vector LIMIT ?5`, [...base, limit]),
      r.all(`SELECT rule, vector, sum(n) AS n FROM rollup_day WHERE ${where} AND decision = 'deny' GROUP BY rule, vector ORDER BY n DESC, rule LIMIT ?5`, [...base, limit]),
      r2.all(`SELECT route, method, sum(n) AS n, sum(denied) AS denied FROM rollup_route WHERE ${where} GROUP BY route, method ORDER BY denied DESC, n DESC, route LIMIT ?5`, [...base, limit]),
      r.all(`SELECT lower(hex(ip_hash)) AS ip_hash, sum(denied) AS denied FROM rollup_ip WHERE ${where} GROUP BY rollup_ip.ip_hash ORDER BY denied DESC, rollup_ip.ip_hash LIMIT ?5`, [...base, limit]),
    ]);
    const totals = { allow: 0, deny: 0 };
    for (const d of days) { totals.allow += d.allow; totals.deny += d.deny; }
    return {
      from: q.from,
      to: q.to,
      totals,
      perDay: days.map((d) => ({ day: d.day, allow: d.allow, deny: d.deny })),
      topVectors: vectors.map((v) => ({ vector: v.vector, denied: v.n })),
      topCategories: rules.map((v) => ({ rule: v.rule, vector: v.vector, denied: v.n })),
      topRoutes: routes.map((v) => ({ route: v.route, method: v.method, requests: v.n, denied: v.denied })),
      topOffenders: ips.map((v) => ({ ip_hash: v.ip_hash, denied: v.denied })),
    };
  }

  /** @param {string} workspaceId @param {import('../store.js').EventQuery} q */
  async events(workspaceId, q) {
    const ws = await this.wsKey(workspaceId);
    if (ws === undefined) return { events: [], next: null };
    const conds = ['e.ws = ?'];
    /** @type {unknown[]} */ const params = [ws];
    if (q.from !== undefined) { conds.push('e.ts >= ?'); params.push(q.from); }
    if (q.to !== undefined) { conds.push('e.ts < ?'); params.push(q.to); }
    for (const [field, column] of EVENT_FILTERS) {
      const v = q[field];
      if (v === undefined) continue;
      // addresses are stored as 32 bytes, not 64 hex characters
      conds.push(column === 'ip_hash' ? 'e.ip_hash = unhex(?)' : `e.${column} = ?`);
      params.push(v);
    }
    if (q.cursor !== undefined) { conds.push('(e.ts, e.id) < (?, ?)'); params.push(q.cursor.ts, q.cursor.id); }
    params.push(q.limit + 1);
    const rows = await this.reader.all(
      `SELECT e.*, lower(hex(e.ip_hash)) AS ip_hex FROM events e WHERE ${conds.join(' AND ')} ORDER BY e.ts DESC, e.id DESC LIMIT ?`,
      params,
    );
    const more = rows.length > q.limit;
    if (more) rows.length = q.limit;
    const last = rows[rows.length - 1];
    return { events: rows.map((r) => eventRow(r, workspaceId)), next: more ? { ts: last.ts, id: last.id } : null };
  }

  async fleet(workspaceId) {
    const ws = await this.wsKey(workspaceId);
    if (ws === undefined) return [];
    const rows = await this.reader.all('SELECT * FROM fleet WHERE ws = ? ORDER BY last_seen DESC, instance_id LIMIT ?', [ws, FLEET_LIMIT]);
    return rows.map((r) => ({
      instanceId: r.instance_id, appId: r.app_id, sdk: r.sdk, sdkVersion: r.sdk_version, firstSeen: r.first_seen,
      lastSeen: r.last_seen, lastEventAt: r.last_event_at, events: r.events, dropped: r.dropped,
    }));
  }

  async countEvents(workspaceId) {
    const ws = await this.wsKey(workspaceId);
    if (ws === undefined) return 0;
    return (await this.reader.get('SELECT count(*) AS n FROM events WHERE ws = ?', [ws])).n;
  }

  // ---- findings ------------------------------------------------------------------------

  ingestFindings(workspaceId, upload) {
    return this.track(async () => ingestFindings(this.db, await this.mustWsKey(workspaceId), upload, Date.now()));
  }

  async findingRepositories(workspaceId) {
    const ws = await this.wsKey(workspaceId);
    return ws === undefined ? [] : findingRepositories(this.reader, ws);
  }

  async repositoryFindings(workspaceId, repository, options = {}) {
    const ws = await this.wsKey(workspaceId);
    return ws === undefined ? undefined : repositoryFindings(this.reader, ws, repository, options);
  }

  // ---- retention -----------------------------------------------------------------------

  /**
   * Deletes what is older than each workspace's retention, in slices so ingest is never held
   * up for long; expired sessions, device codes, tokens and old idempotency keys go too.
   */
  async applyRetention(now = Date.now()) {
    const workspaces = await this.db.all('SELECT ws, retention_days FROM workspaces');
    let events = 0;
    let uploads = 0;
    let compacted = 0;
    for (const w of workspaces) {
      const cutoff = now - w.retention_days * DAY_MS;
      const cutoffDay = dayOf(cutoff);
      for (;;) {
        const { changes } = await this.db.transaction((db) => db.run('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE ws = ? AND ts < ? LIMIT 5000)', [w.ws, cutoff]));
        events += changes;
        if (changes < 5000) break;
      }
      await this.db.transaction(async (db) => {
        for (const t of ['rollup_day', 'rollup_route', 'rollup_ip']) await db.run(`DELETE FROM ${t} WHERE ws = ? AND day < ?`, [w.ws, cutoffDay]);
      });
      uploads += await deleteUploadsBefore(this.db, w.ws, cutoff);
      // instances unseen for as long as events are kept are gone (processes come and go)
      await this.db.transaction((db) => db.run('DELETE FROM fleet WHERE ws = ? AND last_seen < ?', [w.ws, cutoff]));
      compacted += await this.compactRollups(w.ws, dayOf(now));
    }
    await this.db.transaction(async (db) => {
      await db.run('DELETE FROM sessions WHERE expires_at <= ?', [now]);
      await db.run('DELETE FROM access_tokens WHERE expires_at <= ?', [now]);
      await db.run('DELETE FROM device_codes WHERE expires_at <= ?', [now]);
      await db.run('DELETE FROM idempotency WHERE created_at <= ?', [now - DAY_MS]);
    });
    return { events, uploads, compacted };
  }

  /**
   * Past days keep only their TOP_KEEP largest route and address rows per app, so the
   * overview's top lists over 30 days sum thousands of rows, not millions. Today stays whole;
   * rows of late events for a past day are added, then trimmed again at the next sweep.
   * @param {number} ws @param {string} today @returns {Promise<number>} rows removed
   */
  async compactRollups(ws, today) {
    let removed = 0;
    for (const t of COMPACTED) {
      const groups = await this.db.all(`SELECT day, app_id FROM ${t.table} WHERE ws = ? AND day < ? GROUP BY day, app_id HAVING count(*) > ?`, [ws, today, TOP_KEEP]);
      for (const g of groups) {
        const { changes } = await this.db.transaction((db) => db.run(
          `DELETE FROM ${t.table} WHERE ws = ?1 AND day = ?2 AND app_id = ?3 AND (${t.key}) NOT IN
           (SELECT ${t.key} FROM ${t.table} WHERE ws = ?1 AND day = ?2 AND app_id = ?3 ORDER BY ${t.order} LIMIT ?4)`,
          [ws, g.day, g.app_id, TOP_KEEP],
        ));
        removed += changes;
      }
    }
    return removed;
  }
}

const EVENT_FILTERS = [
  ['decision', 'decision'], ['vector', 'vector'], ['rule', 'rule'], ['route', 'route'], ['method', 'method'], ['ip_hash', 'ip_hash'], ['app', 'app_id'],
];


/** Throws LastOwnerError when `accountId` is the workspace's only owner. */
async function refuseLastOwner(db, ws, accountId) {
  const row = await db.get(
    "SELECT (SELECT role FROM members WHERE ws = ?1 AND account_id = ?2) AS role, (SELECT count(*) FROM members WHERE ws = ?1 AND role = 'owner') AS owners",
    [ws, accountId],
  );
  if (row.role === 'owner' && row.owners === 1) throw new LastOwnerError();
}

function accountRow(r) {
  return r === undefined ? undefined : { id: r.id, email: r.email, passwordHash: r.password_hash, isAdmin: r.is_admin === 1, createdAt: r.created_at };
}

function workspaceRow(r) {
  return r === undefined ? undefined : { id: r.id, name: r.name, retentionDays: r.retention_days, createdAt: r.created_at };
}

function apiKeyRow(r) {
  return { id: r.id, workspaceId: r.workspace_id, name: r.name, prefix: r.prefix, scopes: r.scopes.split(','), createdAt: r.created_at, lastUsedAt: r.last_used_at, revokedAt: r.revoked_at };
}

function deviceRow(r) {
  return r === undefined ? undefined : {
    status: r.status, userCode: r.user_code, accountId: r.account_id, workspaceId: r.workspace_id ?? null,
    intervalS: r.interval_s, lastPollAt: r.last_poll_at, expiresAt: r.expires_at,
  };
}

function eventRow(r, workspaceId) {
  /** @type {Record<string, unknown>} */
  const e = {
    id: String(r.id), workspace_id: workspaceId, app_id: r.app_id, sdk: r.sdk, sdk_version: r.sdk_version, decision: r.decision,
    vector: r.vector, rule: r.rule, matched: r.matched, route: r.route, method: r.method, ip_hash: r.ip_hex,
    timestamp: new Date(r.ts).toISOString(), received_at: new Date(r.received_at).toISOString(),
  };
  if (r.action !== null) e.action = r.action;
  if (r.ip !== null) e.ip = r.ip;
  return e;
}

