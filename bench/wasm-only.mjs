// The engine alone: build/shield.wasm instantiated with the standard WebAssembly API and its
// scan_batch timed directly, without the bindings (no JavaScript packing or result objects).
// For looking at the engine's own cost per value and per size; `npm run bench` is the reference.
//
//   npm run build && node bench/wasm-only.mjs      (~30 s)
//   node bench/wasm-only.mjs [path to a shield.wasm] --unit "'+a/*" [--size 1048576]
//     (one value of the unit repeated to the size, instead of the fixed inputs: the probe's
//     families timed on the engine alone, for comparing two builds)
//
// Prints, best of 7 samples each: the 64 KB and 1 KB benign texts of `npm run bench`, its batch
// of 8 short values, prose values of typical field sizes (slices of the benign text), and one
// 108-character sentence with and without an apostrophe (SQL looks at the text after a quote).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benignText } from './inputs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const unitAt = args.indexOf('--unit');
const unit = unitAt >= 0 ? args[unitAt + 1] : null;
const sizeAt = args.indexOf('--size');
const unitSize = sizeAt >= 0 ? Number(args[sizeAt + 1]) : 1 << 20;
const positional = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--unit' && args[i - 1] !== '--size');
const wasmPath = positional[0] ?? path.join(here, '../build/shield.wasm');
const wasm = fs.readFileSync(wasmPath);
const { instance } = await WebAssembly.instantiate(wasm, { env: { abort() { throw new Error('shield.wasm aborted'); } } });
const ex = instance.exports;
if (ex.init(ex.rules_default_ptr(), ex.rules_default_len()) < 0) throw new Error('rule blob rejected');
if (unit !== null) ex.set_max_value_length(Math.max(unitSize, 1 << 20));

function pack(values) {
  const units = values.reduce((a, v) => a + v.length, 0);
  const ptr = ex.batch_reserve(values.length, units);
  const u32 = new Uint32Array(ex.memory.buffer);
  const u16 = new Uint16Array(ex.memory.buffer);
  u32[ptr >>> 2] = values.length;
  const text = (ptr + 4 + values.length * 8) >>> 1;
  let off = 0;
  values.forEach((v, i) => {
    u32[(ptr >>> 2) + 1 + 2 * i] = off;
    u32[(ptr >>> 2) + 2 + 2 * i] = v.length;
    for (let k = 0; k < v.length; k++) u16[text + off + k] = v.charCodeAt(k);
    off += v.length;
  });
}

/** ns per scan_batch call: best of 7 samples of calls lasting about 20 ms each. */
function time(values) {
  pack(values);
  let n = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (ex.scan_batch() < 0) throw new Error('batch rejected');
    if (Number(process.hrtime.bigint() - t0) > 2e7) break;
    n *= 2;
  }
  let best = Infinity;
  for (let r = 0; r < 7; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) ex.scan_batch();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  return best;
}

const fmt = (ns) => (ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} us` : `${ns.toFixed(0)} ns`);
const prose = benignText(65536);
console.log(`engine ${path.relative(process.cwd(), wasmPath)}, ${wasm.length} bytes, all default rules`);
if (unit !== null) {
  const v = unit.repeat(Math.ceil(unitSize / unit.length)).slice(0, unitSize);
  console.log(`${JSON.stringify(unit)} repeated to ${unitSize} units: ${fmt(time([v]))} per call`);
  process.exit(0);
}
for (const bytes of [65536, 1024]) {
  const ns = time([benignText(bytes)]);
  console.log(`benign ${bytes / 1024} KB: ${fmt(ns)} per call, ${(bytes / ns * 1000).toFixed(0)} MB/s`);
}
const short = ['42', 'john.doe@example.com', 'red shoes size 9', '2024-05-01', 'desc', '9b1deb4d-3b7d', 'page=2', 'en-US'];
console.log(`8 short values, one call: ${fmt(time(short))}`);
console.log('prose values (mean over 8 slices):');
for (const len of [8, 16, 24, 50, 64, 108, 200, 500, 1000]) {
  let sum = 0;
  for (let k = 0; k < 8; k++) sum += time([prose.slice(k * 1500, k * 1500 + len)]);
  console.log(`  ${String(len).padStart(4)} characters: ${fmt(sum / 8).padStart(9)}`);
}
const sentence = "Schedule tell just new him act come 29 then you'll table each some say just! Know with I back men work port.";
console.log(`108 characters with an apostrophe: ${fmt(time([sentence]))}; the same with a space instead: ${fmt(time([sentence.replace("'", ' ')]))}`);
