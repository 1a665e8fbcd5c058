// @shield/control-plane: createControlPlane() builds the app over a store; startServer()
// also listens (http, or https with a certificate) and bootstraps an empty data directory.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { resolveConfig } from './config.js';
import { openSqliteStore } from './store/sqlite/index.js';
import { createApp } from './app.js';
import { hashPassword, newPassword } from './auth/passwords.js';
import { newApiKey, randomUUID } from './auth/secrets.js';

export const VERSION = createRequire(import.meta.url)('../package.json').version;
export { resolveConfig } from './config.js';
export { openSqliteStore } from './store/sqlite/index.js';
export { STORE_METHODS, LastOwnerError } from './store/store.js';
export { ApiError } from './errors.js';

/**
 * On an empty store: an owner account, a default workspace and one API key. Their secrets
 * go to `bootstrap.json` (mode 0600) in the data directory and are returned once.
 * @returns {Promise<null | { workspace_id: string, api_key: string, owner: { email: string, password: string }, created_at: string }>}
 */
export async function bootstrapStore(store, config) {
  if (!(await store.isEmpty())) return null;
  const file = join(config.dataDir, 'bootstrap.json');
  // Its credentials would name accounts that no longer exist: refuse rather than overwrite.
  if (existsSync(file)) {
    throw new Error(`control plane: ${file} exists but the database is empty (was shield.db deleted?); move bootstrap.json away to create a new owner and key`);
  }
  const password = newPassword();
  const owner = await store.createAccount({ email: config.ownerEmail, passwordHash: await hashPassword(password), isAdmin: true });
  const workspace = await store.createWorkspace({ id: randomUUID(), name: 'default', retentionDays: config.retentionDays, ownerAccountId: owner.id });
  const key = newApiKey();
  await store.createApiKey({ id: key.id, workspaceId: workspace.id, name: 'bootstrap', prefix: key.prefix, hash: key.hash });
  const record = { workspace_id: workspace.id, api_key: key.key, owner: { email: owner.email, password }, created_at: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return record;
}

/** The CSRF signing secret, made once per data directory so sessions survive restarts. */
function csrfSecret(dataDir) {
  const file = join(dataDir, 'csrf.secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

/**
 * The app and its store, not yet listening.
 * @param {Partial<import('./config.js').Config> & { log?: (line: string) => void }} options
 */
export async function createControlPlane(options = {}) {
  const { log = (line) => process.stderr.write(`${line}\n`), ...rest } = options;
  const config = resolveConfig(rest);
  const store = await openSqliteStore({ dataDir: config.dataDir, synchronous: config.synchronous, writerThread: true });
  let bootstrap;
  try {
    bootstrap = await bootstrapStore(store, config);
  } catch (err) {
    await store.close();
    throw err;
  }
  const app = createApp({ store, config, csrfSecret: csrfSecret(config.dataDir), version: VERSION, log });
  let sweeping = Promise.resolve();
  let closed = false;
  const sweep = () => {
    if (closed) return;
    sweeping = sweeping.then(() => (closed ? undefined : store.applyRetention()))
      .catch((err) => log(`shield control plane: retention sweep failed: ${err.message}`));
  };
  const timer = setInterval(sweep, config.retentionSweepS * 1000);
  timer.unref();
  sweep();
  return {
    app, store, config, bootstrap,
    async close() {
      closed = true;
      clearInterval(timer);
      await sweeping;
      await store.close();
    },
  };
}

/**
 * Listens on config.host:config.port; https when tlsCert/tlsKey are given.
 * @param {Partial<import('./config.js').Config> & { log?: (line: string) => void }} options
 */
export async function startServer(options = {}) {
  const cp = await createControlPlane(options);
  const { config } = cp;
  const server = config.tlsCert === undefined
    ? createHttpServer(cp.app)
    : createHttpsServer({ cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) }, cp.app);
  // Slow clients cannot hold sockets forever.
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve(undefined));
    });
  } catch (err) {
    // the store is closed so the caller can exit cleanly; bootstrap.json keeps a first start's credentials
    await cp.close();
    throw err;
  }
  const addr = server.address();
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${config.tlsCert === undefined ? 'http' : 'https'}://${host}:${addr.port}`;
  return {
    ...cp,
    server,
    url,
    /** Stops accepting, lets requests under way finish (at most graceMs), then closes the store. */
    async close({ graceMs = 5000 } = {}) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve(undefined);
        });
        server.closeIdleConnections();
      });
      await cp.close();
    },
  };
}
