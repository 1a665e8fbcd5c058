// Dense shapes built from the rules' own params, engine alone: every literal param of every rule
// repeated to 1 MB in five forms (the param, with a space after, with "x " after, with its last unit
// replaced by a space, with a space before), each timed against the 1 MB benign text of
// `npm run bench`. The linear-time probe of `npm run bench` holds the families the issue names;
// this finds the shapes a param makes expensive (each occurrence verified, anchored or judged),
// which the probe does not try.
//
//   npm run build && node bench/param-sweep.mjs [path to a shield.wasm] [--top 30]   (~1-2 min)
//
// Prints the benign time and the `--top` slowest shapes with their ratio to it, best of 3 calls
// each (a first pass of one call per shape picks them). Nothing is asserted.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benignText } from './inputs.mjs';
import { loadRuleFiles } from '../assembly/gen/rules-gen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const ti = args.indexOf('--top');
const top = ti >= 0 ? Number(args[ti + 1]) : 30;
const wasmPath = args.find((a) => a.endsWith('.wasm')) ?? path.join(here, '../build/shield.wasm');
const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), { env: { abort() { throw new Error('shield.wasm aborted'); } } });
const ex = instance.exports;
if (ex.init(ex.rules_default_ptr(), ex.rules_default_len()) < 0) throw new Error('rule blob rejected');
ex.set_max_value_length(1 << 21);
const n = 1 << 20;

function time(s, calls) {
  const p = ex.batch_reserve(1, s.length);
  const dv = new DataView(ex.memory.buffer);
  dv.setUint32(p, 1, true);
  dv.setUint32(p + 4, 0, true);
  dv.setUint32(p + 8, s.length, true);
  const u16 = new Uint16Array(ex.memory.buffer, p + 12, s.length);
  for (let i = 0; i < s.length; i++) u16[i] = s.charCodeAt(i);
  if (ex.scan_batch() < 0) throw new Error('batch rejected');
  let best = Infinity;
  for (let r = 0; r < calls; r++) {
    const t0 = process.hrtime.bigint();
    ex.scan_batch();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

const benign = benignText(n);
const units = new Set();
for (const r of loadRuleFiles()) {
  for (const p of r.params ?? []) {
    if (typeof p !== 'string' || p.length < 2 || p.length > 40) continue;
    units.add(p); units.add(p + ' '); units.add(p + 'x '); units.add(p.slice(0, -1) + ' '); units.add(' ' + p);
  }
}
const repeated = (u) => u.repeat(Math.ceil(n / u.length)).slice(0, n);
const first = [];
for (const u of units) first.push([time(repeated(u), 1), u]);
first.sort((a, b) => b[0] - a[0]);
const base = time(benign, 5);
const rows = first.slice(0, top).map(([, u]) => [time(repeated(u), 3), u]).sort((a, b) => b[0] - a[0]);
console.log(`engine ${path.relative(process.cwd(), wasmPath)}; ${units.size} shapes; benign 1 MB ${base.toFixed(2)} ms (best of 5)`);
for (const [t, u] of rows) console.log(`${(t / base).toFixed(1).padStart(5)}x ${t.toFixed(2).padStart(7)} ms  ${JSON.stringify(u)}`);
