// The @aikidosec/firewall (Zen) subject of `npm run bench:http`, as CommonJS: on Node 20 Zen
// protects only CommonJS apps (its ESM hooks need module.registerHooks, Node 22+). Same routes
// and IPC as bench/http-server.mjs. Zen judges inputs where they reach a sink (SQL, shell, file
// system, outbound HTTP); these routes have none, so this measures its per-request tracking.
process.env.AIKIDO_BLOCK = 'true';
require('@aikidosec/firewall');
const express = require('express');

const app = express();
app.use(express.json());
app.use(express.urlencoded({ extended: false }));
app.get('/search', (req, res) => res.json({ q: req.query.q, page: req.query.page, n: 3 }));
app.post('/api/items', (req, res) => res.json({ ok: true, fields: req.body ? Object.keys(req.body).length : 0 }));
const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.cpu) {
    const u = process.cpuUsage();
    process.send({ cpu: u.user + u.system });
  } else if (m.flush) {
    process.send({ flushed: true, stats: null });
  } else if (m.exit) {
    process.exit(0);
  }
});
