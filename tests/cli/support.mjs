// Helpers for the CLI suites: the real bin/shield.js in a child node process, its output
// collected as it comes, and waits on what it prints, with the output in every failure message.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = fileURLToPath(new URL('../../cli/bin/shield.js', import.meta.url));

/**
 * Starts `node <bin> ...args`.
 * @param {string[]} args @param {{ env?: Record<string, string>, cwd?: string, bin?: string[] }} [opts]
 */
export function runCli(args, { env = {}, cwd = REPO, bin = [CLI] } = {}) {
  const child = spawn(process.execPath, [...bin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const run = {
    child,
    stdout: '',
    stderr: '',
    /** @type {Promise<{ code: number | null, signal: string | null }>} */
    // 'close', not 'exit': by then stdout and stderr have been read to their end
    exited: new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal }))),
    /** Resolves with the first match of `re` in stdout (or stderr); rejects if the process exits first or time runs out. */
    waitFor(re, ms = 30_000, stream = 'stdout') {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(run[stream]);
          if (m === null) return false;
          cleanup();
          resolve(m);
          return true;
        };
        const onExit = () => setImmediate(() => { if (!check()) { cleanup(); reject(new Error(`exited before printing ${re}\n${run.describe()}`)); } });
        const timer = setTimeout(() => { cleanup(); reject(new Error(`no ${re} within ${ms} ms\n${run.describe()}`)); }, ms);
        const cleanup = () => { clearTimeout(timer); child[stream].off('data', check); child.off('exit', onExit); };
        if (check()) return;
        child[stream].on('data', check);
        child.once('exit', onExit);
      });
    },
    describe() {
      return `--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
    },
  };
  child.stdout.setEncoding('utf8').on('data', (d) => { run.stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { run.stderr += d; });
  return run;
}

/** Runs to completion; for commands that should fail fast. */
export async function runToEnd(args, opts) {
  const run = runCli(args, opts);
  const { code, signal } = await run.exited;
  // let the last 'data' events land
  await new Promise((r) => setImmediate(r));
  return { code, signal, stdout: run.stdout, stderr: run.stderr };
}

/** A port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/** A browser's cookie jar, enough for the control plane's session and CSRF cookies. */
export class CookieJar {
  constructor() { /** @type {Map<string, string>} */ this.map = new Map(); }
  keep(res) {
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';', 1)[0];
      const eq = pair.indexOf('=');
      this.map.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
  header() { return [...this.map].map(([k, v]) => `${k}=${v}`).join('; '); }
}

/** Signs in as a browser would (CSRF cookie and token, then the password); returns the jar. */
export async function browserSignIn(base, email, password) {
  const jar = new CookieJar();
  const t = await fetch(`${base}/v1/auth/csrf`);
  jar.keep(t);
  const { csrf_token: csrf } = await t.json();
  const r = await fetch(`${base}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, cookie: jar.header() },
    body: JSON.stringify({ email, password }),
  });
  jar.keep(r);
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${await r.text()}`);
  return jar;
}
