// `shield serve`: the control plane as a long-running service. The first start creates the
// owner, a workspace and an API key and prints them once; later starts only say where they are.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { intFlag, nonEmptyFlag, publicUrlFlag, trustProxyFlag } from '../flags.js';
import { isLoopbackHost } from '../loopback.js';
import { startControlPlane } from '../control-plane.js';
import { stopOnSignals } from '../signals.js';
import { UsageError } from '../errors.js';

/** @param {import('commander').Command} program */
export function registerServe(program) {
  program
    .command('serve')
    .description('run the control plane: event and finding ingest, the read API, device login')
    .option('--port <port>', 'TCP port; 0 picks a free one', intFlag('--port', 0, 65535), 8787)
    .option('--host <address>', 'address to listen on', nonEmptyFlag('--host'), '127.0.0.1')
    .option('--data-dir <dir>', 'where the sqlite store and bootstrap.json live', nonEmptyFlag('--data-dir'), './.shield-data')
    .option('--tls-cert <file>', 'PEM certificate chain: serve https (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option('--trust-proxy <hops|addresses>', 'behind a reverse proxy: how many proxies append to X-Forwarded-For, or their addresses/CIDRs (comma-separated)', trustProxyFlag)
    .option('--public-url <url>', 'the URL users and SDKs reach this service at (used in login links)', publicUrlFlag)
    .option('--retention-days <days>', 'days a new workspace (the first included) keeps events and uploads', intFlag('--retention-days', 1, 3650), 30)
    .addHelpText('after', `
The first start prints the owner's password, the workspace id and an API key once; they are
kept in <data-dir>/bootstrap.json (mode 0600). SDKs send only to https endpoints (plain http
only on loopback): on a network, use --tls-cert/--tls-key or a TLS reverse proxy in front
with --trust-proxy 1 (see README, "Control plane").`)
    .action(serve);
}

/**
 * @param {{ port: number, host: string, dataDir: string, tlsCert?: string, tlsKey?: string,
 *   trustProxy?: number | string[], publicUrl?: string, retentionDays: number }} opts
 */
async function serve(opts) {
  checkTls(opts.tlsCert, opts.tlsKey);
  const cp = await startControlPlane({
    port: opts.port,
    host: opts.host,
    dataDir: opts.dataDir,
    tlsCert: opts.tlsCert,
    tlsKey: opts.tlsKey,
    trustProxy: opts.trustProxy,
    publicUrl: opts.publicUrl,
    retentionDays: opts.retentionDays,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  stopOnSignals(() => cp.close());

  const out = (s = '') => process.stdout.write(`${s}\n`);
  const endpoint = opts.publicUrl ?? cp.url;
  const bootstrapFile = resolve(join(opts.dataDir, 'bootstrap.json'));
  out(`shield control plane listening on ${cp.url}${opts.publicUrl ? ` (public URL ${opts.publicUrl})` : ''}`);
  if (opts.tlsCert === undefined && !isLoopbackHost(opts.host)) {
    process.stderr.write(`warning: listening on ${opts.host} over plain http. SDKs and \`shield login\` send only to https endpoints (http only on loopback), and passwords and keys would cross the network in clear. Use --tls-cert/--tls-key, or listen on 127.0.0.1 behind a TLS reverse proxy (README, "Control plane").\n`);
  }
  if (cp.bootstrap) {
    const b = cp.bootstrap;
    out();
    out('First start: created an owner account, a workspace and an API key. They are printed this once:');
    out(`  workspace id   ${b.workspace_id}`);
    out(`  API key        ${b.api_key}`);
    out(`  owner email    ${b.owner.email}`);
    out(`  owner password ${b.owner.password}`);
    out(`They are also in ${bootstrapFile} (mode 0600); keep that file private.`);
    out();
    out('Point an SDK at this control plane with:');
    out(`  SHIELD_ENDPOINT=${endpoint}`);
    out(`  SHIELD_WORKSPACE_ID=${b.workspace_id}`);
    out(`  SHIELD_KEY=${b.api_key}`);
  } else if (existsSync(bootstrapFile)) {
    out(`The owner's sign-in and the first API key are in ${bootstrapFile}.`);
  } else {
    out(`${bootstrapFile} is gone: sign in with an account you created, or start over with an empty --data-dir.`);
  }
  out();
  out(`Approve \`shield login\` at ${endpoint}/device. Ctrl-C stops the server.`);
}

/** Both or neither, readable, and a certificate that matches its key: checked before anything is created. */
function checkTls(cert, key) {
  if (cert === undefined && key === undefined) return;
  if (cert === undefined || key === undefined) throw new UsageError(`${cert === undefined ? '--tls-key' : '--tls-cert'} needs ${cert === undefined ? '--tls-cert' : '--tls-key'} as well`);
  const read = (flag, file) => {
    try { return readFileSync(file); } catch (err) { throw new UsageError(`${flag} ${file}: cannot read it (${err.code ?? err.message})`); }
  };
  const certPem = read('--tls-cert', cert);
  const keyPem = read('--tls-key', key);
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    throw new UsageError(`--tls-cert/--tls-key: not a PEM certificate and its matching private key (${err.message})`);
  }
}
