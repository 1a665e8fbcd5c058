// `shield demo`, what `npm start` runs: a control plane in this process, the demo app
// (middleware/demo.mjs) as a child sending it telemetry, a burst of benign and hostile
// traffic, and, once the events have landed, where to look. Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { intFlag, nonEmptyFlag } from '../flags.js';
import { startControlPlane } from '../control-plane.js';
import { stopOnSignals } from '../signals.js';
import { signIn } from '../session.js';
import { DEMO_TRAFFIC, sendDemoTraffic } from '../demo-traffic.js';
import { CliError } from '../errors.js';

const HOST = '127.0.0.1';
const DEMO_APP = fileURLToPath(new URL('../../../middleware/demo.mjs', import.meta.url));
// The SDK flushes every 2 s; this leaves room for a retry or two on a busy machine.
const ARRIVAL_TIMEOUT_MS = 30_000;
// No new event for this long (longer than one flush interval) means the burst has landed.
const QUIET_MS = 2_500;

/** @param {import('commander').Command} program */
export function registerDemo(program) {
  program
    .command('demo')
    .description('the `npm start` demo: a local control plane, the demo app sending it events, and sample traffic')
    .option('--port <port>', 'control plane port', intFlag('--port', 0, 65535), 8787)
    .option('--app-port <port>', 'demo app port', intFlag('--app-port', 1, 65535), 3000)
    .option('--data-dir <dir>', 'control plane data directory', nonEmptyFlag('--data-dir'), './.shield-data')
    .action(demo);
}

/** @param {{ port: number, appPort: number, dataDir: string }} opts */
async function demo(opts) {
  if (!existsSync(DEMO_APP)) throw new CliError(`the demo app ${DEMO_APP} is missing: \`shield demo\` runs from the shield repository`);
  // Checked before anything starts: otherwise the app would die on EADDRINUSE after the
  // control plane is up, or, worse, the readiness probe would reach someone else's server.
  await assertPortFree(opts.appPort, '--app-port');

  const cp = await startControlPlane({ port: opts.port, host: HOST, dataDir: opts.dataDir, log: (line) => process.stderr.write(`${line}\n`) });
  const bootstrapFile = resolve(join(opts.dataDir, 'bootstrap.json'));
  let creds;
  try {
    creds = cp.bootstrap ?? readBootstrap(bootstrapFile);
  } catch (err) {
    await cp.close();
    throw err;
  }

  const since = new Date();
  const appUrl = `http://${HOST}:${opts.appPort}`;
  const app = spawn(process.execPath, [DEMO_APP], {
    env: {
      ...process.env,
      SHIELD_ENDPOINT: cp.url,
      SHIELD_WORKSPACE_ID: creds.workspace_id,
      SHIELD_KEY: creds.api_key,
      SHIELD_APP_ID: 'demo',
      PORT: String(opts.appPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // demo.mjs sends itself a few requests at start and then says "listening": the burst waits
  // for that line so the two sets of output do not interleave.
  let appSettled;
  const appQuiet = new Promise((done) => { appSettled = done; });
  prefixLines(app.stdout, process.stdout, (line) => { if (line.startsWith('listening')) appSettled(); });
  prefixLines(app.stderr, process.stderr);
  const appExit = new Promise((done) => app.once('exit', (code, signal) => done({ code, signal })));
  const appRunning = () => app.exitCode === null && app.signalCode === null;
  let closing = null;
  let stopping = false;
  const closeControlPlane = () => (closing ??= cp.close());

  async function stop() {
    stopping = true;
    if (appRunning()) {
      // demo.mjs flushes its telemetry on SIGINT; SIGKILL only if it hangs.
      app.kill('SIGINT');
      const killer = setTimeout(() => app.kill('SIGKILL'), 5_000);
      await appExit;
      clearTimeout(killer);
    }
    await closeControlPlane();
  }
  stopOnSignals(stop);
  app.once('error', (err) => {
    if (stopping) return;
    process.stderr.write(`shield: cannot start the demo app: ${err.message}\n`);
    stop().finally(() => process.exit(1));
  });
  appExit.then(({ code, signal }) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`shield: the demo app exited unexpectedly (${signal ?? `code ${code}`}); its output is above. Stopping the control plane.\n`);
    closeControlPlane().finally(() => process.exit(1));
  });

  let arrived;
  let sent;
  try {
    process.stdout.write(`control plane on ${cp.url} (data in ${resolve(opts.dataDir)}); starting the demo app (pid ${app.pid}) on ${appUrl}\n`);
    await waitForPort(opts.appPort, () => !appRunning());
    await Promise.race([appQuiet, sleep(5_000)]);

    const attacks = DEMO_TRAFFIC.filter((r) => r.expect !== 'benign');
    const vectors = [...new Set(attacks.map((r) => r.expect))];
    process.stdout.write(`sending ${DEMO_TRAFFIC.length} requests to the demo app: ${DEMO_TRAFFIC.length - attacks.length} benign, ${attacks.length} attacks (${vectors.join(', ')})\n`);
    const burst = await sendDemoTraffic(appUrl);
    sent = burst.sent;
    if (burst.failed > 0 && !stopping) process.stderr.write(`warning: ${burst.failed} of ${DEMO_TRAFFIC.length} demo requests got no answer\n`);

    const session = await signIn(cp.url, creds.owner.email, creds.owner.password);
    arrived = await waitForEvents(session, creds.workspace_id, since, sent);
  } catch (err) {
    // Stopping already (Ctrl-C during start-up, or the app died): that path reports and exits.
    if (stopping) return new Promise(() => {});
    await stop();
    throw err;
  }

  const out = (s = '') => process.stdout.write(`${s}\n`);
  out();
  out(`Control plane  ${cp.url}/  (plain status page; API under /v1, described at /v1/openapi.json)`);
  out(`Demo app       ${appUrl}/search?q=hello  (try your own: ${appUrl}/search?q=%3Cscript%3Ealert(1)%3C/script%3E)`);
  out(`Owner sign-in  email and password in ${bootstrapFile} (workspace ${creds.workspace_id})`);
  if (arrived.total < sent) out(`warning: only ${arrived.total} of the ${sent} events sent had arrived after ${ARRIVAL_TIMEOUT_MS / 1000} s`);
  out(`events stored: ${arrived.total} (allow ${arrived.allow}, deny ${arrived.deny}); deny by vector: ${Object.entries(arrived.byVector).sort((a, b) => b[1] - a[1]).map(([v, n]) => `${v} ${n}`).join(', ') || 'none'}`);
  out('Ctrl-C stops the demo app and the control plane.');
}

/** bootstrap.json of a data directory made by an earlier run. */
function readBootstrap(file) {
  let b;
  try { b = JSON.parse(readFileSync(file, 'utf8')); } catch (err) {
    throw new CliError(`this data directory already has a store but ${file} cannot be read (${err.code ?? err.message}); the demo needs its credentials: use another --data-dir`);
  }
  if (typeof b?.workspace_id !== 'string' || typeof b.api_key !== 'string' || typeof b.owner?.email !== 'string' || typeof b.owner?.password !== 'string') {
    throw new CliError(`${file} lacks workspace_id, api_key or owner: use another --data-dir`);
  }
  return b;
}

/**
 * Copies a child's output line by line, marked as the app's.
 * @param {import('node:stream').Readable} stream @param {NodeJS.WritableStream} to @param {(line: string) => void} [onLine]
 */
function prefixLines(stream, to, onLine) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    to.write(line === '' ? 'app |\n' : `app | ${line}\n`);
    onLine?.(line);
  });
}

/** @param {number} port @param {string} flag */
function assertPortFree(port, flag) {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', (err) => fail(new CliError(err.code === 'EADDRINUSE'
      ? `${HOST}:${port} is already in use; choose another port for the demo app with ${flag}`
      : `cannot use ${HOST}:${port} for the demo app (${err.code ?? err.message}); choose another with ${flag}`)));
    probe.listen(port, HOST, () => probe.close(() => done(undefined)));
  });
}

/** Waits until something accepts connections on the port; a bare TCP probe sends no request, so it makes no event. */
async function waitForPort(port, exited) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (exited()) throw new CliError('the demo app exited before it was ready; its output is above');
    const ok = await new Promise((done) => {
      const s = connect(port, HOST);
      s.once('connect', () => { s.destroy(); done(true); });
      s.once('error', () => done(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new CliError(`the demo app did not listen on ${HOST}:${port} within 20 s`);
}

/**
 * Polls the read API for this run's events until at least `expected` are there and no more
 * arrive for QUIET_MS (the demo app also sends a few requests of its own at start).
 * @returns {Promise<{ total: number, allow: number, deny: number, byVector: Record<string, number> }>}
 */
async function waitForEvents(session, workspaceId, since, expected) {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  let last = await countEvents(session, workspaceId, since);
  let changedAt = Date.now();
  while (Date.now() < deadline) {
    await sleep(500);
    const now = await countEvents(session, workspaceId, since);
    if (now.total !== last.total) changedAt = Date.now();
    last = now;
    if (now.total >= expected && Date.now() - changedAt >= QUIET_MS) break;
  }
  return last;
}

async function countEvents(session, workspaceId, since) {
  const counts = { total: 0, allow: 0, deny: 0, byVector: /** @type {Record<string, number>} */ ({}) };
  let cursor = null;
  do {
    const params = new URLSearchParams({ from: since.toISOString(), limit: '500' });
    if (cursor !== null) params.set('cursor', cursor);
    const page = await session.get(`/v1/workspaces/${workspaceId}/events?${params}`);
    for (const e of page.events) {
      counts.total++;
      if (e.decision === 'allow') counts.allow++;
      else {
        counts.deny++;
        counts.byVector[e.vector] = (counts.byVector[e.vector] ?? 0) + 1;
      }
    }
    cursor = page.next_cursor;
  } while (cursor !== null);
  return counts;
}
