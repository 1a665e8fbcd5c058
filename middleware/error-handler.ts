// The last middleware of an app: turns an error into a JSON response that tells the client
// what kind of failure happened and an incident id to quote, and nothing about the server.
// Stack traces, SQL errors, connection strings, internal addresses and file paths help an
// attacker map the system; they go to the server log (onError) under the same incident id.

import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { BlockList, isIPv6 } from 'node:net';

/** What scrubText() puts in place of each sensitive part. */
export const REDACTED = '[redacted]';

/** Options of errorHandler(). */
export interface ErrorHandlerOptions {
  /** Answer with the message and stack. Default: read on each error, true only when NODE_ENV is exactly `development`. */
  development?: boolean;
  /** Receives every error with its incident id (default: one console.error line per error). */
  onError?: (err: unknown, req: ErrorRequest, incidentId: string) => void;
}

// Minimal structural types: the same code serves Express 4 and 5.
/** What onError may read of the request. */
export interface ErrorRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
}
/** What the handler uses of a response. */
export interface ErrorResponse {
  statusCode: number;
  headersSent: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  removeHeader?(name: string): void;
  end(body?: string): unknown;
}
type Next = (err?: unknown) => void;

// Longest message shown to a client; the server log has all of it.
const MAX_SHOWN = 500;
// Headers the route may have set for the body it meant to send, which the error body is not.
const STALE_HEADERS = ['Content-Encoding', 'Content-Language', 'Content-Range', 'Content-Disposition', 'Content-Length', 'ETag', 'Last-Modified'];
// Headers of an http-errors error that a client needs to act on the status (405, 401, 429, 503).
const ERROR_HEADERS = new Map([['allow', 'Allow'], ['www-authenticate', 'WWW-Authenticate'], ['retry-after', 'Retry-After']]);

let onErrorFailed = false;

/**
 * Express error middleware (mount it last). Outside development the body is
 * `{ error, incident }`: the status's generic text, or for a 4xx error marked `expose` its
 * message passed through scrubText().
 */
export function errorHandler(options: ErrorHandlerOptions = {}): (err: unknown, req: ErrorRequest, res: ErrorResponse, next: Next) => void {
  if (options === null || typeof options !== 'object') throw new TypeError('errorHandler: options must be an object');
  for (const k of Object.keys(options)) {
    if (k !== 'development' && k !== 'onError') throw new TypeError(`errorHandler: unknown option "${k}" (expected development, onError)`);
  }
  const { development, onError = logError } = options;
  if (development !== undefined && typeof development !== 'boolean') throw new TypeError('errorHandler: option "development" must be a boolean');
  if (typeof onError !== 'function') throw new TypeError('errorHandler: option "onError" must be a function');

  // Four parameters: Express recognises an error handler by its arity.
  return function errorHandlerMiddleware(err: unknown, req: ErrorRequest, res: ErrorResponse, next: Next): void {
    const incident = randomUUID();
    try {
      onError(err, req, incident);
    } catch (e) {
      if (!onErrorFailed) {
        onErrorFailed = true;
        console.error('errorHandler: the onError option threw (reported once):', e);
      }
    }
    // Part of a body is already out; only Express's own handler can end it (it closes the connection).
    if (res.headersSent) { next(err); return; }

    const status = statusOf(err);
    const dev = development ?? process.env.NODE_ENV === 'development';
    const body = dev
      ? { error: messageOf(err) || (STATUS_CODES[status] ?? 'Error'), stack: stackOf(err), incident }
      : { error: shownMessage(err, status), incident };
    send(res, status, err, JSON.stringify(body));
  };
}

function send(res: ErrorResponse, status: number, err: unknown, body: string): void {
  res.statusCode = status;
  if (typeof res.removeHeader === 'function') for (const h of STALE_HEADERS) res.removeHeader(h);
  const headers = prop(err, 'headers');
  if (headers !== null && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      const canonical = ERROR_HEADERS.get(name.toLowerCase());
      if (canonical === undefined || (typeof value !== 'string' && typeof value !== 'number')) continue;
      try {
        res.setHeader(canonical, value);
      } catch {
        // a value Node refuses (CR, LF) is left out rather than failing the error response
      }
    }
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function logError(err: unknown, _req: ErrorRequest, incidentId: string): void {
  console.error(`errorHandler: incident ${incidentId}:`, err);
}

// err.status or err.statusCode when it is an error status, else 500: a 2xx or 3xx "error"
// would tell the client the request worked.
function statusOf(err: unknown): number {
  for (const name of ['status', 'statusCode']) {
    const v = prop(err, name);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 400 && v <= 599) return v;
  }
  return 500;
}

function shownMessage(err: unknown, status: number): string {
  const generic = STATUS_CODES[status] ?? (status < 500 ? 'Client Error' : 'Internal Server Error');
  // 5xx messages describe the server's own failure: never shown, whatever `expose` says.
  if (status >= 500 || prop(err, 'expose') !== true) return generic;
  const scrubbed = scrubText(messageOf(err)).trim();
  if (scrubbed === '' || scrubbed === REDACTED) return generic;
  return scrubbed.length > MAX_SHOWN ? `${scrubbed.slice(0, MAX_SHOWN)}...` : scrubbed;
}

function messageOf(err: unknown): string {
  if (typeof err === 'string') return err;
  const m = prop(err, 'message');
  return typeof m === 'string' ? m : '';
}

function stackOf(err: unknown): string {
  const s = prop(err, 'stack');
  return typeof s === 'string' ? s : '';
}

// Errors are arbitrary values, and a getter on one can throw.
function prop(value: unknown, name: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    return (value as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// scrubText

/**
 * Replaces with `[redacted]` what an error text may reveal about the server: values of
 * environment variables, database error text, stack frames, connection strings and URLs with
 * credentials, internal addresses and host names, file paths and module internals.
 * Linear in the text's length; idempotent; never throws.
 */
export function scrubText(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return '';
  // Secrets first: the later steps then judge the text with them already replaced.
  const t = redactEnvValues(text);
  // A database error usually spans the query, the table and its columns: it is dropped whole.
  if (isDatabaseError(t)) return REDACTED;
  return redactWords(redactStackLines(t));
}

// Variables that describe the shell, locale or runtime mode: their values are common words and
// paths, not secrets, and redacting them would blank ordinary text.
const ENV_SKIP = new Set([
  'PATH', 'HOME', 'PWD', 'OLDPWD', 'SHELL', 'TERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'COLORTERM', 'LANG', 'LANGUAGE',
  'LOGNAME', 'USER', 'TMPDIR', 'TMP', 'TEMP', 'TZ', 'NODE_ENV', 'SHLVL', '_', 'EDITOR', 'VISUAL', 'PAGER', 'DISPLAY',
  'NO_COLOR', 'FORCE_COLOR',
]);
const MIN_ENV_VALUE = 6;

// Every occurrence of every value of 6 or more characters (read now: the environment can
// change), overlapping ones merged, each covered run replaced by one marker.
function redactEnvValues(text: string): string {
  let mask: Uint8Array | null = null;
  for (const name of Object.keys(process.env)) {
    const value = process.env[name];
    if (value === undefined || value.length < MIN_ENV_VALUE || value.length > text.length) continue;
    if (ENV_SKIP.has(name.toUpperCase()) || name.startsWith('LC_') || value.trim() === '' || REDACTED.includes(value)) continue;
    let at = text.indexOf(value);
    let markedTo = 0;
    while (at >= 0) {
      mask ??= new Uint8Array(text.length);
      // overlapping occurrences only mark what is new, so the work stays linear
      for (let i = Math.max(at, markedTo); i < at + value.length; i++) mask[i] = 1;
      markedTo = at + value.length;
      at = text.indexOf(value, at + 1);
    }
  }
  if (mask === null) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (mask[i] === 0) {
      const from = i;
      while (i < text.length && mask[i] === 0) i++;
      out += text.slice(from, i);
    } else {
      while (i < text.length && mask[i] === 1) i++;
      out += REDACTED;
    }
  }
  return out;
}

// Texts of PostgreSQL, MySQL, SQLite, SQL Server, Oracle, MongoDB, Redis and the common Node
// ORMs; each entry is a list of lowercase fragments that must all occur.
const DB_SIGNATURES: readonly (readonly string[])[] = [
  ['sql syntax'], ['sqlstate'], ['sqlite_'], ['syntax error at or near'], ['syntax error at end of input'],
  ['relation "', 'does not exist'], ['column "', 'does not exist'], ['database "', 'does not exist'], ['role "', 'does not exist'],
  ['duplicate key value violates'], ['violates foreign key constraint'], ['violates not-null constraint'],
  ['violates check constraint'], ['violates unique constraint'], ['invalid input syntax for type'],
  ['no such table'], ['no such column'], ['unknown column'], ["table '", "doesn't exist"], ['near "', 'syntax error'],
  ['password authentication failed for user'], ['access denied for user'], ['login failed for user'],
  ['deadlock detected'], ['lock wait timeout exceeded'], ['could not serialize access'],
  ['e11000 duplicate key'], ['mongoservererror'], ['mongoerror'], ['mongonetworkerror'], ['replyerror'], ['wrongtype operation'],
  ['sequelize'], ['queryfailederror'], ['prismaclient'], ['invalid `prisma.'], ['pg_hba.conf'],
];

function isDatabaseError(text: string): boolean {
  const lower = asciiLower(text);
  for (const sig of DB_SIGNATURES) {
    let all = true;
    for (const part of sig) if (!lower.includes(part)) { all = false; break; }
    if (all) return true;
  }
  return hasErrorCode(text);
}

// MySQL's `ER_PARSE_ERROR`-style codes and Oracle's `ORA-00942`, as whole words.
function hasErrorCode(text: string): boolean {
  for (let at = text.indexOf('ER_'); at >= 0; at = text.indexOf('ER_', at + 1)) {
    if (at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
    let n = 0;
    while (isUpperOrUnderscore(text.charCodeAt(at + 3 + n))) n++;
    if (n >= 3) return true;
  }
  for (let at = text.indexOf('ORA-'); at >= 0; at = text.indexOf('ORA-', at + 1)) {
    if (at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
    let n = 0;
    while (isDigit(text.charCodeAt(at + 4 + n))) n++;
    if (n === 5) return true;
  }
  return false;
}

// A stack frame line: `at name (file:line:col)`, `at file:line:col`, `at Array.map (<anonymous>)`.
// "at least 8 characters" on a line of its own has neither '(' nor ':<digit>' and stays.
// A run of frames becomes one marker line.
function redactStackLines(text: string): string {
  let out = '';
  let from = 0;
  let inRun = false;
  let changed = false;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (isFrameLine(text, start, end)) {
      if (!inRun) {
        out += text.slice(from, start) + REDACTED;
        inRun = true;
        changed = true;
      }
      // the line's newline stays with the next kept line, so the run keeps one line break
      from = end;
    } else inRun = false;
    start = end + 1;
  }
  return changed ? out + text.slice(from) : text;
}

function isFrameLine(text: string, start: number, end: number): boolean {
  let i = start;
  while (i < end && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) i++;
  if (!text.startsWith('at ', i)) return false;
  for (let j = i + 3; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x28 /* ( */ || (c === 0x3a /* : */ && isDigit(text.charCodeAt(j + 1)))) return true;
  }
  return false;
}

// Whitespace-separated words, each judged on its own text and replaced whole: a word is either
// kept byte for byte or becomes the marker, which no rule matches, so a second pass finds nothing.
function redactWords(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    const start = i;
    while (i < n && !isSpace(text.charCodeAt(i))) i++;
    if (i > start && isSensitiveWord(text.slice(start, i))) {
      out += text.slice(from, start) + REDACTED;
      from = i;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

// Whether one whitespace-free word reveals something about the server.
function isSensitiveWord(word: string): boolean {
  if (word === REDACTED) return false;
  const w = asciiLower(word);
  return (
    isModuleInternal(w) ||
    hasSensitiveUrl(w) ||
    hasInternalAddress(w) ||
    hasInternalHostName(w) ||
    hasFilePath(word, w) ||
    hasSecretAssignment(w) ||
    isConnectionString(w) ||
    isJwt(word)
  );
}

// Node and framework internals, also inside a stack frame quoted on one line.
const INTERNALS = ['node_modules', 'node:internal', '<anonymous>', 'webpack:', 'module._', 'layer.handle', 'processticksandrejections'];

function isModuleInternal(w: string): boolean {
  if (w.startsWith('function.')) return true;
  for (const s of INTERNALS) if (w.includes(s)) return true;
  return false;
}

const CONNECTION_SCHEMES = new Set([
  'postgres', 'postgresql', 'mysql', 'mysqlx', 'mariadb', 'mongodb', 'mongodb+srv', 'redis', 'rediss', 'valkey', 'memcached',
  'amqp', 'amqps', 'mssql', 'sqlserver', 'oracle', 'cockroachdb', 'cassandra', 'couchdb', 'couchbase', 'neo4j', 'neo4j+s',
  'bolt', 'clickhouse', 'nats', 'kafka', 'sqlite', 'ldap', 'ldaps', 'smtp', 'smtps', 'ftp', 'sftp', 'ssh', 'file',
]);

// A database, cache, broker, mail or file URL, a JDBC URL, or any URL with credentials
// (`https://user:pass@host`, `https://token@host`).
function hasSensitiveUrl(w: string): boolean {
  if (w.includes('jdbc:')) return true;
  for (let at = w.indexOf('://'); at >= 0; at = w.indexOf('://', at + 3)) {
    let s = at;
    while (s > 0 && at - s < 40 && isSchemeChar(w.charCodeAt(s - 1))) s--;
    const scheme = w.slice(s, at);
    // the scheme itself was a secret, redacted earlier
    if (at > 0 && w.charCodeAt(at - 1) === 0x5d /* ] */) return true;
    if (CONNECTION_SCHEMES.has(scheme)) return true;
    let e = at + 3;
    while (e < w.length && w[e] !== '/' && w[e] !== '?' && w[e] !== '#') {
      if (w[e] === '@') return true;
      e++;
    }
  }
  return false;
}

// Loopback, private, link-local (cloud metadata), carrier-grade NAT and unspecified ranges.
function isInternalV4(a: number, b: number): boolean {
  return a === 10 || a === 127 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
}

const INTERNAL_V6 = new BlockList();
INTERNAL_V6.addAddress('::1', 'ipv6');
INTERNAL_V6.addAddress('::', 'ipv6');
INTERNAL_V6.addSubnet('fc00::', 7, 'ipv6');
INTERNAL_V6.addSubnet('fe80::', 10, 'ipv6');
const MAX_V6 = 45;

function hasInternalAddress(w: string): boolean {
  const n = w.length;
  // dotted quads, with anything around them (`10.0.0.5:5432`, `(127.0.0.1)`, `::ffff:10.1.2.3`)
  for (let i = 0; i < n; ) {
    if (!isDigit(w.charCodeAt(i)) || (i > 0 && (isDigit(w.charCodeAt(i - 1)) || w.charCodeAt(i - 1) === 0x2e))) { i++; continue; }
    let e = i;
    while (e < n && (isDigit(w.charCodeAt(e)) || w.charCodeAt(e) === 0x2e)) e++;
    let run = w.slice(i, e);
    while (run.endsWith('.')) run = run.slice(0, -1);
    const parts = run.split('.');
    if (parts.length === 4 && parts.every((p) => p.length >= 1 && p.length <= 3 && Number(p) <= 255) && isInternalV4(Number(parts[0]), Number(parts[1]))) {
      return true;
    }
    i = e;
  }
  // IPv6: runs of hex digits and colons (`::1`, `[fd00::5]:80`, `fe80::1%eth0`); Node prints
  // `::1:5432` for address ::1 port 5432, so a trailing decimal group is also tried as a port.
  for (let i = 0; i < n; ) {
    if (!isHexOrColon(w.charCodeAt(i))) { i++; continue; }
    let e = i;
    let colons = 0;
    while (e < n && (isHexOrColon(w.charCodeAt(e)) || w.charCodeAt(e) === 0x2e)) {
      if (w.charCodeAt(e) === 0x3a) colons++;
      e++;
    }
    if (colons >= 2 && e - i <= MAX_V6) {
      const run = w.slice(i, e);
      if (isInternalV6(run)) return true;
      const last = run.lastIndexOf(':');
      if (last > 0 && last < run.length - 1 && /^[0-9]+$/.test(run.slice(last + 1)) && isInternalV6(run.slice(0, last))) return true;
    }
    i = e;
  }
  return false;
}

function isInternalV6(candidate: string): boolean {
  return isIPv6(candidate) && INTERNAL_V6.check(candidate, 'ipv6');
}

const INTERNAL_SUFFIXES = ['.internal', '.local', '.localdomain', '.lan', '.corp', '.home.arpa', '.intranet'];

// Names that only resolve inside a network: `db.prod.internal`, `api.svc.cluster.local`.
function hasInternalHostName(w: string): boolean {
  for (const suffix of INTERNAL_SUFFIXES) {
    for (let at = w.indexOf(suffix); at >= 0; at = w.indexOf(suffix, at + 1)) {
      const after = at + suffix.length;
      if (at > 0 && isLabelChar(w.charCodeAt(at - 1)) && (after === w.length || !isLabelChar(w.charCodeAt(after)))) return true;
    }
  }
  return false;
}

// Top directories of servers and build machines, in their letter case (`/Users/` is macOS,
// `/users/42` a route); `/home/` in an http URL is a page, not a file.
const ROOT_DIRS = new Set([
  'app', 'usr', 'home', 'var', 'opt', 'srv', 'etc', 'root', 'tmp', 'proc', 'mnt', 'Users', 'private', 'workspace',
  'workspaces', 'builds', 'snap', 'lib', 'bin', 'sbin', 'run', 'code', 'src', 'dist',
]);
const FILE_EXTENSIONS = new Set([
  'js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'jsx', 'tsx', 'json', 'node', 'map', 'py', 'rb', 'go', 'java', 'php', 'cs', 'sql',
  'env', 'yml', 'yaml', 'toml', 'ini', 'conf', 'cfg', 'pem', 'key', 'crt', 'log', 'sock', 'db', 'sqlite', 'sqlite3', 'sh', 'lock',
]);

// Absolute paths under a known root, Windows drive and UNC paths, and any path to a source,
// configuration or key file (`src/db.js:10:5`, `..\config.yml`).
function hasFilePath(word: string, w: string): boolean {
  const n = w.length;
  for (let i = 1; i + 1 < n; i++) {
    // `C:\` or `C:/`, the letter standing alone
    if (w.charCodeAt(i) === 0x3a && isLetter(w.charCodeAt(i - 1)) && (i === 1 || !isWordChar(w.charCodeAt(i - 2))) &&
      (w.charCodeAt(i + 1) === 0x5c || w.charCodeAt(i + 1) === 0x2f)) return true;
  }
  if (w.includes('\\\\')) return true;
  if (w.includes('http://') || w.includes('https://')) return false;
  let slash = false;
  for (let i = 0; i < n; i++) {
    const c = w.charCodeAt(i);
    if (c === 0x2f || c === 0x5c) {
      slash = true;
      if (c === 0x2f && (i === 0 || !isPathChar(w.charCodeAt(i - 1)))) {
        const e = w.indexOf('/', i + 1);
        if (e > i + 1 && e - i <= 12 && ROOT_DIRS.has(word.slice(i + 1, e))) return true;
      }
    } else if (c === 0x2e && slash) {
      let e = i + 1;
      while (e < n && isAlnum(w.charCodeAt(e))) e++;
      if (e > i + 1 && e - i <= 8 && FILE_EXTENSIONS.has(w.slice(i + 1, e))) return true;
    }
  }
  return false;
}

const SECRET_KEYS = ['password', 'passwd', 'pwd', 'secret', 'token', 'apikey', 'api_key', 'api-key', 'access_key', 'private_key', 'credential'];

// `password=...`, `"token":"..."`, `api_key:...` with a value in the same word.
function hasSecretAssignment(w: string): boolean {
  for (const key of SECRET_KEYS) {
    for (let at = w.indexOf(key); at >= 0; at = w.indexOf(key, at + 1)) {
      let i = at + key.length;
      if (w[i] === '"' || w[i] === "'") i++;
      if ((w[i] === '=' || w[i] === ':') && i + 1 < w.length) return true;
    }
  }
  return false;
}

const CONNECTION_KEYS = ['server=', 'host=', 'hostname=', 'source=', 'database=', 'catalog=', 'uid=', 'id=', 'user=', 'username=', 'address=', 'addr=', 'port=', 'dsn='];

// ADO.NET / ODBC style `Server=db1;Database=app;User Id=sa;...`, one word at a time.
function isConnectionString(w: string): boolean {
  if (!w.includes(';') || !w.includes('=')) return false;
  for (const key of CONNECTION_KEYS) if (w.includes(key)) return true;
  return false;
}

// A JSON Web Token: `eyJ` (base64url of `{"`) then two more dot-separated base64url parts.
// Each run of base64url characters and dots is read once: a later `eyJ` inside a run that
// failed ends where that run ends, with no more dots and fewer characters, so it fails too,
// and the search goes on after the run (`eyJ` itself is base64url, so none straddles its end).
function isJwt(word: string): boolean {
  for (let at = word.indexOf('eyJ'); at >= 0; ) {
    let dots = 0;
    let i = at;
    while (i < word.length && (isBase64Url(word.charCodeAt(i)) || word.charCodeAt(i) === 0x2e)) {
      if (word.charCodeAt(i) === 0x2e) dots++;
      i++;
    }
    if (dots >= 2 && i - at >= 20) return true;
    at = word.indexOf('eyJ', i);
  }
  return false;
}

// ASCII-only lower-casing keeps every index of the text valid in the lowered copy.
function asciiLower(s: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) {
      out += s.slice(from, i) + String.fromCharCode(c + 32);
      from = i + 1;
    }
  }
  return from === 0 ? s : out + s.slice(from);
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
function isAlnum(c: number): boolean {
  return isDigit(c) || isLetter(c);
}
function isWordChar(c: number): boolean {
  return isAlnum(c) || c === 0x5f;
}
function isUpperOrUnderscore(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}
function isHexOrColon(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || c === 0x3a;
}
function isSchemeChar(c: number): boolean {
  return isAlnum(c) || c === 0x2b || c === 0x2e || c === 0x2d;
}
function isLabelChar(c: number): boolean {
  return isAlnum(c) || c === 0x2d;
}
function isPathChar(c: number): boolean {
  return isAlnum(c) || c === 0x2e || c === 0x2d || c === 0x5f || c === 0x7e || c === 0x25 || c === 0x2b || c === 0x2f;
}
function isBase64Url(c: number): boolean {
  return isAlnum(c) || c === 0x2d || c === 0x5f;
}
