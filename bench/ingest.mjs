// `npm run bench:ingest`: the control plane's ingest and overview speed, over real HTTP on
// 127.0.0.1 into a real sqlite file.
//
//   node bench/ingest.mjs [--duration S] [--connections C] [--batch N] [--encoding br|gzip] [--events M] [--queries Q] [--skip-overview]
//
// 1. Ingest: autocannon posts telemetry envelopes of N events (default 500), brotli at quality 1
//    as the Node SDK sends them (or gzip at level 1 with --encoding gzip), each with
//    its own Idempotency-Key, on C connections (default 8) for S seconds (default 20). Prints
//    events/s, latency p50/p99, errors, and a count check: the events in the database must be
//    exactly 202-answered batches x N (nothing acknowledged missing, nothing extra).
// 2. Overview: tops the database up to M events (default 5,000,000: 30 days, 2,000 routes,
//    20,000 addresses, 3 apps) through the store, restarts the server, and times Q overview
//    requests (default 200; last 7 days, last 30 days, one app) over HTTP with a session.
// Targets: >= 50,000 events/s; overview p95 <= 100 ms at 5 million events. Nothing asserted.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import { randomBytes, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { openSqliteStore } from '@shield/control-plane';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const DURATION = Number(arg('duration', 20));
const CONNECTIONS = Number(arg('connections', 8));
const BATCH = Number(arg('batch', 500));
const TARGET_EVENTS = Number(arg('events', 5_000_000));
const QUERIES = Number(arg('queries', 200));
const SKIP_OVERVIEW = process.argv.includes('--skip-overview');
const ENCODING = arg('encoding', 'br');
if (ENCODING !== 'br' && ENCODING !== 'gzip') throw new Error(`--encoding must be br or gzip; got ${ENCODING}`);
const BROTLI = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1, [zlibConstants.BROTLI_PARAM_LGWIN]: 20 } };
const DAY_MS = 86_400_000;

const VECTORS = ['xss', 'sql', 'path', 'command', 'nosql', 'ssti', 'ssrf', 'prototype'];
const ips = Array.from({ length: 20_000 }, () => randomBytes(32).toString('hex'));
const routes = Array.from({ length: 2_000 }, (_, i) => `/api/v1/resource-${i}/:id`);
const pick = (a) => a[Math.floor(Math.random() * a.length)];

/** One realistic event: ~70% clean allows, the rest denies of several vectors. */
function event(ws, ts) {
  const deny = Math.random() < 0.3;
  const vector = deny ? pick(VECTORS) : 'none';
  return {
    workspace_id: ws, app_id: pick(['shop', 'api', 'admin']), sdk: '@shield/node', sdk_version: '0.1.0',
    decision: deny ? 'deny' : 'allow', action: deny ? 'blocked' : 'passed', vector, rule: deny ? `patterns.${vector}.sample-rule` : 'none',
    matched: deny ? "<script>alert(document.cookie)</script>' OR '1'='1" : '', route: pick(routes), method: pick(['GET', 'GET', 'POST', 'PUT']),
    ip_hash: pick(ips), timestamp: new Date(ts).toISOString(),
  };
}

async function startChild(dataDir) {
  const child = spawn(process.execPath, [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF] : []), new URL('./ingest-server.mjs', import.meta.url).pathname, dataDir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, ...JSON.parse(line) };
}

async function stopChild(child) {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const dataDir = mkdtempSync(join(tmpdir(), 'shield-bench-ingest-'));
try {
  let server = await startChild(dataDir);
  const { workspace_id: ws, api_key: key, owner } = server.bootstrap;

  // ---- 1. ingest --------------------------------------------------------------------
  // Each request is built when it is sent, so its timestamps are the current time as an
  // SDK's would be: 64 templates of N pre-serialized events, stamped and compressed per request.
  const TEMPLATES = 64;
  const templates = Array.from({ length: TEMPLATES }, () => {
    const instance = randomUUID();
    const events = Array.from({ length: BATCH }, () => {
      const json = JSON.stringify(event(ws, 0));
      return json.slice(0, json.lastIndexOf(',"timestamp":'));
    });
    return { instance, events };
  });
  const bodyAt = (i) => {
    const t = templates[i % TEMPLATES];
    const now = Date.now();
    let out = `{"sdk":"@shield/node","sdk_version":"0.1.0","app_id":"shop","workspace_id":"${ws}","instance_id":"${t.instance}","kind":"events","sent_at":"${new Date(now).toISOString()}","dropped":0,"events":[`;
    for (let k = 0; k < t.events.length; k++) out += `${k === 0 ? '' : ','}${t.events[k]},"timestamp":"${new Date(now - k * 3).toISOString()}"}`;
    return ENCODING === 'br' ? brotliCompressSync(`${out}]}`, BROTLI) : gzipSync(`${out}]}`, { level: 1 });
  };
  console.log(`ingest: ${CONNECTIONS} connections, ${DURATION} s, ${BATCH} events per batch (${ENCODING} ~${Math.round(bodyAt(0).length / 1024)} KB, stamped and compressed per request)`);
  let n = 0;
  let accepted = 0;
  const acknowledged = [];
  let other = 0;
  const statuses = {};
  const loadCpu0 = process.cpuUsage();
  const result = await autocannon({
    url: `${server.url}/v1/events`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [{
      method: 'POST',
      setupRequest: (req, context) => {
        const i = n++;
        context.batch = i;
        return {
          ...req,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': ENCODING, 'idempotency-key': `bench-${i}` },
          body: bodyAt(i),
        };
      },
      onResponse: (status, body, context) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 202) {
          accepted += JSON.parse(body).accepted;
          acknowledged.push(context.batch);
        } else other++;
      },
    }],
  });
  const loadCpu = process.cpuUsage(loadCpu0);
  const server1cpu = await new Promise((resolve) => { server.child.once('message', (m) => resolve(m.cpu)); server.child.send('cpu'); });
  await stopChild(server.child);
  const store = await openSqliteStore({ dataDir, synchronous: 'NORMAL', writerThread: true });
  const stored = await store.countEvents(ws);
  // Every 202-answered batch must be there whole, and nothing else: batches still in flight
  // when the run ended may be stored too, but only whole (their keys are in the table).
  const keys = new Set((await store.db.all("SELECT key FROM idempotency WHERE key LIKE 'bench-%'")).map((r) => r.key));
  const missing = acknowledged.filter((i) => !keys.has(`bench-${i}`)).length;
  const whole = stored === keys.size * BATCH;
  const eventsPerS = accepted / DURATION;
  console.log(`  batches answered: ${JSON.stringify(statuses)}; errors (non-202, timeouts, resets): ${other + result.errors + result.timeouts}`);
  console.log(`  events/s: ${Math.round(eventsPerS).toLocaleString('en-US')} (target >= 50,000)`);
  console.log(`  latency per batch: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
  console.log(`  CPU: server ${((server1cpu.user + server1cpu.system) / 1e6).toFixed(1)} s (${((server1cpu.user + server1cpu.system) / accepted).toFixed(1)} us per event), load generator ${((loadCpu.user + loadCpu.system) / 1e6).toFixed(1)} s, over ${DURATION} s on ${(await import('node:os')).availableParallelism()} cores`);
  console.log(`  count check: ${acknowledged.length} batches acknowledged, ${missing} of them missing; ${keys.size} batches stored holding ${stored.toLocaleString('en-US')} events (${whole ? 'all whole' : 'NOT whole'}) -> ${missing === 0 && whole ? 'OK' : 'FAILED'}`);
  const summary = { ingest: { eventsPerS: Math.round(eventsPerS), p50: result.latency.p50, p99: result.latency.p99, errors: other + result.errors + result.timeouts, acknowledgedEvents: accepted, storedEvents: stored, missingBatches: missing, whole } };

  // ---- 2. overview at millions of events ----------------------------------------------
  if (!SKIP_OVERVIEW) {
    const now = Date.now();
    let have = stored;
    const t0 = performance.now();
    process.stdout.write(`overview: seeding to ${TARGET_EVENTS.toLocaleString('en-US')} events over 30 days through the store`);
    let lastPrint = t0;
    // eight batches in flight, as eight SDK connections would be: they share group commits
    const inflight = new Set();
    while (have < TARGET_EVENTS) {
      const size = Math.min(1000, TARGET_EVENTS - have);
      const events = [];
      for (let i = 0; i < size; i++) {
        const e = event(ws, now - Math.floor(Math.random() * 30 * DAY_MS));
        events.push({ ...e, ts: Date.parse(e.timestamp), ip: null });
      }
      const p = store.ingestEvents({ workspaceId: ws, events, envelope: null, idempotencyKey: null, requestHash: '', response: { accepted: size, rejected: [] }, receivedAt: now });
      inflight.add(p);
      p.then(() => inflight.delete(p));
      if (inflight.size >= 8) await Promise.race(inflight);
      have += size;
      if (performance.now() - lastPrint > 10_000) {
        lastPrint = performance.now();
        process.stdout.write(` ${(have / 1e6).toFixed(1)}M`);
      }
    }
    await Promise.all(inflight);
    console.log(` (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    // the maintenance the server runs at start and hourly (retention, compaction of past days)
    const t1 = performance.now();
    const maintenance = await store.applyRetention();
    console.log(`  maintenance: ${JSON.stringify(maintenance)} in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    await store.close();
    server = await startChild(dataDir);
    // a session, as the dashboard has
    const csrfRes = await fetch(`${server.url}/v1/auth/csrf`);
    const cookie1 = csrfRes.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = (await csrfRes.json()).csrf_token;
    const login = await fetch(`${server.url}/v1/auth/login`, { method: 'POST', headers: { cookie: cookie1, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: JSON.stringify({ email: owner.email, password: owner.password }) });
    const cookie = [cookie1, ...login.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
    const day = (ms) => new Date(ms).toISOString().slice(0, 10);
    const queries = [
      `from=${day(now - 6 * DAY_MS)}&to=${day(now)}`,
      `from=${day(now - 29 * DAY_MS)}&to=${day(now)}`,
      `from=${day(now - 29 * DAY_MS)}&to=${day(now)}&app=api`,
    ];
    const times = [];
    let check = null;
    for (let i = 0; i < QUERIES; i++) {
      const t = performance.now();
      const r = await fetch(`${server.url}/v1/workspaces/${ws}/overview?${queries[i % queries.length]}`, { headers: { cookie } });
      const body = await r.json();
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`overview answered ${r.status}: ${JSON.stringify(body)}`);
      if (i === 1) check = body;
    }
    times.sort((a, b) => a - b);
    const total30 = check.totals.allow + check.totals.deny;
    // the events feed: first page, unfiltered and with filters (no index but time: they scan)
    const feed = {};
    for (const [name, q] of [['newest 50', ''], ['deny', 'decision=deny'], ['vector=ssrf', 'vector=ssrf'], ['one address', `ip_hash=${ips[0]}`], ['one route, last 24 h', `route=${encodeURIComponent(routes[0])}&from=${new Date(now - DAY_MS).toISOString()}`]]) {
      const t = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const r = await fetch(`${server.url}/v1/workspaces/${ws}/events?limit=50${q ? `&${q}` : ''}`, { headers: { cookie } });
        await r.json();
        t.push(performance.now() - t0);
      }
      t.sort((a, b) => a - b);
      feed[name] = Math.round(t[2]);
    }
    console.log(`  events feed, first page of 50, median ms: ${Object.entries(feed).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    console.log(`  ${QUERIES} overview requests: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms (target p95 <= 100 ms)`);
    console.log(`  the 30-day overview counts ${total30.toLocaleString('en-US')} events (database: ${have.toLocaleString('en-US')})`);
    summary.overview = { events: have, p50: pct(times, 50), p95: pct(times, 95), counted30d: total30, feedMedianMs: feed };
    await stopChild(server.child);
  } else {
    await store.close();
  }
  console.log(JSON.stringify(summary));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
