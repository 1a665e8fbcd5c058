// Findings uploads (POST /v1/findings) in the sqlite store. An upload never changes once stored:
// every scan is a new upload row with its findings and inventory, and the read side picks the
// latest upload per repository. Every statement filters by ws, the workspace key of schema.js,
// so no workspace ever sees another's uploads, even given one of their ids.

/**
 * @typedef {import('./driver.js').Db} Db
 * @typedef {import('../../findings/parse.js').FindingsUpload} FindingsUpload
 * @typedef {import('../../findings/parse.js').NormalizedFinding} NormalizedFinding
 * @typedef {{ critical: number, high: number, medium: number, low: number, info: number }} SeverityCounts
 * @typedef {{
 *   uploadId: number, kind: 'sca' | 'audit', format: 'json' | 'sarif', ref: string | null, commit: string | null,
 *   tool: { name: string, version: string }, generatedAt: number, receivedAt: number, counts: SeverityCounts,
 * }} UploadSummary
 * @typedef {{
 *   repository: string, uploads: number, lastUploadAt: number, latest: UploadSummary,
 *   byKind: { sca: UploadSummary | null, audit: UploadSummary | null },
 * }} RepositoryFindingsSummary
 */

// `commit` is an SQL keyword, hence commit_sha. severity_rank (0 = critical) lets the read side
// walk an index in severity order instead of sorting up to 50,000 rows.
export const FINDINGS_SCHEMA = `
CREATE TABLE IF NOT EXISTS finding_uploads (
  id INTEGER PRIMARY KEY,
  ws INTEGER NOT NULL,
  repository TEXT NOT NULL,
  ref TEXT,
  commit_sha TEXT,
  kind TEXT NOT NULL CHECK (kind IN ('sca', 'audit')),
  format TEXT NOT NULL CHECK (format IN ('json', 'sarif')),
  tool_name TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  generated_at INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  critical INTEGER NOT NULL,
  high INTEGER NOT NULL,
  medium INTEGER NOT NULL,
  low INTEGER NOT NULL,
  info INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS finding_uploads_ws_repo ON finding_uploads (ws, repository, received_at, id);
CREATE INDEX IF NOT EXISTS finding_uploads_ws_received ON finding_uploads (ws, received_at);

CREATE TABLE IF NOT EXISTS findings (
  id INTEGER PRIMARY KEY,
  upload_id INTEGER NOT NULL REFERENCES finding_uploads(id) ON DELETE CASCADE,
  ws INTEGER NOT NULL,
  repository TEXT NOT NULL,
  seq INTEGER NOT NULL,
  severity_rank INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  rule TEXT NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('critical', 'high', 'medium', 'low', 'info')),
  title TEXT NOT NULL,
  message TEXT,
  file TEXT,
  line INTEGER,
  package TEXT,
  version TEXT,
  ecosystem TEXT,
  advisory_id TEXT,
  cvss REAL,
  url TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS findings_ws_upload ON findings (ws, upload_id, severity_rank, seq);

CREATE TABLE IF NOT EXISTS finding_inventory (
  upload_id INTEGER NOT NULL REFERENCES finding_uploads(id) ON DELETE CASCADE,
  ws INTEGER NOT NULL,
  repository TEXT NOT NULL,
  ecosystem TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  direct INTEGER CHECK (direct IN (0, 1))
) STRICT;
CREATE INDEX IF NOT EXISTS finding_inventory_ws_upload ON finding_inventory (ws, upload_id);
`;

const SEVERITY_KEYS = /** @type {const} */ (['critical', 'high', 'medium', 'low', 'info']);
const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 50_000;

const INSERT_UPLOAD = `
INSERT INTO finding_uploads (ws, repository, ref, commit_sha, kind, format, tool_name, tool_version,
  generated_at, received_at, critical, high, medium, low, info)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

// Finding column <- normalized field. Rows travel to sqlite as one JSON array of arrays in this
// order: one INSERT ... SELECT per table whatever the number of rows, and positional extraction
// is about twice as fast as by key on 50,000 rows.
const FINDING_COLUMNS = /** @type {const} */ ([
  ['fingerprint', 'fingerprint'], ['rule', 'rule'], ['severity', 'severity'], ['title', 'title'], ['message', 'message'],
  ['file', 'file'], ['line', 'line'], ['package', 'package'], ['version', 'version'], ['ecosystem', 'ecosystem'],
  ['advisory_id', 'advisoryId'], ['cvss', 'cvss'], ['url', 'url'],
]);
const SEVERITY_AT = FINDING_COLUMNS.findIndex(([column]) => column === 'severity');
const INVENTORY_COLUMNS = /** @type {const} */ (['ecosystem', 'name', 'version', 'direct']);

const INSERT_FINDINGS = `
INSERT INTO findings (upload_id, ws, repository, seq, severity_rank, ${FINDING_COLUMNS.map(([column]) => column).join(', ')})
SELECT ?1, ?2, ?3, j.key,
  CASE j.value ->> ${SEVERITY_AT} WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END,
  ${FINDING_COLUMNS.map((_, i) => `j.value ->> ${i}`).join(', ')}
FROM json_each(?4) AS j`;

const INSERT_INVENTORY = `
INSERT INTO finding_inventory (upload_id, ws, repository, ${INVENTORY_COLUMNS.join(', ')})
SELECT ?1, ?2, ?3, ${INVENTORY_COLUMNS.map((_, i) => `j.value ->> ${i}`).join(', ')}
FROM json_each(?4) AS j`;

const UPLOAD_COLUMNS = `id, repository, ref, commit_sha, kind, format, tool_name, tool_version, generated_at, received_at,
  critical, high, medium, low, info`;

/** @param {unknown} ws */
function assertWs(ws) {
  // The integer key, never the UUID: a UUID here would silently match nothing.
  if (!Number.isSafeInteger(ws)) throw new TypeError('ws must be the integer workspace key');
}

/**
 * Stores one parsed upload with its findings and inventory, in one transaction.
 * @param {Db} db @param {number} ws @param {FindingsUpload} upload @param {number} now received-at time (ms)
 * @returns {Promise<{ uploadId: number, findings: number, inventory: number }>}
 */
export async function ingestFindings(db, ws, upload, now) {
  assertWs(ws);
  /** @type {SeverityCounts} */
  const counts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const f of upload.findings) counts[f.severity]++;
  const repository = upload.repository.name;
  const findingsJson = JSON.stringify(upload.findings.map((f) => FINDING_COLUMNS.map(([, field]) => f[field] ?? null)));
  const inventoryJson = JSON.stringify(upload.inventory.map((p) => INVENTORY_COLUMNS.map((field) => p[field] ?? null)));
  return db.transaction(async (tx) => {
    const { lastID: uploadId } = await tx.run(INSERT_UPLOAD, [
      ws, repository, upload.repository.ref, upload.repository.commit, upload.kind, upload.format,
      upload.tool.name, upload.tool.version, upload.generatedAt, now,
      counts.critical, counts.high, counts.medium, counts.low, counts.info,
    ]);
    const findings = upload.findings.length === 0 ? 0 : (await tx.run(INSERT_FINDINGS, [uploadId, ws, repository, findingsJson])).changes;
    const inventory = upload.inventory.length === 0 ? 0 : (await tx.run(INSERT_INVENTORY, [uploadId, ws, repository, inventoryJson])).changes;
    return { uploadId, findings, inventory };
  });
}

/**
 * Every repository of the workspace with its upload count and latest upload, overall and per kind
 * (an sca and an audit scan of one repository are separate, equally current, pictures).
 * @param {Db} db @param {number} ws
 * @returns {Promise<RepositoryFindingsSummary[]>}
 */
export async function findingRepositories(db, ws) {
  assertWs(ws);
  const rows = await db.all(
    `SELECT * FROM (
       SELECT ${UPLOAD_COLUMNS},
         row_number() OVER (PARTITION BY repository ORDER BY received_at DESC, id DESC) AS overall,
         row_number() OVER (PARTITION BY repository, kind ORDER BY received_at DESC, id DESC) AS per_kind,
         count(*) OVER (PARTITION BY repository) AS uploads,
         max(received_at) OVER (PARTITION BY repository) AS last_upload_at
       FROM finding_uploads WHERE ws = ?
     ) WHERE per_kind = 1
     ORDER BY repository, kind`,
    [ws],
  );
  /** @type {Map<string, RepositoryFindingsSummary>} */
  const byRepository = new Map();
  for (const row of rows) {
    let entry = byRepository.get(row.repository);
    const summary = uploadSummary(row);
    if (entry === undefined) {
      entry = { repository: row.repository, uploads: row.uploads, lastUploadAt: row.last_upload_at, latest: summary, byKind: { sca: null, audit: null } };
      byRepository.set(row.repository, entry);
    }
    if (row.overall === 1) entry.latest = summary;
    entry.byKind[summary.kind] = summary;
  }
  return [...byRepository.values()];
}

/**
 * The findings of one upload of a repository, most severe first: the given upload, else the
 * latest (of `kind` when given). Undefined when the workspace has no such upload.
 * @param {Db} db @param {number} ws @param {string} repository
 * @param {{ uploadId?: number, kind?: 'sca' | 'audit', limit?: number }} [options] limit: 1..50,000, default 1,000
 * @returns {Promise<{ repository: string, upload: UploadSummary, findings: NormalizedFinding[] } | undefined>}
 */
export async function repositoryFindings(db, ws, repository, { uploadId, kind, limit = DEFAULT_LIMIT } = {}) {
  assertWs(ws);
  let row;
  if (uploadId !== undefined) {
    row = await db.get(`SELECT ${UPLOAD_COLUMNS} FROM finding_uploads WHERE ws = ? AND repository = ? AND id = ?`, [ws, repository, uploadId]);
  } else if (kind !== undefined) {
    row = await db.get(
      `SELECT ${UPLOAD_COLUMNS} FROM finding_uploads WHERE ws = ? AND repository = ? AND kind = ? ORDER BY received_at DESC, id DESC LIMIT 1`,
      [ws, repository, kind],
    );
  } else {
    row = await db.get(
      `SELECT ${UPLOAD_COLUMNS} FROM finding_uploads WHERE ws = ? AND repository = ? ORDER BY received_at DESC, id DESC LIMIT 1`,
      [ws, repository],
    );
  }
  if (row === undefined) return undefined;
  const n = Number.isSafeInteger(limit) ? Math.min(Math.max(limit, 1), MAX_LIMIT) : DEFAULT_LIMIT;
  // A second statement outside a transaction is safe: an upload's rows are written in one
  // transaction and never change afterwards (retention may remove them; then none are found).
  const rows = await db.all(
    `SELECT ${FINDING_COLUMNS.map(([column]) => column).join(', ')}
     FROM findings WHERE ws = ? AND upload_id = ? ORDER BY severity_rank, seq LIMIT ?`,
    [ws, row.id, n],
  );
  return {
    repository: row.repository,
    upload: uploadSummary(row),
    findings: rows.map((r) => /** @type {NormalizedFinding} */ (Object.fromEntries(FINDING_COLUMNS.map(([column, field]) => [field, r[column]])))),
  };
}

/**
 * Retention: deletes the workspace's uploads received before cutoffMs, with their findings and
 * inventory. Returns the number of uploads deleted.
 * @param {Db} db @param {number} ws @param {number} cutoffMs
 * @returns {Promise<number>}
 */
export async function deleteUploadsBefore(db, ws, cutoffMs) {
  assertWs(ws);
  // Children first and by hand, so this holds on any connection: foreign-key enforcement is a
  // per-connection setting (the store turns it on, a backup tool may not).
  return db.transaction(async (tx) => {
    const old = 'SELECT id FROM finding_uploads WHERE ws = ? AND received_at < ?';
    await tx.run(`DELETE FROM findings WHERE ws = ? AND upload_id IN (${old})`, [ws, ws, cutoffMs]);
    await tx.run(`DELETE FROM finding_inventory WHERE ws = ? AND upload_id IN (${old})`, [ws, ws, cutoffMs]);
    const { changes } = await tx.run('DELETE FROM finding_uploads WHERE ws = ? AND received_at < ?', [ws, cutoffMs]);
    return changes;
  });
}

/** @param {any} row @returns {UploadSummary} */
function uploadSummary(row) {
  /** @type {SeverityCounts} */
  const counts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const k of SEVERITY_KEYS) counts[k] = row[k];
  return {
    uploadId: row.id,
    kind: row.kind,
    format: row.format,
    ref: row.ref,
    commit: row.commit_sha,
    tool: { name: row.tool_name, version: row.tool_version },
    generatedAt: row.generated_at,
    receivedAt: row.received_at,
    counts,
  };
}
