// A request whose values hold more findings than one engine batch records (4,096): before
// 2026-11-21 the values past that point reached the route untouched in sanitize mode.
import { describe, it, expect, afterAll } from 'vitest';
import { shield } from '../../dist/middleware/index.js';
import { EXPRESSES, listen } from './support.mjs';

describe.each(EXPRESSES)('%s: more findings than one batch records', (_name, express) => {
  const servers = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('sanitize mode: every one of 5,000 hostile body values is rewritten, in one sanitized event', async () => {
    const events = [];
    const app = express();
    app.use(express.json({ limit: '2mb' }));
    app.use(shield({ telemetry: false, headers: false, onDecision: (e) => events.push(e) }));
    app.post('/echo', (req, res) => res.json(req.body));
    const s = await listen(app);
    servers.push(s);
    const body = {};
    for (let i = 0; i < 5000; i++) body[`f${i}`] = `<script>alert(${i})</script>`;
    const res = await fetch(`${s.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const got = await res.json();
    expect(Object.keys(got)).toHaveLength(5000);
    const left = Object.entries(got).filter(([, v]) => /<script/i.test(v));
    expect(left.map(([k]) => k)).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0].action).toBe('sanitized');
  });
});
