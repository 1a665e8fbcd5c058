// Where shield()'s time goes inside a real HTTP server: bench:http's three scenarios sent to
// bench/http-phases-server.mjs (the `shield` subject of bench:http with timers), paced, and per
// request: the server's CPU, shield()'s own time, the engine's one wasm call, and (with its
// repeat on the same batch right after it) what that call costs with its code and data just
// used. The difference between the first call and the repeat is the cost of starting cold:
// between two requests Node's HTTP handling, Express and JSON.parse run and push the engine's
// code and tables out of the caches, which a loop over one call (bench/wasm-only.mjs,
// bench/middleware-direct.mjs) never shows.
//
//   npm run build && node bench/http-phases.mjs [--rounds 3] [--duration 5] [--rate 2000] [--warmup 2] [--no-repeat] [--scenarios 1,2] [--node-flags "--no-liftoff"]
//
// Each round starts a fresh server per scenario: warm-up, then `duration` seconds at `rate`
// requests per second on 8 connections; the figures are the medians of the rounds. The repeat
// adds work to the server (its CPU figure includes it; shield()'s time does not), so run with
// --no-repeat for the CPU figure bench:http would see. Nothing is asserted.

import { fork } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { SCENARIOS } from './http-scenarios.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(arg('rounds', 3));
const DURATION = Number(arg('duration', 5));
const RATE = Number(arg('rate', 2000));
const WARMUP = Number(arg('warmup', 2));
const REPEAT = !process.argv.includes('--no-repeat');
const ONLY = arg('scenarios', null)?.split(',') ?? null;
// flags for the server's Node (V8's among them): --node-flags "--no-liftoff"
const NODE_FLAGS = (arg('node-flags', '') ?? '').split(' ').filter((x) => x !== '');

function ask(child, msg, key) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (m && key in m) {
        child.off('message', on);
        resolve(m[key]);
      }
    };
    child.on('message', on);
    child.send(msg);
  });
}

const load = (url, sc, run) => autocannon({
  url: url + sc.path, method: sc.method, connections: 8, ...run,
  headers: sc.body ? { 'content-type': 'application/json' } : {}, body: sc.body,
});

async function round(sc) {
  const child = fork(new URL('./http-phases-server.mjs', import.meta.url), REPEAT ? ['--repeat'] : [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: NODE_FLAGS });
  const [ready] = await once(child, 'message');
  const url = `http://127.0.0.1:${ready.port}`;
  await load(url, sc, { duration: WARMUP });
  const a = await ask(child, { stats: true }, 'stats');
  const r = await load(url, sc, { duration: DURATION, overallRate: RATE });
  const b = await ask(child, { stats: true }, 'stats');
  child.send({ exit: true });
  await once(child, 'exit');
  if (r['2xx'] === 0 || r.non2xx > 0 || r.errors > 0) throw new Error(`${sc.name}: ${r['2xx']} answers 2xx, ${r.non2xx} others, ${r.errors} errors`);
  // the server's own count (a few requests of the warm-up finish after its snapshot)
  const passed = b.requests - a.requests;
  const calls = b.calls - a.calls;
  const repeats = b.repeats - a.repeats;
  return {
    cpu: (b.cpuUs - a.cpuUs) / passed,
    shield: (b.shieldMs - a.shieldMs) * 1000 / passed,
    call: (b.callMs - a.callMs) * 1000 / calls,
    callsPerRequest: calls / passed,
    repeat: repeats > 0 ? (b.repeatMs - a.repeatMs) * 1000 / repeats : NaN,
    repeatShare: repeats / calls,
  };
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (x) => (Number.isNaN(x) ? '-' : x.toFixed(2));

console.log(`http-phases: ${ROUNDS} rounds of ${DURATION} s at ${RATE} req/s per scenario after ${WARMUP} s of warm-up, 8 connections, shield({ telemetry: false }), Node ${process.version}${NODE_FLAGS.length ? ` ${NODE_FLAGS.join(' ')}` : ''}${REPEAT ? '' : ', no repeat'}`);
console.log('scenario                   server CPU us/req   shield() us   engine call us   repeat us   cold share of the call');
for (const sc of SCENARIOS.filter((_, i) => ONLY === null || ONLY.includes(String(i + 1)))) {
  const rs = [];
  for (let k = 0; k < ROUNDS; k++) rs.push(await round(sc));
  const m = (key) => median(rs.map((r) => r[key]));
  const call = m('call');
  const repeat = m('repeat');
  const cold = Number.isNaN(repeat) ? '-' : `${Math.round((1 - repeat / call) * 100)}%`;
  console.log(`${sc.name.padEnd(26)} ${f(m('cpu')).padStart(17)}   ${f(m('shield')).padStart(11)}   ${f(call).padStart(14)}   ${f(repeat).padStart(9)}   ${cold}` +
    `${m('repeatShare') < 1 && REPEAT ? `  (repeated ${Math.round(m('repeatShare') * 100)}% of calls: only calls that found nothing)` : ''}` +
    `${m('callsPerRequest') !== 1 ? `  (${f(m('callsPerRequest'))} calls per request)` : ''}`);
  console.log(`${''.padEnd(26)} rounds: shield() ${rs.map((r) => f(r.shield)).join(' / ')} us, call ${rs.map((r) => f(r.call)).join(' / ')} us`);
}
