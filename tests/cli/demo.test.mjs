// `npm start`: the command of the root package's start script, run as a child with its own
// ports and data directory. The events the demo traffic causes must reach the control plane
// (the summary says so, and the read API agrees), and Ctrl-C must stop both processes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runToEnd, freePort, browserSignIn, REPO } from './support.mjs';
import { DEMO_TRAFFIC } from '../../cli/src/demo-traffic.js';

const VECTORS = ['xss', 'sql', 'path', 'command', 'nosql', 'prototype'];

/** `node cli/bin/shield.js demo` from package.json's start script, node as this one. */
function startCommand() {
  const script = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts.start;
  const [node, ...args] = script.split(' ');
  expect(node).toBe('node');
  return args;
}

const isAlive = (pid) => {
  try { process.kill(pid, 0); return true; } catch { return false; }
};
const accepts = (port) => new Promise((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});

let tmp;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'shield-cli-demo-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('npm start (shield demo)', () => {
  it('sends benign and attack traffic through the demo app into the control plane, then stops both on SIGINT', async () => {
    const [cpPort, appPort] = [await freePort(), await freePort()];
    const dataDir = join(tmp, 'data');
    const run = runCli(['--port', String(cpPort), '--app-port', String(appPort), '--data-dir', dataDir], { bin: startCommand() });
    try {
      const summary = await run.waitFor(/^events stored: (\d+) \(allow (\d+), deny (\d+)\); deny by vector: (.+)$/m, 90_000);
      const [total, allow, deny] = summary.slice(1, 4).map(Number);
      const byVector = Object.fromEntries(summary[4].split(', ').map((s) => s.split(' ')).map(([v, n]) => [v, Number(n)]));
      expect(total).toBeGreaterThanOrEqual(DEMO_TRAFFIC.length);
      expect(allow + deny).toBe(total);
      expect(allow).toBeGreaterThan(0);
      expect(deny).toBeGreaterThan(0);
      for (const v of VECTORS) expect(byVector[v], `${v} in ${summary[4]}`).toBeGreaterThan(0);
      expect(run.stdout).not.toContain('warning');
      expect(run.stdout).toContain(`Control plane  http://127.0.0.1:${cpPort}/`);
      expect(run.stdout).toContain(`Demo app       http://127.0.0.1:${appPort}/`);
      expect(run.stdout).toContain(join(dataDir, 'bootstrap.json'));

      // The store agrees, read as the owner through the read API.
      const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
      const base = `http://127.0.0.1:${cpPort}`;
      const jar = await browserSignIn(base, boot.owner.email, boot.owner.password);
      const res = await fetch(`${base}/v1/workspaces/${boot.workspace_id}/events?limit=500`, { headers: { cookie: jar.header() } });
      expect(res.status).toBe(200);
      const { events } = await res.json();
      expect(events).toHaveLength(total);
      expect(events.filter((e) => e.decision === 'allow')).toHaveLength(allow);
      const stored = {};
      for (const e of events.filter((x) => x.decision === 'deny')) stored[e.vector] = (stored[e.vector] ?? 0) + 1;
      expect(stored).toEqual(byVector);
      expect(new Set(events.map((e) => e.app_id))).toEqual(new Set(['demo']));

      const appPid = Number(/demo app \(pid (\d+)\)/.exec(run.stdout)[1]);
      expect(isAlive(appPid)).toBe(true);
      run.child.kill('SIGINT');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(isAlive(appPid)).toBe(false);
      expect(await accepts(appPort)).toBe(false);
      expect(await accepts(cpPort)).toBe(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('a demo app port in use is a clear error naming --app-port', async () => {
    const taken = createServer();
    await new Promise((done) => taken.listen(0, '127.0.0.1', done));
    try {
      const port = taken.address().port;
      const r = await runToEnd([...startCommand(), '--port', String(await freePort()), '--app-port', String(port), '--data-dir', join(tmp, 'busy')], { bin: [] });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`shield: 127.0.0.1:${port} is already in use; choose another port for the demo app with --app-port\n`);
    } finally {
      taken.close();
    }
  });
});
