// The default store: one sqlite file (WAL) under the data directory. One connection writes,
// through a queue of transactions; a second, read-only connection serves the read API so a
// long query never waits behind ingest (WAL readers see the last committed state).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Db } from './driver.js';
import { CORE_SCHEMA } from './schema.js';
import { FINDINGS_SCHEMA, ingestFindings, findingRepositories, repositoryFindings, deleteUploadsBefore } from './findings.js';
import { STORE_METHODS } from '../store.js';

const DAY_MS = 86_400_000;

/** @param {number} ms */
export function dayOf(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Opens (creating when missing) the store in `dataDir/shield.db`.
 * @param {{ dataDir: string, synchronous?: 'FULL' | 'NORMAL' }} options
 */
export async function openSqliteStore(options) {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = join(options.dataDir, 'shield.db');
  const db = await Db.open(file);
  // FULL: a commit is on disk before ingest answers 202, so even a power cut loses nothing acknowledged.
  await db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous ?? 'FULL'}; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;`);
  await db.exec(CORE_SCHEMA + FINDINGS_SCHEMA);
  const reader = await Db.open(file, { readonly: true });
  await reader.exec('PRAGMA busy_timeout = 5000;');
  return new SqliteStore(db, reader, file);
}

export class SqliteStore {
  /** @param {Db} db @param {Db} reader @param {string} file */
  constructor(db, reader, file) {
    this.db = db;
    this.reader = reader;
    this.file = file;
    /** @type {Map<string, number>} workspace UUID -> integer key */
    this.wsKeys = new Map();
    /** @type {{ prepared: ReturnType<typeof prepareBatch>, resolve: (r: any) => void, reject: (e: unknown) => void }[]} */
    this.pending = [];
    this.draining = false;
  }

  async close() {
    while (this.draining) await new Promise((r) => setImmediate(r));
    await this.db.close();
    await this.reader.close();
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

  async createAccount({ email, passwordHash }) {
    const createdAt = Date.now();
    const { lastID } = await this.db.transaction((db) => db.run('INSERT INTO accounts (email, password_hash, created_at) VALUES (?, ?, ?)', [email, passwordHash, createdAt]));
    return { id: lastID, email, passwordHash, createdAt };
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

  async addMember(workspaceId, accountId, role) {
    const ws = await this.mustWsKey(workspaceId);
    await this.db.transaction((db) => db.run(
      'INSERT INTO members (ws, account_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (ws, account_id) DO UPDATE SET role = excluded.role',
      [ws, accountId, role, Date.now()],
    ));
  }

  async removeMember(workspaceId, accountId) {
    const ws = await this.mustWsKey(workspaceId);
    const { changes } = await this.db.transaction((db) => db.run('DELETE FROM members WHERE ws = ? AND account_id = ?', [ws, accountId]));
    return changes > 0;
  }

  // ---- API keys ------------------------------------------------------------------------

  async createApiKey({ id, workspaceId, name, prefix, hash }) {
    const ws = await this.mustWsKey(workspaceId);
    const createdAt = Date.now();
    await this.db.transaction((db) => db.run('INSERT INTO api_keys (id, ws, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)', [id, ws, name, prefix, hash, createdAt]));
    return { id, workspaceId, name, prefix, createdAt, lastUsedAt: null, revokedAt: null };
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

  async deviceCodeByHash(hash) {
    return deviceRow(await this.db.get('SELECT d.*, w.id AS workspace_id FROM device_codes d LEFT JOIN workspaces w ON w.ws = d.ws WHERE d.hash = ?', [hash]));
  }

  async deviceCodeByUserCode(userCode) {
    return deviceRow(await this.db.get('SELECT d.*, w.id AS workspace_id FROM device_codes d LEFT JOIN workspaces w ON w.ws = d.ws WHERE d.user_code = ?', [userCode]));
  }

  /** Approves or denies a pending, unexpired code; false when it is not pending any more. */
  async decideDeviceCode(userCode, { status, accountId, workspaceId }) {
    const ws = workspaceId === null ? null : await this.mustWsKey(workspaceId);
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
   * Stores one batch atomically: its events (one set-wise INSERT from a JSON array), its share
   * of the three rollups (grouped here, upserted set-wise), the fleet record and the
   * idempotency record commit together or not at all, and the promise settles only after the
   * commit. Batches that arrive while a commit is under way wait and then share the next
   * transaction (group commit): a batch is never split, and the fsync, the WAL pages of the
   * rollups and the statements are paid once per group instead of once per batch. If a group
   * fails, each of its batches is retried in a transaction of its own, so one bad batch cannot
   * fail another.
   * @param {import('../store.js').IngestBatch} batch
   * @returns {Promise<import('../store.js').IngestResult>}
   */
  async ingestEvents(batch) {
    const prepared = prepareBatch(await this.mustWsKey(batch.workspaceId), batch);
    return new Promise((resolve, reject) => {
      this.pending.push({ prepared, resolve, reject });
      if (!this.draining) this.drain();
    });
  }

  async drain() {
    this.draining = true;
    try {
      while (this.pending.length > 0) {
        let events = 0;
        let n = 0;
        while (n < this.pending.length && (n === 0 || events + this.pending[n].prepared.tuples.length <= GROUP_EVENTS)) {
          events += this.pending[n].prepared.tuples.length;
          n++;
        }
        const group = this.pending.splice(0, n);
        try {
          const results = await this.db.transaction((db) => writeGroup(db, group.map((g) => g.prepared)));
          group.forEach((g, i) => g.resolve(results[i]));
        } catch (err) {
          if (group.length === 1) { group[0].reject(err); continue; }
          for (const g of group) {
            try {
              g.resolve((await this.db.transaction((db) => writeGroup(db, [g.prepared])))[0]);
            } catch (e) {
              g.reject(e);
            }
          }
        }
      }
    } finally {
      this.draining = false;
    }
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
    const r = this.reader;
    const [days, vectors, rules, routes, ips] = await Promise.all([
      r.all(`SELECT day, sum(CASE WHEN decision = 'allow' THEN n ELSE 0 END) AS allow, sum(CASE WHEN decision = 'deny' THEN n ELSE 0 END) AS deny FROM rollup_day WHERE ${where} GROUP BY day ORDER BY day`, base),
      r.all(`SELECT vector, sum(n) AS n FROM rollup_day WHERE ${where} AND decision = 'deny' GROUP BY vector ORDER BY n DESC, vector LIMIT ?5`, [...base, limit]),
      r.all(`SELECT rule, vector, sum(n) AS n FROM rollup_day WHERE ${where} AND decision = 'deny' GROUP BY rule, vector ORDER BY n DESC, rule LIMIT ?5`, [...base, limit]),
      r.all(`SELECT route, method, sum(n) AS n, sum(denied) AS denied FROM rollup_route WHERE ${where} GROUP BY route, method ORDER BY denied DESC, n DESC, route LIMIT ?5`, [...base, limit]),
      r.all(`SELECT ip_hash, sum(n) AS n, sum(denied) AS denied FROM rollup_ip WHERE ${where} GROUP BY ip_hash HAVING sum(denied) > 0 ORDER BY denied DESC, n DESC, ip_hash LIMIT ?5`, [...base, limit]),
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
      topOffenders: ips.map((v) => ({ ip_hash: v.ip_hash, requests: v.n, denied: v.denied })),
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
      if (v !== undefined) { conds.push(`e.${column} = ?`); params.push(v); }
    }
    if (q.cursor !== undefined) { conds.push('(e.ts, e.id) < (?, ?)'); params.push(q.cursor.ts, q.cursor.id); }
    params.push(q.limit + 1);
    const rows = await this.reader.all(
      `SELECT e.* FROM events e WHERE ${conds.join(' AND ')} ORDER BY e.ts DESC, e.id DESC LIMIT ?`,
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
    const rows = await this.reader.all('SELECT * FROM fleet WHERE ws = ? ORDER BY last_seen DESC, instance_id', [ws]);
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

  async ingestFindings(workspaceId, upload) {
    return ingestFindings(this.db, await this.mustWsKey(workspaceId), upload, Date.now());
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
    }
    await this.db.transaction(async (db) => {
      await db.run('DELETE FROM sessions WHERE expires_at <= ?', [now]);
      await db.run('DELETE FROM access_tokens WHERE expires_at <= ?', [now]);
      await db.run('DELETE FROM device_codes WHERE expires_at <= ?', [now - DAY_MS]);
      await db.run('DELETE FROM idempotency WHERE created_at <= ?', [now - DAY_MS]);
    });
    return { events, uploads };
  }
}

// Most events one group commit takes; a batch larger than this still goes whole.
const GROUP_EVENTS = 8000;

// Tuples: [ws, ts, received_at, instance_id, app_id, sdk, sdk_version, decision, action, vector, rule, matched, route, method, ip_hash, ip]
const INSERT_EVENTS = `INSERT INTO events (ws, ts, received_at, instance_id, app_id, sdk, sdk_version, decision, action, vector, rule, matched, route, method, ip_hash, ip)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10, value ->> 11, value ->> 12, value ->> 13, value ->> 14, value ->> 15
FROM json_each(?1)`;

// A group's key is a JSON array, its counts follow: [[ws, day, app, ...], n] or [[...], [n, denied]]
const UPSERT_DAY = `INSERT INTO rollup_day (ws, day, app_id, decision, vector, rule, n)
SELECT value ->> '$[0][0]', value ->> '$[0][1]', value ->> '$[0][2]', value ->> '$[0][3]', value ->> '$[0][4]', value ->> '$[0][5]', value ->> 1 FROM json_each(?1) WHERE true
ON CONFLICT DO UPDATE SET n = n + excluded.n`;

const UPSERT_ROUTE = `INSERT INTO rollup_route (ws, day, app_id, route, method, n, denied)
SELECT value ->> '$[0][0]', value ->> '$[0][1]', value ->> '$[0][2]', value ->> '$[0][3]', value ->> '$[0][4]', value ->> '$[1][0]', value ->> '$[1][1]' FROM json_each(?1) WHERE true
ON CONFLICT DO UPDATE SET n = n + excluded.n, denied = denied + excluded.denied`;

const UPSERT_IP = `INSERT INTO rollup_ip (ws, day, app_id, ip_hash, n, denied)
SELECT value ->> '$[0][0]', value ->> '$[0][1]', value ->> '$[0][2]', value ->> '$[0][3]', value ->> '$[1][0]', value ->> '$[1][1]' FROM json_each(?1) WHERE true
ON CONFLICT DO UPDATE SET n = n + excluded.n, denied = denied + excluded.denied`;

// Rows: [ws, instance_id, app_id, sdk, sdk_version, at, last_event_at, events, dropped]
const UPSERT_FLEET = `INSERT INTO fleet (ws, instance_id, app_id, sdk, sdk_version, first_seen, last_seen, last_event_at, events, dropped)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 5, value ->> 6, value ->> 7, value ->> 8 FROM json_each(?1) WHERE true
ON CONFLICT (ws, instance_id) DO UPDATE SET app_id = excluded.app_id, sdk = excluded.sdk, sdk_version = excluded.sdk_version,
  last_seen = max(last_seen, excluded.last_seen), last_event_at = nullif(max(coalesce(last_event_at, 0), coalesce(excluded.last_event_at, 0)), 0),
  events = events + excluded.events, dropped = max(dropped, excluded.dropped)`;

const FIND_IDEMPOTENCY = `SELECT i.ws, i.key, i.request_hash, i.response FROM json_each(?1) AS k
JOIN idempotency i ON i.ws = k.value ->> 0 AND i.key = k.value ->> 1`;

const INSERT_IDEMPOTENCY = `INSERT INTO idempotency (ws, key, request_hash, response, created_at)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?1)`;

/**
 * The JS half of a batch's ingest, done before it queues for the writer: the event tuples and
 * its rollup groups.
 * @param {number} ws @param {import('../store.js').IngestBatch} batch
 */
function prepareBatch(ws, batch) {
  const { events, envelope, receivedAt } = batch;
  const instance = envelope === null ? null : envelope.instance_id;
  const tuples = new Array(events.length);
  /** @type {Map<string, number>} */ const byDay = new Map();
  /** @type {Map<string, number[]>} */ const byRoute = new Map();
  /** @type {Map<string, number[]>} */ const byIp = new Map();
  let lastTs = 0;
  let day = '';
  let dayStart = 0;
  let dayEnd = -1;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    // events of a batch mostly share a day: format it once per day, not per event
    if (e.ts < dayStart || e.ts >= dayEnd) {
      dayStart = e.ts - (((e.ts % DAY_MS) + DAY_MS) % DAY_MS);
      dayEnd = dayStart + DAY_MS;
      day = dayOf(dayStart);
    }
    tuples[i] = [ws, e.ts, receivedAt, instance, e.app_id, e.sdk, e.sdk_version, e.decision, e.action, e.vector, e.rule, e.matched, e.route, e.method, e.ip_hash, e.ip];
    if (e.ts > lastTs) lastTs = e.ts;
    const deny = e.decision === 'deny' ? 1 : 0;
    const prefix = `[${ws},"${day}",${JSON.stringify(e.app_id)},`;
    const dk = `${prefix}${JSON.stringify(e.decision)},${JSON.stringify(e.vector)},${JSON.stringify(e.rule)}]`;
    byDay.set(dk, (byDay.get(dk) ?? 0) + 1);
    const rk = `${prefix}${JSON.stringify(e.route)},${JSON.stringify(e.method)}]`;
    const r = byRoute.get(rk);
    if (r === undefined) byRoute.set(rk, [1, deny]); else { r[0]++; r[1] += deny; }
    const ik = `${prefix}${JSON.stringify(e.ip_hash)}]`;
    const p = byIp.get(ik);
    if (p === undefined) byIp.set(ik, [1, deny]); else { p[0]++; p[1] += deny; }
  }
  const fleet = envelope === null ? null
    : [ws, envelope.instance_id, envelope.app_id, envelope.sdk, envelope.sdk_version, receivedAt, events.length > 0 ? lastTs : null, events.length, envelope.dropped];
  return { ws, tuples, byDay, byRoute, byIp, fleet, key: batch.idempotencyKey, requestHash: batch.requestHash, response: batch.response, receivedAt };
}

/**
 * Writes the batches of one group inside the caller's transaction; returns each batch's result.
 * @param {Db} db @param {ReturnType<typeof prepareBatch>[]} group
 */
async function writeGroup(db, group) {
  const results = new Array(group.length);
  /** @type {Map<string, { requestHash: string, response: unknown }>} */
  const seen = new Map();
  const keyed = group.filter((b) => b.key !== null);
  if (keyed.length > 0) {
    for (const row of await db.all(FIND_IDEMPOTENCY, [JSON.stringify(keyed.map((b) => [b.ws, b.key]))])) {
      seen.set(`${row.ws} ${row.key}`, { requestHash: row.request_hash, response: JSON.parse(row.response) });
    }
  }
  const fresh = [];
  const idempotency = [];
  group.forEach((b, i) => {
    if (b.key !== null) {
      const id = `${b.ws} ${b.key}`;
      const prev = seen.get(id);
      if (prev !== undefined) {
        results[i] = { status: prev.requestHash === b.requestHash ? 'replayed' : 'conflict', response: prev.response };
        return;
      }
      // a retry racing its first attempt into the same group: the first one stores
      seen.set(id, { requestHash: b.requestHash, response: b.response });
      idempotency.push([b.ws, b.key, b.requestHash, JSON.stringify(b.response), b.receivedAt]);
    }
    fresh.push(b);
    results[i] = { status: 'stored', response: b.response };
  });
  const tuples = [];
  const fleet = [];
  const byDay = new Map();
  const byRoute = new Map();
  const byIp = new Map();
  for (const b of fresh) {
    for (const t of b.tuples) tuples.push(t);
    if (b.fleet !== null) fleet.push(b.fleet);
    for (const [k, v] of b.byDay) byDay.set(k, (byDay.get(k) ?? 0) + v);
    mergePairs(byRoute, b.byRoute);
    mergePairs(byIp, b.byIp);
  }
  if (tuples.length > 0) {
    await db.run(INSERT_EVENTS, [JSON.stringify(tuples)]);
    await db.run(UPSERT_DAY, [groupRows(byDay)]);
    await db.run(UPSERT_ROUTE, [groupRows(byRoute)]);
    await db.run(UPSERT_IP, [groupRows(byIp)]);
  }
  if (fleet.length > 0) await db.run(UPSERT_FLEET, [JSON.stringify(fleet)]);
  if (idempotency.length > 0) await db.run(INSERT_IDEMPOTENCY, [JSON.stringify(idempotency)]);
  return results;
}

/** @param {Map<string, number[]>} into @param {Map<string, number[]>} from */
function mergePairs(into, from) {
  for (const [k, v] of from) {
    const t = into.get(k);
    if (t === undefined) into.set(k, [v[0], v[1]]); else { t[0] += v[0]; t[1] += v[1]; }
  }
}

const EVENT_FILTERS = [
  ['decision', 'decision'], ['vector', 'vector'], ['rule', 'rule'], ['route', 'route'], ['method', 'method'], ['ip_hash', 'ip_hash'], ['app', 'app_id'],
];

/** A Map of JSON-array keys to counts -> one JSON array of [key, counts] rows. @param {Map<string, number | number[]>} groups */
function groupRows(groups) {
  const rows = [];
  for (const [k, v] of groups) rows.push(`[${k},${typeof v === 'number' ? v : `[${v[0]},${v[1]}]`}]`);
  return `[${rows.join(',')}]`;
}

function accountRow(r) {
  return r === undefined ? undefined : { id: r.id, email: r.email, passwordHash: r.password_hash, createdAt: r.created_at };
}

function workspaceRow(r) {
  return r === undefined ? undefined : { id: r.id, name: r.name, retentionDays: r.retention_days, createdAt: r.created_at };
}

function apiKeyRow(r) {
  return { id: r.id, workspaceId: r.workspace_id, name: r.name, prefix: r.prefix, createdAt: r.created_at, lastUsedAt: r.last_used_at, revokedAt: r.revoked_at };
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
    vector: r.vector, rule: r.rule, matched: r.matched, route: r.route, method: r.method, ip_hash: r.ip_hash,
    timestamp: new Date(r.ts).toISOString(), received_at: new Date(r.received_at).toISOString(),
  };
  if (r.action !== null) e.action = r.action;
  if (r.ip !== null) e.ip = r.ip;
  if (r.instance_id !== null) e.instance_id = r.instance_id;
  return e;
}

export { STORE_METHODS };
