// shield() with telemetry on (the three SHIELD_* variables set, pointing at a local sink):
// events reach the sink in brotli envelopes that validate against schema/, and the request path
// never waits: with the ingest endpoint hanging, every request still completes at once and
// the queue stays bounded. This file sets process.env before its first shield() call (the
// telemetry client is created once per process).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import express from 'express';
import Ajv2020 from 'ajv/dist/2020.js';
import { listen, waitFor } from './support.mjs';

const schema = (name) => JSON.parse(readFileSync(new URL(`../../schema/${name}`, import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addSchema(schema('event.schema.json'));
const validateEnvelope = ajv.compile(schema('envelope.schema.json'));

let mode = 'ok'; // 'ok' answers 202; 'hang' never answers
const envelopes = [];
const hung = [];
const sink = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (mode === 'hang') { hung.push(res); return; }
    const raw = Buffer.concat(chunks);
    const encoding = req.headers['content-encoding'];
    const body = encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;
    envelopes.push({ headers: req.headers, envelope: JSON.parse(body.toString('utf8')) });
    res.statusCode = 202;
    res.end('{}');
  });
});

let shield;
let telemetryClient;
beforeAll(async () => {
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  process.env.SHIELD_ENDPOINT = `http://127.0.0.1:${sink.address().port}`;
  process.env.SHIELD_WORKSPACE_ID = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
  process.env.SHIELD_KEY = 'sk_test_0123456789abcdef';
  ({ shield, telemetryClient } = await import('../../dist/middleware/index.js'));
});
afterAll(async () => {
  for (const res of hung) res.destroy();
  sink.closeAllConnections();
  await new Promise((r) => sink.close(r));
});

describe('telemetry from shield()', () => {
  it('events reach the ingest endpoint in valid envelopes with the workspace key', async () => {
    const app = express();
    app.use(shield({ appId: 'demo-app', telemetry: { flushIntervalMs: 50, queueSize: 200 } }));
    app.get('/users/:id', (req, res) => res.send('ok'));
    const s = await listen(app);
    await (await fetch(`${s.url}/users/7?q=<script>alert(1)</script>`)).text();
    await (await fetch(`${s.url}/users/8`)).text();
    await new Promise((r) => setTimeout(r, 20)); // the events are emitted when each response closes
    await telemetryClient().flush();
    await waitFor(() => envelopes.reduce((n, e) => n + e.envelope.events.length, 0) >= 2, 5000);
    const { headers, envelope } = envelopes.find((e) => e.envelope.kind === 'events');
    expect(headers.authorization).toBe('Bearer sk_test_0123456789abcdef');
    expect(headers['content-encoding']).toBe('br');
    expect(validateEnvelope(envelope), JSON.stringify(validateEnvelope.errors)).toBe(true);
    expect(envelope).toMatchObject({ app_id: 'demo-app', workspace_id: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f', sdk: '@shield/node' });
    const events = envelopes.flatMap((e) => e.envelope.events);
    expect(events.map((e) => e.decision).sort()).toEqual(['allow', 'deny']);
    expect(events.every((e) => e.route === '/users/:id' && e.workspace_id === envelope.workspace_id)).toBe(true);
    await s.close();
  });

  it('while the ingest endpoint hangs, requests complete at once and the queue stays bounded', async () => {
    mode = 'hang';
    const app = express();
    app.use(shield({ appId: 'demo-app' }));
    app.get('/x', (req, res) => res.send('ok'));
    const s = await listen(app);
    const client = telemetryClient();
    const times = [];
    for (let i = 0; i < 600; i++) {
      const t0 = performance.now();
      const res = await fetch(`${s.url}/x?i=${i}&q=${i % 2 ? '<script>x</script>' : 'fine'}`);
      expect(await res.text()).toBe('ok');
      times.push(performance.now() - t0);
    }
    await waitFor(() => hung.length >= 1, 5000); // a batch is in flight and its answer never comes
    times.sort((a, b) => a - b);
    const p50 = times[300];
    const worst = times[times.length - 1];
    console.log(`requests while ingest hangs: median ${p50.toFixed(2)} ms, worst ${worst.toFixed(2)} ms`);
    // no request waited on the hanging endpoint (its timeout is 10 s)
    expect(worst).toBeLessThan(1000);
    const st = client.stats();
    expect(st.queued).toBeLessThanOrEqual(200); // queueSize of the client made in the first test
    expect(st.dropped).toBeGreaterThan(0);
    await s.close();
  });
});
