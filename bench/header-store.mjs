// The cost of setting the security headers on one response, in this process (no HTTP):
// securityHeaderSetter() as shield() runs it (stored straight into Node's header store, see
// headerStore() in middleware/security-headers.ts) against the same 15 headers through
// setHeader() and removeHeader('X-Powered-By') (what it did before, and what it still does on a
// runtime whose responses keep headers otherwise), on fresh ServerResponse objects that
// already carry X-Powered-By as Express's would.
//   node bench/header-store.mjs [--rounds R]
import http from 'node:http';
import { securityHeaderSetter, headerStore, SECURITY_HEADERS } from '../dist/middleware/security-headers.js';

const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 5) || 5;
const list = Object.entries(SECURITY_HEADERS).filter(([k]) => k !== 'Strict-Transport-Security');
const response = () => {
  const res = new http.ServerResponse(new http.IncomingMessage(undefined));
  res.setHeader('X-Powered-By', 'Express');
  return res;
};
const req = { secure: false, socket: {} };
const store = securityHeaderSetter();
const subjects = {
  'setHeader() x15 + removeHeader()': (res) => {
    for (let i = 0; i < list.length; i++) res.setHeader(list[i][0], list[i][1]);
    res.removeHeader('X-Powered-By');
  },
  'securityHeaderSetter()': (res) => store(req, res),
};
console.log(`header store found: ${String(headerStore())}; ${ROUNDS} rounds of 200,000 responses, ns per response (median)`);
const N = 200_000;
const times = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, f] of Object.entries(subjects)) {
    let t = 0n;
    for (let j = 0; j < N / 1000; j++) {
      const batch = Array.from({ length: 1000 }, response); // made outside the timed part
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batch.length; i++) f(batch[i]);
      t += process.hrtime.bigint() - t0;
    }
    times[name].push(Number(t) / N);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, xs] of Object.entries(times)) {
  console.log(`${name.padEnd(36)} ${median(xs).toFixed(0).padStart(6)} ns  (rounds: ${xs.map((x) => x.toFixed(0)).join(', ')})`);
}
