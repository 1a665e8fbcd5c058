// Tables of the sqlite store. Workspaces are referenced by an integer key (ws) inside the
// database: the UUID is stored once, not on every event row. Times are integers (ms since the
// epoch, UTC); days are 'YYYY-MM-DD' text (UTC).

export const CORE_SCHEMA = `
-- The layout's version, for the migrations a later release will need.
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1');

CREATE TABLE IF NOT EXISTS workspaces (
  ws INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  retention_days INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS accounts (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  -- administrators create accounts (the bootstrap owner is one); owners only add existing ones
  is_admin INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS members (
  ws INTEGER NOT NULL REFERENCES workspaces(ws) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (ws, account_id)
) STRICT;

CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  ws INTEGER NOT NULL REFERENCES workspaces(ws) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  -- what the key may send: 'events', 'findings' or both, comma-separated
  scopes TEXT NOT NULL DEFAULT 'events,findings',
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS api_keys_ws ON api_keys (ws);

CREATE TABLE IF NOT EXISTS sessions (
  hash TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS device_codes (
  hash TEXT PRIMARY KEY,
  user_code TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used')),
  account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  ws INTEGER REFERENCES workspaces(ws) ON DELETE CASCADE,
  interval_s INTEGER NOT NULL,
  last_poll_at INTEGER,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS access_tokens (
  hash TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  ws INTEGER NOT NULL REFERENCES workspaces(ws) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

-- Rows are appended in arrival order (rowid); the one index serves the feed, time filters
-- and retention. No index per filter: each would cost every insert a random write (an address
-- index alone cost ~40% of ingest); filters other than time scan the time range.
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  ws INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  app_id TEXT NOT NULL,
  sdk TEXT NOT NULL,
  sdk_version TEXT NOT NULL,
  decision TEXT NOT NULL,
  action TEXT,
  vector TEXT NOT NULL,
  rule TEXT NOT NULL,
  matched TEXT NOT NULL,
  route TEXT NOT NULL,
  method TEXT NOT NULL,
  ip_hash BLOB NOT NULL, -- the 32 bytes of the hex in events: half the size
  ip TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS events_ws_ts ON events (ws, ts, id);

-- Rollups, maintained in the ingest transaction: the overview never scans events.
CREATE TABLE IF NOT EXISTS rollup_day (
  ws INTEGER NOT NULL,
  day TEXT NOT NULL,
  app_id TEXT NOT NULL,
  decision TEXT NOT NULL,
  vector TEXT NOT NULL,
  rule TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (ws, day, app_id, decision, vector, rule)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS rollup_route (
  ws INTEGER NOT NULL,
  day TEXT NOT NULL,
  app_id TEXT NOT NULL,
  route TEXT NOT NULL,
  method TEXT NOT NULL,
  n INTEGER NOT NULL,
  denied INTEGER NOT NULL,
  PRIMARY KEY (ws, day, app_id, route, method)
) STRICT, WITHOUT ROWID;

-- Offenders: denied requests per address, day and app. Allowed requests are not counted
-- here: at millions of addresses that would be most of the rollup's cost for no view.
CREATE TABLE IF NOT EXISTS rollup_ip (
  ws INTEGER NOT NULL,
  day TEXT NOT NULL,
  app_id TEXT NOT NULL,
  ip_hash BLOB NOT NULL,
  denied INTEGER NOT NULL,
  PRIMARY KEY (ws, day, app_id, ip_hash)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS fleet (
  ws INTEGER NOT NULL,
  instance_id TEXT NOT NULL,
  app_id TEXT NOT NULL,
  sdk TEXT NOT NULL,
  sdk_version TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  last_event_at INTEGER,
  events INTEGER NOT NULL,
  dropped INTEGER NOT NULL,
  PRIMARY KEY (ws, instance_id)
) STRICT;

CREATE TABLE IF NOT EXISTS idempotency (
  ws INTEGER NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (ws, key)
) STRICT;
CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency (created_at);
`;
