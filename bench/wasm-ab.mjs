// Two or more engine builds alternated in one process, on 1 MB of repeated units (or the benign
// text): the comparison for a speed change, which single runs of bench/wasm-only.mjs cannot settle
// on this machine (it drifts by 10-50% between minutes; here every build sees the same drift).
//
//   node bench/wasm-ab.mjs <a.wasm> <b.wasm> [more.wasm] [--rounds 5] UNIT [UNIT ...]
//     UNIT: a string repeated to 1,048,576 units; BENIGN: the benign text of npm run bench at
//     1 MB; BENIGN64K and BENIGN1K: the same at 64 KB and at 1 KB; SHORT8: the batch of 8 short
//     query values of `npm run bench` (one scan_batch call of eight values)
//     POSTBODY: the string values of the benign 1 KB JSON body of `npm run bench:http`, in the
//     order shield()'s object walk hands them to the engine once its keys are known clean (keys
//     of up to 32 units found clean are not scanned again, nor are empty strings): 17 values, 485
//     units, one call; FORM8: eight short form values of shapes SQL looks at twice (an apostrophe,
//     a number first): "O'Brien", "12 Market Street", ... (one call)
//   --as-is: every other UNIT is one value as written (a batch of one), not repeated to 1 MB:
//     the cost of one short value, the call's own overhead included
//
// Prints, per unit, the best time per scan_batch call of each build over the rounds (each round
// runs every unit on every build in turn). The engine alone: no bindings, no JavaScript packing
// in the timing.
import fs from 'node:fs';
import { benignText } from './inputs.mjs';
import { benignBody } from './http-scenarios.mjs';

const args = process.argv.slice(2);
const wasms = args.filter((a) => a.endsWith('.wasm'));
const ri = args.indexOf('--rounds');
const rounds = ri >= 0 ? Number(args[ri + 1]) : 5;
const asIs = args.includes('--as-is'); // each UNIT one value as written, not repeated to 1 MB
const units = args.filter((a, i) => !a.endsWith('.wasm') && a !== '--rounds' && a !== '--as-is' && args[i - 1] !== '--rounds');
if (wasms.length < 1 || units.length < 1) {
  console.error('usage: node bench/wasm-ab.mjs <a.wasm> [b.wasm ...] [--rounds N] UNIT [UNIT ...]');
  process.exit(2);
}
const inst = [];
for (const w of wasms) {
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(w), { env: { abort() { throw new Error(`${w} aborted`); } } });
  const ex = instance.exports;
  if (ex.init(ex.rules_default_ptr(), ex.rules_default_len()) < 0) throw new Error(`${w}: rule blob rejected`);
  ex.set_max_value_length(1 << 21);
  inst.push(ex);
}
const n = 1 << 20;
const SHORT8 = ['42', 'john.doe@example.com', 'red shoes size 9', '2024-05-01', 'desc', '9b1deb4d-3b7d', 'page=2', 'en-US'];
// the walk's order, depth first (its keys are clean and short: after the first request they are not scanned)
const POSTBODY = [];
(function strings(o) {
  if (typeof o === 'string') { if (o !== '') POSTBODY.push(o); }
  else if (o !== null && typeof o === 'object') for (const v of Object.values(o)) strings(v);
})(JSON.parse(benignBody));
const FORM8 = ["O'Brien", '12 Market Street', "Hi, I'd like a refund", '2 pcs', "Jane O'Brien-Smith", '5 stars, would buy again', "it's 5 o'clock", '10 Downing St, London'];
const vals = units.map((u) => (u === 'SHORT8' ? SHORT8 : u === 'POSTBODY' ? POSTBODY : u === 'FORM8' ? FORM8 : u === 'BENIGN' ? benignText(n) : u === 'BENIGN64K' ? benignText(65536) : u === 'BENIGN1K' ? benignText(1024) : asIs ? [u] : u.repeat(Math.ceil(n / u.length)).slice(0, n)));

function pack(ex, v) {
  const values = Array.isArray(v) ? v : [v];
  const units = values.reduce((a, x) => a + x.length, 0);
  const p = ex.batch_reserve(values.length, units);
  const dv = new DataView(ex.memory.buffer);
  dv.setUint32(p, values.length, true);
  const text = p + 4 + values.length * 8;
  const u16 = new Uint16Array(ex.memory.buffer, text, units);
  let off = 0;
  values.forEach((s, i) => {
    dv.setUint32(p + 4 + i * 8, off, true);
    dv.setUint32(p + 8 + i * 8, s.length, true);
    for (let k = 0; k < s.length; k++) u16[off + k] = s.charCodeAt(k);
    off += s.length;
  });
}

const best = units.map(() => wasms.map(() => Infinity));
for (let r = 0; r < rounds; r++) {
  for (let u = 0; u < units.length; u++) {
    for (let w = 0; w < wasms.length; w++) {
      const ex = inst[w];
      pack(ex, vals[u]);
      const reps = Array.isArray(vals[u]) ? 100000 : vals[u].length < 4096 ? 5000 : vals[u].length < 100000 ? 200 : 3;
      if (ex.scan_batch() < 0) throw new Error('batch rejected');
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < reps; k++) ex.scan_batch();
      best[u][w] = Math.min(best[u][w], Number(process.hrtime.bigint() - t0) / reps / 1e3);
    }
  }
}
console.log(`best of ${rounds} rounds, per scan_batch call; builds: ${wasms.join(', ')}`);
const fmt = (t) => (t >= 1000 ? `${(t / 1000).toFixed(2)} ms` : t >= 10 ? `${t.toFixed(1)} us` : `${(t * 1000).toFixed(0)} ns`).padStart(10);
for (let u = 0; u < units.length; u++) console.log(JSON.stringify(units[u]).padEnd(24), best[u].map(fmt).join(' '));
