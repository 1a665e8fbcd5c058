// CPU cost of telemetry per decision event: enqueue plus everything the client does to deliver it
// (JSON, compression, HTTP), measured with process.cpuUsage() (user + system, all threads of the process,
// so compression in the libuv pool counts). A sink server in this process accepts and discards (202);
// its share is included. The same loop without the client is subtracted.
//
//   npx tsc -p tsconfig.json && node bench/telemetry-cpu.mjs [--events 100000] [--rounds 5] [--compression br|gzip|none]
//
// Events arrive in chunks of 50 per event-loop turn, as requests would, so the client sends
// while events keep coming. Target: <= 2 µs of CPU per event.

import http from 'node:http';
import { parseArgs } from 'node:util';
import { PerformanceObserver } from 'node:perf_hooks';
import { TelemetryClient } from '../dist/middleware/telemetry.js';
import { WORKSPACE, makeEvent } from './telemetry-events.mjs';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    compression: { type: 'string', default: 'br' },
    'batch-size': { type: 'string', default: '1000' },
    rate: { type: 'string', default: '0' },
  },
});
const N = Number(args.events);
const ROUNDS = Number(args.rounds);
const CHUNK = 50;
// --rate R: events per second, paced in chunks of 50 on timers (a busy server); 0: as fast as
// the event loop allows (a burst: the queue backs up, so nearly every event is held until sent).
const RATE = Number(args.rate);
let gcMs = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMs += e.duration; }).observe({ entryTypes: ['gc'] });

let bodyBytes = 0;
let requests = 0;
const sink = http.createServer((req, res) => {
  requests++;
  req.on('data', (d) => { bodyBytes += d.length; });
  req.on('end', () => res.writeHead(202, { 'Content-Type': 'application/json' }).end('{}'));
});
await new Promise((r) => sink.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${sink.address().port}/ingest/`;

const tick = RATE > 0
  ? () => new Promise((r) => setTimeout(r, (CHUNK / RATE) * 1000))
  : () => new Promise((r) => setImmediate(r));
let keep = 0; // folds every baseline event in, so the loop cannot be dropped as dead code

async function produce(consume, afterChunk = () => {}) {
  for (let i = 0; i < N; i += CHUNK) {
    const end = Math.min(N, i + CHUNK);
    for (let j = i; j < end; j++) consume(makeEvent(j));
    afterChunk();
    await tick();
  }
}

function cpu(start) {
  const d = process.cpuUsage(start);
  return d.user + d.system;
}

async function baseline() {
  gcMs = 0;
  const t = process.cpuUsage();
  await produce((e) => { keep += e.route.length; });
  return { used: cpu(t), gc: gcMs };
}

async function withClient() {
  const client = new TelemetryClient({
    endpoint, workspaceId: WORKSPACE, key: 'bench-key', appId: 'checkout-service',
    queueSize: N, batchSize: Number(args['batch-size']), compression: args.compression,
    onError: (e) => { throw e; },
  });
  bodyBytes = 0;
  requests = 0;
  gcMs = 0;
  let maxQueued = 0;
  const t = process.cpuUsage();
  await produce((e) => client.enqueue(e), () => {
    maxQueued = Math.max(maxQueued, client.stats().queued);
  });
  await client.flush();
  const used = cpu(t);
  const gc = gcMs;
  const s = client.stats();
  await client.close();
  if (s.sent !== N || s.dropped !== 0) throw new Error(`not all sent: ${JSON.stringify(s)}`);
  return { used, requests, bodyBytes, maxQueued, gc };
}

// Warm-up (JIT, sockets), then interleaved rounds.
await baseline();
await withClient();
const rows = [];
for (let r = 0; r < ROUNDS; r++) {
  const b = await baseline();
  const c = await withClient();
  rows.push({ perEvent: (c.used - b.used) / N, base: b.used / N, client: c.used / N, requests: c.requests, bytes: c.bodyBytes,
    maxQueued: c.maxQueued, gc: (c.gc - b.gc) * 1000 / N });
}
// enqueue() alone, the only part on the request path: pre-built events, nothing sent meanwhile.
async function enqueueOnly() {
  const client = new TelemetryClient({ endpoint, workspaceId: WORKSPACE, key: 'bench-key', appId: 'checkout-service',
    queueSize: N, batchSize: 1000, flushIntervalMs: 3_600_000 });
  const events = Array.from({ length: N }, (_, i) => makeEvent(i));
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) client.enqueue(events[i]);
  const used = cpu(t);
  await client.close();
  return used / N;
}
const enqueueCost = Math.min(await enqueueOnly(), await enqueueOnly(), await enqueueOnly());

const sorted = rows.map((x) => x.perEvent).sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
for (const x of rows) {
  console.log(`round: client loop ${x.client.toFixed(3)} µs/event, baseline ${x.base.toFixed(3)} µs/event, ` +
    `telemetry ${x.perEvent.toFixed(3)} µs/event (of which extra GC pauses ${x.gc.toFixed(3)}); ${x.requests} requests, ` +
    `${(x.bytes / N).toFixed(1)} body bytes/event, queue peak ${x.maxQueued}`);
}
console.log(`telemetry CPU per event (median of ${ROUNDS}, ${N} events, ${RATE > 0 ? `${RATE}/s` : 'burst'}, compression ${args.compression}, batch ${args['batch-size']}): ` +
  `${median.toFixed(3)} µs (target <= 2 µs: ${median <= 2 ? 'met' : 'NOT met'})  [sink ${keep % 10}]`);
console.log(`enqueue() alone (the request path): ${(enqueueCost * 1000).toFixed(0)} ns per event`);
sink.close();
