// What compressing a telemetry batch costs, by compressor and setting, and which fields the cost
// goes to: one batch of decision events (bench/telemetry-cpu.mjs's mix: 300 client hashes, 12
// routes, half denies) as JSON, compressed again and again in this thread (the *Sync calls, each
// with a fresh compressor state, about 20-40 us of set-up per batch included). Prints µs and
// bytes per event. Nothing is asserted.
//
//   node bench/telemetry-compression.mjs [--events 500] [--repeat 100]

import zlib from 'node:zlib';
import { makeEvent } from './telemetry-events.mjs';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { events: { type: 'string', default: '500' }, repeat: { type: 'string', default: '100' } } });
const N = Number(args.events);
const R = Number(args.repeat);
const C = zlib.constants;

function event(i, without) {
  const e = makeEvent(i);
  for (const k of without) delete e[k];
  return e;
}
const batch = (without = []) => Buffer.from(JSON.stringify({ events: Array.from({ length: N }, (_, i) => event(i, without)) }));

function time(label, body, compress) {
  let out = compress(body);
  for (let r = 0; r < 5; r++) out = compress(body); // warm-up
  const t = process.hrtime.bigint();
  for (let r = 0; r < R; r++) out = compress(body);
  const us = Number(process.hrtime.bigint() - t) / R / N / 1000;
  console.log(`${label.padEnd(44)} ${(body.length / N).toFixed(0).padStart(5)} ${(out.length / N).toFixed(1).padStart(8)} ${us.toFixed(3).padStart(9)}`);
}
const gzip1 = (b) => zlib.gzipSync(b, { level: 1, memLevel: 9 });
const br = (quality, extra = {}) => (b) => zlib.brotliCompressSync(b, { params: { [C.BROTLI_PARAM_QUALITY]: quality, [C.BROTLI_PARAM_SIZE_HINT]: b.length, ...extra } });

console.log(`${N} events per batch, ${R} repetitions; per event:`);
console.log(`${'body, compressor'.padEnd(44)} ${'raw B'.padStart(5)} ${'packed B'.padStart(8)} ${'µs'.padStart(9)}`);
const all = batch();
time('as sent, gzip level 1', all, gzip1);
time('without ip_hash, gzip level 1', batch(['ip_hash']), gzip1);
time('without timestamp, gzip level 1', batch(['timestamp']), gzip1);
time('without the 4 per-instance fields, gzip 1', batch(['workspace_id', 'app_id', 'sdk', 'sdk_version']), gzip1);
time('as sent, gzip 1, windowBits 12', all, (b) => zlib.gzipSync(b, { level: 1, windowBits: 12 }));
time('as sent, gzip 1, Z_FIXED', all, (b) => zlib.gzipSync(b, { level: 1, strategy: C.Z_FIXED }));
time('as sent, gzip 1, Z_HUFFMAN_ONLY', all, (b) => zlib.gzipSync(b, { level: 1, strategy: C.Z_HUFFMAN_ONLY }));
time('as sent, gzip 1, Z_RLE', all, (b) => zlib.gzipSync(b, { level: 1, strategy: C.Z_RLE }));
for (const q of [0, 1, 2, 4]) time(`as sent, brotli quality ${q}`, all, br(q));
time('as sent, brotli quality 1, window 2^20 (the SDK)', all, br(1, { [C.BROTLI_PARAM_LGWIN]: 20 }));
