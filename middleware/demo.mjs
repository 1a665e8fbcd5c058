#!/usr/bin/env node
// `npm start` for this milestone: a small Express app protected by shield(), on
// http://127.0.0.1:3000 (PORT to change it). It prints one line per decision event, sends
// itself a few benign and hostile requests so there is something to see, then keeps serving:
// try `curl 'http://127.0.0.1:3000/search?q=<script>alert(1)</script>'`. With SHIELD_ENDPOINT,
// SHIELD_WORKSPACE_ID and SHIELD_KEY set, the events also go to that control plane:
// `npm start` (`shield demo`, cli/src/commands/demo.js) runs it that way, beside a control plane.
import express from 'express';
import { shield, errorHandler, telemetryClient } from '@shield/node';

const port = Number(process.env.PORT ?? 3000);
const app = express();
app.use(express.json());
app.use(express.urlencoded({ extended: false }));
app.use(shield({
  appId: process.env.SHIELD_APP_ID || 'demo-app',
  onDecision: (e, { findings }) => {
    const what = e.vector === 'none' ? '' : `  ${e.vector} ${e.rule} matched ${JSON.stringify(e.matched)}${findings.length > 1 ? ` (+${findings.length - 1} more)` : ''}`;
    console.log(`${e.timestamp}  ${e.decision.padEnd(5)} ${e.action.padEnd(9)} ${e.method} ${e.route}${what}`);
  },
}));
app.get('/search', (req, res) => res.json({ results: [], q: req.query.q ?? '' }));
app.post('/comments', (req, res) => res.status(201).json({ saved: req.body }));
app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
app.use(errorHandler());

const server = app.listen(port, '127.0.0.1', async () => {
  const base = `http://127.0.0.1:${port}`;
  console.log(`demo app protected by shield() on ${base} (telemetry ${telemetryClient() ? 'on' : 'off: local only'}); Ctrl-C stops it\n`);
  const samples = [
    ['GET', '/search?q=red+running+shoes'],
    ['GET', "/search?q=1'%20OR%201=1--"],
    ['GET', '/users/42'],
    ['GET', '/users/..%2F..%2Fetc%2Fpasswd'],
    ['POST', '/comments', { author: "O'Brien", text: 'Great post, thanks!' }],
    ['POST', '/comments', { author: 'x', text: '<img src=x onerror=alert(document.cookie)>' }],
    ['POST', '/comments', { author: { $ne: null }, text: 'hi' }],
  ];
  for (const [method, path, body] of samples) {
    const res = await fetch(base + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
    console.log(`   -> ${res.status} ${(await res.text()).slice(0, 120)}`);
  }
  console.log('\nlistening; send your own requests');
});

process.on('SIGINT', async () => {
  server.close();
  await telemetryClient()?.close();
  process.exit(0);
});
