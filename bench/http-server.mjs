// One subject of `npm run bench:http`, in its own process so its CPU time is its own:
//   node bench/http-server.mjs <subject>
// Listens on 127.0.0.1 (a free port) and talks to the parent over IPC: it sends
// { port } when ready, answers { cpu: true } with its process.cpuUsage() (microseconds) and
// { flush: true } by flushing telemetry. Subjects: see SUBJECTS below (@aikidosec/firewall runs
// from bench/http-server-aikido.cjs). `telemetry-pair` is two apps in this one process, on two
// ports: shield() with telemetry on (`port`) and shield({ telemetry: false }) (`port2`), so that
// the telemetry comparison is not blurred by two processes' different heaps and JIT states.

import { createRequire } from 'node:module';

const subject = process.argv[2];
const require = createRequire(import.meta.url);


const { default: express } = await import('express');
const shieldPkg = await import('../dist/middleware/index.js');

function routes(app) {
  app.get('/search', (req, res) => res.json({ q: req.query.q, page: req.query.page, n: 3 }));
  app.post('/api/items', (req, res) => res.json({ ok: true, fields: req.body ? Object.keys(req.body).length : 0 }));
  return app;
}

// the patchwork many apps assemble today: helmet + express-rate-limit + hpp + an XSS filter
// (js-xss's filterXSS) over every string of the body and the query
async function patchwork(app) {
  const { default: helmet } = await import('helmet');
  const { rateLimit } = await import('express-rate-limit');
  const hpp = require('hpp');
  const { filterXSS } = require('xss');
  const clean = (v, depth = 0) => {
    if (typeof v === 'string') return filterXSS(v);
    if (depth > 32 || v === null || typeof v !== 'object') return v;
    for (const k of Object.keys(v)) v[k] = clean(v[k], depth + 1);
    return v;
  };
  app.use(helmet());
  app.use(rateLimit({ windowMs: 60_000, limit: 1e9, standardHeaders: 'draft-7', legacyHeaders: false }));
  app.use(express.json());
  app.use(express.urlencoded({ extended: false }));
  app.use(hpp());
  app.use((req, res, next) => {
    if (req.body) req.body = clean(req.body);
    const q = clean({ ...req.query });
    Object.defineProperty(req, 'query', { value: q, writable: true, configurable: true, enumerable: true });
    next();
  });
}

const SUBJECTS = {
  bare: async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); },
  shield: async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use(shieldPkg.shield({ telemetry: false })); },
  'shield-block': async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use(shieldPkg.shield({ block: true, telemetry: false })); },
  // telemetry on: the parent sets SHIELD_ENDPOINT (a local sink), SHIELD_WORKSPACE_ID and SHIELD_KEY
  'shield-telemetry': async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use(shieldPkg.shield()); },
  patchwork,
  // diagnostics (not in the default run; --subjects bare,diag-noop,diag-scan,headers,shield-noheaders,shield):
  // where shield's cost goes: an empty middleware, scanObject over the query and path alone, the
  // 16 headers alone, helmet alone, shield without its headers
  'shield-noheaders': async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use(shieldPkg.shield({ telemetry: false, headers: false })); },
  headers: async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use(shieldPkg.securityHeaders()); },
  'diag-scan': async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use((req, res, next) => { shieldPkg.scanObject({ query: req.query, path: req.url.split('?')[0].split('/') }); next(); }); },
  'diag-noop': async (app) => { app.use(express.json()); app.use(express.urlencoded({ extended: false })); app.use((req, res, next) => { next(); }); },
  helmet: async (app) => { const { default: helmet } = await import('helmet'); app.use(helmet()); app.use(express.json()); app.use(express.urlencoded({ extended: false })); },
};

const listen = (app) => new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s.address().port)); });
if (subject === 'telemetry-pair') {
  const on = express();
  await SUBJECTS['shield-telemetry'](on);
  const off = express();
  await SUBJECTS.shield(off);
  const port = await listen(routes(on));
  process.send({ port, port2: await listen(routes(off)) });
} else if (subject in SUBJECTS) {
  const app = express();
  await SUBJECTS[subject](app);
  process.send({ port: await listen(routes(app)) });
} else {
  console.error(`unknown subject ${subject}; one of ${Object.keys(SUBJECTS).join(', ')}, telemetry-pair`);
  process.exit(2);
}
process.on('message', async (m) => {
  if (m.cpu) {
    const u = process.cpuUsage();
    process.send({ cpu: u.user + u.system });
  } else if (m.flush) {
    await shieldPkg.telemetryClient()?.flush();
    const st = shieldPkg.telemetryClient()?.stats() ?? null;
    process.send({ flushed: true, stats: st });
  } else if (m.exit) {
    process.exit(0);
  }
});
