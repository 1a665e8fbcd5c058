// The server of bench/http-phases.mjs: bench:http's `shield` subject (express.json,
// express.urlencoded, shield({ telemetry: false }), the same two routes), with timers around
// shield() and around the engine's one wasm call per request. Nothing in dist/ is changed:
// - shield(): a middleware just before it and one just after it read performance.now(); the
//   difference is shield()'s own time for every request it passes on with next() (all three
//   scenarios in the default sanitize mode);
// - the engine: WebAssembly.Instance is wrapped before the bindings load, so that their
//   instance's `scan_batch` export is a function that times the real one. With `--repeat`, a
//   call that found nothing is made a second time at once on the same batch (the same input,
//   the same result: nothing found, nothing written), which shows what the call costs with its
//   code and data just used; the repeat is left out of shield()'s time.
//
//   forked by bench/http-phases.mjs: node bench/http-phases-server.mjs [--repeat]

const REPEAT = process.argv.includes('--repeat');
const acc = { requests: 0, shieldMs: 0, calls: 0, callMs: 0, repeats: 0, repeatMs: 0 };

const RealInstance = WebAssembly.Instance;
let inRepeat = 0; // ms spent in repeats during the current request (taken out of shield()'s time)
WebAssembly.Instance = function Instance(module, imports) {
  const instance = new RealInstance(module, imports);
  const real = instance.exports.scan_batch;
  const exportsCopy = { ...instance.exports };
  exportsCopy.scan_batch = function scanBatch() {
    const t0 = performance.now();
    const count = real();
    const t1 = performance.now();
    acc.calls++;
    acc.callMs += t1 - t0;
    if (REPEAT && count === 0) {
      real();
      const d = performance.now() - t1;
      acc.repeats++;
      acc.repeatMs += d;
      inRepeat += d;
    }
    return count;
  };
  return { exports: Object.freeze(exportsCopy) };
};

const { default: express } = await import('express');
const { shield } = await import('../dist/middleware/index.js');

const app = express();
app.use(express.json());
app.use(express.urlencoded({ extended: false }));
let started = 0;
app.use((req, res, next) => {
  inRepeat = 0;
  started = performance.now();
  next();
});
app.use(shield({ telemetry: false }));
app.use((req, res, next) => {
  acc.shieldMs += performance.now() - started - inRepeat;
  acc.requests++;
  next();
});
app.get('/search', (req, res) => res.json({ q: req.query.q, page: req.query.page, n: 3 }));
app.post('/api/items', (req, res) => res.json({ ok: true, fields: req.body ? Object.keys(req.body).length : 0 }));

const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.stats) {
    const u = process.cpuUsage();
    process.send({ stats: { ...acc, cpuUs: u.user + u.system } });
  } else if (m.exit) {
    process.exit(0);
  }
});
