// `shield serve` as a user runs it: the real bin in a child process over a fresh data dir.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import { runCli, runToEnd } from './support.mjs';
import { makeEvent, makeEnvelope, postEvents } from '../server/support.mjs';

let tmp;
beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'shield-cli-serve-')); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('shield serve', () => {
  it('prints the real URL and the bootstrap secrets once; the key works; a restart prints no secrets', async () => {
    const dataDir = join(tmp, 'data');
    const first = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      const [, key] = await first.waitFor(/^ {2}SHIELD_KEY=(\S+)$/m);
      const url = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(first.stdout);
      expect(url, first.describe()).not.toBeNull();
      expect(Number(url[2])).toBeGreaterThan(0);
      const ws = /^ {2}SHIELD_WORKSPACE_ID=(\S+)$/m.exec(first.stdout)[1];
      expect(first.stdout).toContain(`SHIELD_ENDPOINT=${url[1]}\n`);
      expect(first.stdout).toContain(`workspace id   ${ws}`);

      const file = join(dataDir, 'bootstrap.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const boot = JSON.parse(readFileSync(file, 'utf8'));
      expect(boot).toMatchObject({ workspace_id: ws, api_key: key });
      expect(first.stdout).toContain(boot.owner.email);
      expect(first.stdout).toContain(boot.owner.password);
      expect(first.stdout).toContain(file);

      const res = await postEvents(url[1], key, makeEnvelope(ws, [makeEvent(ws)]));
      expect(res.status, res.text).toBe(202);

      first.child.kill('SIGINT');
      expect(await first.exited).toEqual({ code: 0, signal: null });

      const second = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
      await second.waitFor(/Ctrl-C stops the server/);
      second.child.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
      expect(second.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(second.stdout).toContain(`are in ${file}`);
      for (const secret of [boot.api_key, boot.owner.password, 'SHIELD_KEY']) expect(second.stdout + second.stderr).not.toContain(secret);
    } finally {
      first.child.kill('SIGKILL');
    }
  });

  it.each([
    [['--port', '70000'], '--port must be an integer from 0 to 65535'],
    [['--port', 'eighty'], '--port must be an integer'],
    [['--retention-days', '0'], '--retention-days must be an integer from 1 to 3650'],
    [['--host', ''], '--host must not be empty'],
    [['--data-dir', ''], '--data-dir must not be empty'],
    [['--tls-cert', 'cert.pem'], '--tls-cert needs --tls-key'],
    [['--tls-key', 'key.pem'], '--tls-key needs --tls-cert'],
    [['--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem'], '--tls-cert /nonexistent/cert.pem: cannot read it (ENOENT)'],
    [['--trust-proxy', 'true'], '--trust-proxy does not accept "true"'],
    [['--trust-proxy', '10.0.0.0/40'], '--trust-proxy: "10.0.0.0/40" is not an IP address'],
    [['--public-url', 'ftp://example.com'], '--public-url must be an absolute http:// or https:// URL'],
    [['--prot', '8080'], "unknown option '--prot'"],
  ])('%j is a usage error (exit 2) naming the flag', async (args, message) => {
    const r = await runToEnd(['serve', '--data-dir', join(tmp, 'never'), ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
  });

  it('a data dir that is a file is a usage error; a port in use is a clear error', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, '');
    const r = await runToEnd(['serve', '--port', '0', '--data-dir', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--data-dir ${file} exists and is not a directory`);

    const taken = createServer();
    await new Promise((done) => taken.listen(0, '127.0.0.1', done));
    try {
      const port = taken.address().port;
      const busy = await runToEnd(['serve', '--port', String(port), '--data-dir', join(tmp, 'busy')]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`127.0.0.1:${port} is already in use`);
      expect(busy.stderr).toContain('--port');
      expect(busy.stderr).not.toMatch(/^\s+at /m);
    } finally {
      taken.close();
    }
  });

  it('refuses a data dir whose bootstrap.json outlived its store', async () => {
    const dataDir = join(tmp, 'orphan');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'bootstrap.json'), '{}');
    const r = await runToEnd(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bootstrap.json belongs to a store that is gone (no shield.db beside it)');
    expect(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).toBe('{}');
  });

  it('warns when listening beyond loopback over plain http', async () => {
    const run = runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', join(tmp, 'wide')]);
    try {
      await run.waitFor(/Ctrl-C stops the server/);
      // stderr is its own pipe: its line may arrive after stdout's
      await run.waitFor(/warning: listening on 0\.0\.0\.0 over plain http/, 10_000, 'stderr');
      expect(run.stderr).toContain('reverse proxy');
    } finally {
      run.child.kill('SIGINT');
      expect((await run.exited).code).toBe(0);
    }
  });

  it('serves https with --tls-cert/--tls-key, no warning; a key that does not match is refused', async () => {
    const dir = join(tmp, 'tls');
    const dataDir = join(dir, 'data');
    mkdirSync(dir, { recursive: true });
    const pem = (name) => {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=127.0.0.1', '-days', '1',
        '-keyout', join(dir, `${name}-key.pem`), '-out', join(dir, `${name}-cert.pem`)], { stdio: 'ignore' });
    };
    pem('a');
    pem('b');
    const bad = await runToEnd(['serve', '--port', '0', '--data-dir', dataDir, '--tls-cert', join(dir, 'a-cert.pem'), '--tls-key', join(dir, 'b-key.pem')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tls-cert/--tls-key: not a PEM certificate and its matching private key');

    const run = runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir, '--tls-cert', join(dir, 'a-cert.pem'), '--tls-key', join(dir, 'a-key.pem')]);
    try {
      const [, port] = await run.waitFor(/listening on https:\/\/0\.0\.0\.0:(\d+)/);
      await run.waitFor(/Ctrl-C stops the server/);
      expect(run.stderr).not.toContain('warning');
      const body = await new Promise((resolve, reject) => {
        https.get({ host: '127.0.0.1', port: Number(port), path: '/healthz', rejectUnauthorized: false }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d) => { text += d; }).on('end', () => resolve(text));
        }).on('error', reject);
      });
      expect(JSON.parse(body).status).toBe('ok');
    } finally {
      run.child.kill('SIGINT');
      expect((await run.exited).code).toBe(0);
    }
  });
});
