// shield()'s middleware called directly in a loop (no HTTP, no Express): what the middleware
// itself costs per request, and, with --against, the same against another build in the same
// process, the two taking turns round by round (paired differences: this machine's speed drifts
// by more than the effects measured here between separate runs).
//
//   node bench/middleware-direct.mjs [--dist DIST] [--against OTHER_DIST] [--scenarios get,post,attack] [--events] [--express] [--rounds R] [--requests N]
//
// DIST is the build measured (default: this checkout's dist/); OTHER_DIST another build's dist/
// folder (for example a git worktree of an earlier commit, built). Both builds in one process
// share Node's own code (EventEmitter, http), whose inline caches each build's calls shape: with
// --events the paired figures moved by 2 us between runs, so compare event paths in separate
// processes (--dist, alternating runs) instead. Scenarios are those of `npm run bench:http`: the GET with a query, the 1 KB benign JSON
// POST (already parsed, as express.json() leaves it), and the same POST carrying an attack
// (sanitize mode). Each request gets fresh node:http request and response objects, made outside
// the timed part; the response already carries X-Powered-By as Express's would. --events adds
// a no-op onDecision, so the decision event is built and the response's 'close' (emitted after
// each call) delivers it. Prints ns per request (median over rounds, the first two rounds left
// out as warm-up) and the paired difference. --express gives each request what Express 5's
// app.handle() and router give it before an app-level middleware runs: the two objects' prototypes
// set to the app's request and response (Object.setPrototypeOf), then req.res, res.req,
// res.locals, req.next and req.baseUrl added. In V8 (Node 20) an object whose prototype was set
// that way gets a map of its own with each property added after it, so in an Express app every
// property read on req and res misses the inline caches (about 0.1-0.25 us) and every property
// added to them costs about 1 us: the figures with --express are the ones that match an Express
// server (bench:http), those without show the middleware's own code. Nothing is asserted.
import http from 'node:http';
import { Socket } from 'node:net';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { benignBody, attackBody } from './http-scenarios.mjs';

const argv = process.argv.slice(2);
const arg = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const here = path.dirname(fileURLToPath(import.meta.url));
const load = async (dist) => (await import(pathToFileURL(path.resolve(dist, 'middleware', 'index.js')).href)).shield;
const builds = { this: await load(arg('dist', path.join(here, '..', 'dist'))) };
const against = arg('against', null);
if (against !== null) builds.other = await load(against);
const scenarios = arg('scenarios', 'get,post,attack').split(',');
const events = argv.includes('--events');
const ROUNDS = Number(arg('rounds', 14));
const N = Number(arg('requests', 20000));
const WARM = 2;
const expressLike = argv.includes('--express');
const xapp = expressLike ? (await import('express')).default() : null;

const bodies = { post: benignBody, attack: attackBody };
const socket = new Socket();

function request(scenario) {
  const req = new http.IncomingMessage(socket);
  if (scenario === 'get') {
    req.method = 'GET';
    req.url = '/search?q=red+running+shoes&page=2&sort=price_asc&size=9';
    req.query = { q: 'red running shoes', page: '2', sort: 'price_asc', size: '9' };
    req.headers = { host: 'localhost' };
  } else {
    req.method = 'POST';
    req.url = '/api/items';
    req.query = {};
    req.body = JSON.parse(bodies[scenario]);
    req.headers = { host: 'localhost', 'content-type': 'application/json', 'content-length': String(bodies[scenario].length) };
  }
  req.originalUrl = req.url;
  const res = new http.ServerResponse(req);
  res.setHeader('X-Powered-By', 'Express');
  if (xapp !== null) {
    // as Express 5's app.handle() and router.handle() leave them
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, xapp.request);
    Object.setPrototypeOf(res, xapp.response);
    res.locals = Object.create(null);
    req.next = next;
    req.baseUrl = '';
  }
  return [req, res];
}

const median = (a) => { const b = [...a].sort((x, y) => x - y); return b[b.length >> 1]; };
let nexts = 0;
const next = () => { nexts++; };
console.log(`middleware-direct: ${Object.keys(builds).join(' vs ')}${against ? ` (${against})` : ''}; ${ROUNDS} rounds of ${N} requests (first ${WARM} left out); events ${events ? 'on (no-op onDecision)' : 'off'}; ${xapp !== null ? 'Express request and response' : 'node:http request and response'}; Node ${process.version}`);
for (const scenario of scenarios) {
  const mws = Object.fromEntries(Object.entries(builds).map(([k, shield]) => [k, shield(events ? { telemetry: false, onDecision: () => {} } : { telemetry: false })]));
  const times = Object.fromEntries(Object.keys(mws).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = (r & 1) ? Object.keys(mws).reverse() : Object.keys(mws);
    for (const name of order) {
      const mw = mws[name];
      let t = 0n;
      for (let done = 0; done < N; done += 1000) {
        const pairs = Array.from({ length: Math.min(1000, N - done) }, () => request(scenario));
        for (const [req, res] of pairs) {
          const t0 = process.hrtime.bigint();
          mw(req, res, next);
          if (events) res.emit('close');
          t += process.hrtime.bigint() - t0;
        }
      }
      if (r >= WARM) times[name].push(Number(t) / N);
    }
  }
  let line = `${scenario.padEnd(7)}`;
  for (const [name, a] of Object.entries(times)) line += `  ${name} ${median(a).toFixed(0)} ns`;
  if (against) {
    const diffs = times.other.map((o, i) => o - times.this[i]);
    line += `  (other - this: median ${median(diffs).toFixed(0)} ns, rounds ${Math.min(...diffs).toFixed(0)} to ${Math.max(...diffs).toFixed(0)})`;
  }
  console.log(line);
}
if (nexts === 0) throw new Error('the middleware never called next()');
