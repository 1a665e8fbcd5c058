#!/usr/bin/env node
// Detection figures on the development corpus, with and without the committed exclusion list
// (bench/corpus-exclusions.json: records judged mislabelled, each with its reason).
// usage: node bench/score-detection.mjs [--corpus FILE] [--json]
// Runs ../shared/eval/score.mjs with bench/detection-adapter.mjs twice: on the corpus as is and on
// a copy without the excluded records (written to .bench-out/).

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (n, d) => { const i = argv.indexOf(n); return i >= 0 ? argv[i + 1] : d; };
const corpus = path.resolve(arg('--corpus', path.join(root, '..', 'shared', 'corpus', 'dev.jsonl')));
const scorer = path.join(root, '..', 'shared', 'eval', 'score.mjs');
if (!fs.existsSync(corpus) || !fs.existsSync(scorer)) {
  console.error(`score-detection: needs ${corpus} and ${scorer} (the shared/ folder beside the repository)`);
  process.exit(2);
}
const exclusions = JSON.parse(fs.readFileSync(path.join(root, 'bench', 'corpus-exclusions.json'), 'utf8'));
const excluded = new Set(exclusions.entries.map((e) => `${e.source}\u0000${e.id}`));
const lines = fs.readFileSync(corpus, 'utf8').split('\n').filter(Boolean);
const kept = lines.filter((l) => { const r = JSON.parse(l); return !excluded.has(`${r.source}\u0000${r.id}`); });
fs.mkdirSync(path.join(root, '.bench-out'), { recursive: true });
const filtered = path.join(root, '.bench-out', 'dev-excluded.jsonl');
fs.writeFileSync(filtered, kept.join('\n') + '\n');

const run = (file) => JSON.parse(execFileSync(process.execPath, [scorer, '--adapter', path.join(root, 'bench', 'detection-adapter.mjs'), '--corpus', file, '--json'], { cwd: root, maxBuffer: 64 << 20 }).toString());
const raw = run(corpus);
const exc = run(filtered);
if (argv.includes('--json')) { console.log(JSON.stringify({ raw, excluded: exc, exclusions: exclusions.counts }, null, 2)); process.exit(0); }

const pct = (x) => (x == null ? '   -  ' : (100 * x).toFixed(1).padStart(5) + '%');
console.log(`detection: adapter ${raw.adapter} (every default rule of @shield/node on), corpus ${path.basename(corpus)}, ${lines.length} records; ${lines.length - kept.length} excluded as mislabelled (${JSON.stringify(exclusions.counts)})`);
console.log(`${'vector'.padEnd(8)}${'n'.padStart(7)}  recall   ${'n excl'.padStart(7)}  recall (exclusions applied)`);
for (const [v, s] of Object.entries(raw.vectors)) {
  if (v === 'benign') continue;
  const e = exc.vectors[v] || { n: 0 };
  const claimed = raw.supports.includes(v) ? '' : '  (not claimed)';
  console.log(`${v.padEnd(8)}${String(s.n).padStart(7)}  ${pct(s.recall)}  ${String(e.n).padStart(7)}  ${pct(e.recall)}${claimed}`);
}
console.log(`${'benign'.padEnd(8)}${String(raw.vectors.benign.n).padStart(7)}  flagged ${pct(raw.fpr)} (${raw.vectors.benign.any} records) ${JSON.stringify(raw.fpByFlaggedVector)}`);
console.log(`throughput of the adapter (one scan() per record, JS included): ${raw.throughput.mbPerSec.toFixed(1)} MB/s, p99 ${raw.throughput.p99ms.toFixed(3)} ms`);
