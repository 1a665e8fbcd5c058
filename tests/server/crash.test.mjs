// Crash safety of ingest: kill -9 the control plane while batches stream in; after a restart every
// batch that got 202 is stored exactly once, no batch is stored in part, and re-sending what got
// no answer (same Idempotency-Key, same body) completes the set without a duplicate. The server
// runs in a child process (crash-server.mjs) over one data directory for the whole test; the kill
// is repeated so it lands at different points of the writer's group commits.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { openSqliteStore } from '@shield/control-plane';
import { tempDir, Client } from './support.mjs';

const SERVER = fileURLToPath(new URL('./crash-server.mjs', import.meta.url));
const CONNECTIONS = 8;
// 202s to wait for before each kill; jittered so that the kill lands at a different point each time
const KILL_AFTER = [300, 420, 200];
const DAY = 86_400_000;

const children = new Set();
const dataDir = tempDir('shield-crash-');
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts crash-server.mjs on `dir` and waits for its { url, bootstrap } line. */
async function startServerProcess(dir) {
  const child = spawn(process.execPath, [SERVER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    exited.then(({ code, signal }) => reject(new Error(`crash-server exited (${signal ?? code}) before listening:\n${stderr}`)));
  });
  const { url, bootstrap } = JSON.parse(line);
  return { child, exited, url, bootstrap, stderr: () => stderr };
}

/**
 * Batch n: 1-48 events, each attributable to it (route /crash/<n>, matched b<n>e<i>); three in
 * four in an envelope, the rest a bare array. The body text is kept so a re-send is byte-identical.
 */
function makeBatch(n, workspaceId, instanceId) {
  const size = 1 + ((n * 29) % 48);
  const timestamp = new Date().toISOString();
  const events = [];
  for (let i = 0; i < size; i++) {
    const allow = i % 3 === 0;
    events.push({
      workspace_id: workspaceId, app_id: 'crash', sdk: '@shield/node', sdk_version: '0.1.0',
      decision: allow ? 'allow' : 'deny', action: allow ? 'passed' : 'blocked',
      vector: allow ? 'none' : 'sql', rule: allow ? 'none' : 'patterns.sql.union-select',
      matched: `b${n}e${i}`, route: `/crash/${n}`, method: 'POST', ip_hash: randomBytes(32).toString('hex'), timestamp,
    });
  }
  const envelope = n % 4 !== 0;
  const body = JSON.stringify(envelope
    ? { sdk: '@shield/node', sdk_version: '0.1.0', app_id: 'crash', workspace_id: workspaceId, instance_id: instanceId, kind: 'events', sent_at: timestamp, dropped: 0, events }
    : events);
  return { n, size, envelope, key: `crash-${n}-${randomUUID()}`, body };
}

const expectedMatched = (b) => Array.from({ length: b.size }, (_, i) => `b${b.n}e${i}`).sort();

/** POST /v1/events; rejects only when no status came back (connection refused or cut). */
async function post(url, apiKey, batch) {
  const res = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': batch.key },
    body: batch.body,
  });
  // A 202's status line is only written after the commit; its body may still be cut by the kill.
  let json = null;
  try { json = JSON.parse(await res.text()); } catch { json = null; }
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), json };
}

/** Runs fn over items on CONNECTIONS concurrent workers. */
async function onConnections(items, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/**
 * Streams new batches on CONNECTIONS connections; after `killAfter` 202s, SIGKILLs the server
 * with the other connections' requests still in flight. Records every 202 in ctx.acked.
 */
async function streamAndKill(server, ctx, killAfter) {
  let acks = 0;
  let inFlight = 0;
  let inFlightAtKill = -1;
  const unexpected = [];
  const sentBefore = ctx.batches.size;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    const instance = randomUUID();
    while (inFlightAtKill < 0) {
      const batch = makeBatch(ctx.next++, ctx.workspaceId, instance);
      ctx.batches.set(batch.n, batch);
      let r;
      inFlight++;
      try {
        r = await post(server.url, ctx.apiKey, batch);
      } catch {
        continue; // no answer: stored or not, the re-send below finds out
      } finally {
        inFlight--;
      }
      if (r.status !== 202) { unexpected.push(`batch ${batch.n}: ${r.status} ${JSON.stringify(r.json)}`); continue; }
      ctx.acked.add(batch.n);
      ctx.ackedInStream.push(batch.n);
      if (r.json !== null && (r.json.accepted !== batch.size || r.json.rejected.length !== 0)) unexpected.push(`batch ${batch.n}: ${JSON.stringify(r.json)}`);
      if (++acks >= killAfter && inFlightAtKill < 0) {
        inFlightAtKill = inFlight;
        server.child.kill('SIGKILL');
      }
    }
  }));
  const exit = await server.exited;
  return { acks, sent: ctx.batches.size - sentBefore, inFlightAtKill, unexpected, exit };
}

/** Every /crash event in the workspace, through the read API: batch number -> matched values. */
async function storedBatches(server, ctx) {
  const client = new Client(server.url);
  await client.signIn(ctx.owner.email, ctx.owner.password);
  /** @type {Map<number, string[]>} */
  const byBatch = new Map();
  let cursor = null;
  do {
    const r = await client.request('GET', `/v1/workspaces/${ctx.workspaceId}/events?app=crash&limit=500${cursor === null ? '' : `&cursor=${cursor}`}`);
    if (r.status !== 200) throw new Error(`events read failed: ${r.status} ${r.text}`);
    for (const e of r.json.events) {
      const n = Number(e.route.slice('/crash/'.length));
      if (!byBatch.has(n)) byBatch.set(n, []);
      byBatch.get(n).push(e.matched);
    }
    cursor = r.json.next_cursor;
  } while (cursor !== null);
  return byBatch;
}

const isWhole = (got, batch) => {
  const want = expectedMatched(batch);
  const sorted = [...(got ?? [])].sort();
  return sorted.length === want.length && sorted.every((m, i) => m === want[i]);
};

/**
 * What is wrong with the stored batches: a batch that got 202 (or, with `complete`, any batch)
 * not stored exactly once; any batch stored in part or more than once; events of no batch.
 */
function problemsOf(ctx, byBatch, { complete }) {
  const out = [];
  for (const n of byBatch.keys()) if (!ctx.batches.has(n)) out.push(`events of unknown batch ${n}`);
  for (const b of ctx.batches.values()) {
    const got = byBatch.get(b.n);
    if (isWhole(got, b)) continue;
    const count = got?.length ?? 0;
    if (ctx.acked.has(b.n)) out.push(`batch ${b.n} got 202 but has ${count} of its ${b.size} events`);
    else if (count !== 0) out.push(`batch ${b.n} (no answer) is stored in part: ${count} of ${b.size} events`);
    else if (complete) out.push(`batch ${b.n} is missing after its re-send`);
  }
  return out;
}

describe('kill -9 while batches stream in', () => {
  it('every batch that got 202 is stored exactly once, none in part; re-sends complete the set', async () => {
    let server = await startServerProcess(dataDir);
    const { bootstrap } = server;
    expect(bootstrap).not.toBeNull();
    const ctx = {
      workspaceId: bootstrap.workspace_id, apiKey: bootstrap.api_key, owner: bootstrap.owner,
      next: 1, batches: new Map(), acked: new Set(), ackedInStream: [],
    };
    const rounds = [];
    try {
      for (const base of KILL_AFTER) {
        ctx.ackedInStream = [];
        const round = await streamAndKill(server, ctx, base + Math.floor(Math.random() * 60));
        expect(round.unexpected).toEqual([]);
        expect(round.exit.signal).toBe('SIGKILL');
        expect(round.inFlightAtKill).toBeGreaterThan(0);

        // restart on the same data directory
        server = await startServerProcess(dataDir);
        expect(server.bootstrap).toBeNull();
        const afterCrash = await storedBatches(server, ctx);
        expect(problemsOf(ctx, afterCrash, { complete: false })).toEqual([]);

        // re-send what got no answer: 202, replayed exactly when the crash left it stored
        const unanswered = [...ctx.batches.values()].filter((b) => !ctx.acked.has(b.n));
        const resendProblems = [];
        let committedUnanswered = 0;
        await onConnections(unanswered, async (b) => {
          const wasStored = isWhole(afterCrash.get(b.n), b);
          if (wasStored) committedUnanswered++;
          const r = await post(server.url, ctx.apiKey, b);
          if (r.status !== 202) resendProblems.push(`re-send of batch ${b.n}: ${r.status} ${JSON.stringify(r.json)}`);
          else if ((r.replayed === 'true') !== wasStored) resendProblems.push(`re-send of batch ${b.n}: Idempotent-Replayed ${r.replayed}, but it was ${wasStored ? '' : 'not '}stored`);
          else if (r.json?.accepted !== b.size) resendProblems.push(`re-send of batch ${b.n}: ${JSON.stringify(r.json)}`);
          else ctx.acked.add(b.n);
        });
        // re-send what got 202 in this round: replayed, with the first answer
        await onConnections(ctx.ackedInStream.map((n) => ctx.batches.get(n)), async (b) => {
          const r = await post(server.url, ctx.apiKey, b);
          if (r.status !== 202 || r.replayed !== 'true' || r.json?.accepted !== b.size) {
            resendProblems.push(`re-send of acknowledged batch ${b.n}: ${r.status}, Idempotent-Replayed ${r.replayed}, ${JSON.stringify(r.json)}`);
          }
        });
        expect(resendProblems).toEqual([]);

        const afterResend = await storedBatches(server, ctx);
        expect(problemsOf(ctx, afterResend, { complete: true })).toEqual([]);
        rounds.push({ sent: round.sent, acked: round.acks, inFlightAtKill: round.inFlightAtKill, unanswered: unanswered.length, committedUnanswered });
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    console.log(`crash rounds: ${JSON.stringify(rounds)}`);

    // the same totals straight from the store: events, rollups and fleet moved together
    const store = await openSqliteStore({ dataDir });
    try {
      const all = [...ctx.batches.values()];
      const total = all.reduce((s, b) => s + b.size, 0);
      expect(await store.countEvents(ctx.workspaceId)).toBe(total);
      const overview = await store.overview(ctx.workspaceId, { from: new Date(Date.now() - DAY).toISOString().slice(0, 10), to: new Date(Date.now() + DAY).toISOString().slice(0, 10), app: 'crash' });
      expect(overview.totals.allow + overview.totals.deny).toBe(total);
      expect(overview.totals.allow).toBe(all.reduce((s, b) => s + Math.ceil(b.size / 3), 0));
      const fleetEvents = (await store.fleet(ctx.workspaceId)).reduce((s, f) => s + f.events, 0);
      expect(fleetEvents).toBe(all.filter((b) => b.envelope).reduce((s, b) => s + b.size, 0));
    } finally {
      await store.close();
    }
  }, 60_000);
});
