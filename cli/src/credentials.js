// ~/.shield/credentials.json: the short-lived access tokens `shield login` obtains, one per
// control plane, so a laptop can be signed in to staging and production at once. The
// directory is 0700 and the file 0600; every write goes to a temporary file first and is
// renamed over the old one, so a crash never leaves a half-written file or loses the other
// endpoints' entries.
import { mkdirSync, readFileSync, writeFileSync, renameSync, chmodSync, statSync, openSync, fsyncSync, closeSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CliError } from './errors.js';

/**
 * @typedef {{ endpoint: string, workspace_id: string, access_token: string, expires_at: string }} Credential
 * @typedef {{ version: 1, endpoints: Record<string, Credential> }} CredentialsFile
 */

/** `SHIELD_HOME` when set (tests, several identities), else ~/.shield. */
export function shieldHome() {
  const fromEnv = process.env.SHIELD_HOME;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.shield');
}

export function credentialsPath() {
  return join(shieldHome(), 'credentials.json');
}

/** @returns {CredentialsFile} an empty file's content when there is none yet */
export function readCredentials() {
  const file = credentialsPath();
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return { version: 1, endpoints: {} };
    throw new CliError(`cannot read ${file}: ${err.message}`);
  }
  let data;
  try { data = JSON.parse(text); } catch { data = null; }
  if (data === null || typeof data !== 'object' || data.version !== 1 || typeof data.endpoints !== 'object' || data.endpoints === null) {
    // Not ours to repair: it may hold tokens for other control planes.
    throw new CliError(`${file} is not a shield credentials file (version 1); move it away and run the command again`);
  }
  return data;
}

/**
 * The stored credential of `endpoint`, or undefined (also when it has expired).
 * @param {string} endpoint normalized base URL, as checkEndpoint returns it
 * @returns {Credential | undefined}
 */
export function credentialFor(endpoint) {
  const c = readCredentials().endpoints[endpoint];
  if (c === undefined || !(Date.parse(c.expires_at) > Date.now())) return undefined;
  return c;
}

/**
 * Adds or replaces the entry of `credential.endpoint`, keeping the others.
 * @param {Credential} credential @returns {string} the file written
 */
export function saveCredential(credential) {
  const dir = shieldHome();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An existing directory keeps its mode through mkdir: narrow it if others can look in.
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const data = readCredentials();
  data.endpoints[credential.endpoint] = credential;
  const file = credentialsPath();
  const tmp = join(dir, `.credentials.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    const fd = openSync(tmp, 'r');
    try { fsyncSync(fd); } finally { closeSync(fd); }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new CliError(`cannot write ${file}: ${err.message}`);
  }
  return file;
}
