#!/usr/bin/env node
// shield benchmark: short-value batches, throughput, and a linear-time probe, for shield and the
// peers js-xss and sanitize-html measured in the same run. `npm run bench`.
//
//   node bench/run.mjs [--out FILE] [--no-probe] [--no-snapshot] [--families a,../,...] [--subjects js-xss,...] [--no-chars]
//   (--families / --subjects only narrow the probe, for development; the benign reference and
//   shield scan are always probed)
//
// Prints tables to stdout and writes machine-readable results to bench/results.json
// (or --out FILE). See bench/README.md for what every figure means.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
if (!fs.existsSync(path.join(root, 'dist/bindings/index.js'))) {
  console.error('dist/ is missing: run `npm run build` once, then `npm run bench`.');
  process.exit(2);
}

// snapshot dist/ before anything imports shield (see snapshot.mjs); the probe workers inherit the env
const { snapshotDist } = await import('./snapshot.mjs');
if (!process.argv.includes('--no-snapshot')) process.env.SHIELD_BENCH_DIST = snapshotDist();
const { shield, shieldSource } = await import('./load-shield.mjs');
const { scan, scanValues, sanitizeString, defaultEngine, engineBytes } = shield;
const { createHash } = await import('node:crypto');
const { filterXSS, sanitizeHtml } = await import('./subjects.mjs');
const { SHORT_BATCH, benignText, attackText, utf8Bytes, FAMILIES, BENIGN_FAMILY, CHAR_FAMILIES, PROBE_SIZES } = await import('./inputs.mjs');
const { measure, median, fmtTime, fmtRate } = await import('./timing.mjs');
const { runProbe, logSlope } = await import('./linear-probe.mjs');
const { PROBE_MAX_VALUE_LENGTH } = await import('./subjects.mjs');

// ---------------------------------------------------------------- arguments
const args = process.argv.slice(2);
const argVal = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const outFile = path.resolve(argVal('--out') ?? path.join(here, 'results.json'));
const doProbe = !args.includes('--no-probe');
// section 3b (every character repeated, shield scan at 1 MB): with the probe, unless --no-chars or
// a --families list without "chars"
const doChars = doProbe && !args.includes('--no-chars');
const famFilter = argVal('--families')?.split(',');
const subjFilter = argVal('--subjects')?.split(',');

const TARGETS = {
  batchNs: 1000, // shield scanValues of 8 short values, per batch
  mbps1k: 700, // shield scan, benign 1 KB
  mbps64k: 1000, // shield scan, benign 64 KB
  advRatio: 3, // 1 MB adversarial time / 1 MB benign time
  exponent: 1.2, // growth exponent 100 KB -> 1 MB above this is reported as super-linear
};
const ROUNDS = 3; // sections 1 and 2: interleaved rounds, median of round medians
const PEER_CAP_MS = 5000; // one call slower than this stops a (subject, family)
const PROBE_DEADLINE_MS = 120_000; // whole probe; cells after it are skipped (and printed)

const started = Date.now();
let sink = 0;

// ---------------------------------------------------------------- helpers
function table(headers, rows, align) {
  const cells = [headers, ...rows].map((r) => r.map((c) => String(c ?? '-')));
  const w = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'l' ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [fmt(cells[0]), w.map((n) => '-'.repeat(n)).join('  '), ...cells.slice(1).map(fmt)].join('\n');
}
const heading = (s) => console.log(`\n=== ${s} ${'='.repeat(Math.max(0, 74 - s.length))}`);
const ok = (met) => (met == null ? 'n/a' : met ? 'MET' : 'NOT MET');
const x = (v, d = 1) => (v == null || !Number.isFinite(v) ? '-' : `${v.toFixed(d)}x`);
const num = (v, d = 2) => (v == null || !Number.isFinite(v) ? '-' : v.toFixed(d));
const elapsedS = () => ((Date.now() - started) / 1000).toFixed(1);

function gitCommit() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'assembly', 'bindings'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    return dirty ? `${head} (assembly/ or bindings/ modified)` : head;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------- environment
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const peerVersion = (name) => JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
const engine = defaultEngine();
const rulesOn = engine.rules.filter((r) => r.enabledByDefault);
const byVector = {};
for (const r of rulesOn) byVector[r.vector] = (byVector[r.vector] ?? 0) + 1;
const wasmPath = path.join(root, 'build/shield.wasm');
const meta = {
  date: new Date().toISOString(),
  node: process.version,
  v8: process.versions.v8,
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  loadavgStart: os.loadavg().map((v) => +v.toFixed(2)),
  shield: {
    version: pkg.version,
    loadedFrom: shieldSource,
    commit: gitCommit(),
    // the engine actually loaded (embedded in dist/), so a rebuild during the run shows up
    engineSha256: createHash('sha256').update(engineBytes()).digest('hex').slice(0, 16),
    engineBytes: engineBytes().length,
    buildWasmMtime: fs.existsSync(wasmPath) ? fs.statSync(wasmPath).mtime.toISOString() : null,
  },
  peers: { 'js-xss': peerVersion('xss'), 'sanitize-html': peerVersion('sanitize-html'), options: 'defaults (filterXSS(s), sanitizeHtml(s))' },
  detectors: {
    shield: `all default rules: ${rulesOn.length} of ${engine.rules.length} enabled (${Object.entries(byVector).map(([v, n]) => `${v} ${n}`).join(', ')})`,
    rulesOn: rulesOn.map((r) => r.id),
    rulesOff: engine.rules.filter((r) => !r.enabledByDefault).map((r) => r.id),
  },
};

console.log('shield benchmark');
console.log(`date      ${meta.date}`);
console.log(`node      ${meta.node} (V8 ${meta.v8})   ${meta.platform}`);
console.log(`cpu       ${meta.cpu} x ${meta.cores}   load average at start ${meta.loadavgStart.join(' ')}`);
console.log(`shield    ${meta.shield.version} @ ${meta.shield.commit}, loaded from ${meta.shield.loadedFrom}; engine ${meta.shield.engineBytes} bytes, sha256 ${meta.shield.engineSha256}; build/shield.wasm mtime ${meta.shield.buildWasmMtime}`);
console.log(`detectors shield: ${meta.detectors.shield}${meta.detectors.rulesOff.length ? `; off: ${meta.detectors.rulesOff.join(', ')}` : ''}`);
console.log(`          js-xss ${meta.peers['js-xss']} filterXSS(s) and sanitize-html ${meta.peers['sanitize-html']} sanitizeHtml(s), default options`);
console.log(`timing    hand-rolled: warm-up, then 3-11 samples of calibrated iterations, median; sections 1-2: median of ${ROUNDS} interleaved rounds`);

// ---------------------------------------------------------------- 1. short values
heading('1. Batch of 8 short query-like values (ns per batch; lower is better)');
console.log(`values: ${SHORT_BATCH.map((v) => JSON.stringify(v)).join(' ')}`);
const EMPTY8 = Array(8).fill('');
const batchOpts = { warmupMs: 100, minSampleMs: 10, minSamples: 11, maxSamples: 11, budgetMs: 200 };
const batchCases = [
  ['shield scanValues(batch): 1 call', (b) => scanValues(b)],
  ['shield scanValues(8 x "") (call overhead only)', () => scanValues(EMPTY8)],
  ['shield scan(v) x 8 (reference)', (b) => { let n = 0; for (let i = 0; i < b.length; i++) n += scan(b[i]).length; return n; }],
  ['shield sanitizeString(v) x 8 (reference)', (b) => { let n = 0; for (let i = 0; i < b.length; i++) n += sanitizeString(b[i]).length; return n; }],
  ['js-xss filterXSS(v) x 8', (b) => { let n = 0; for (let i = 0; i < b.length; i++) n += filterXSS(b[i]).length; return n; }],
  ['sanitize-html sanitizeHtml(v) x 8', (b) => { let n = 0; for (let i = 0; i < b.length; i++) n += sanitizeHtml(b[i]).length; return n; }],
];
const batchFindings = scanValues(SHORT_BATCH);
// ROUNDS interleaved rounds over all cases; the figure is the median of the rounds' medians, so a
// burst of load from another process hits one round of a case, not the case's figure
const batchRounds = batchCases.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  batchCases.forEach(([, fn], i) => {
    const r = measure(fn, SHORT_BATCH, batchOpts);
    sink += r.sink;
    batchRounds[i].push(r);
  });
}
const shortBatch = batchCases.map(([name], i) => {
  const rs = batchRounds[i];
  const ns = median(rs.map((r) => r.ns));
  return {
    name, nsPerBatch: ns, nsPerValue: ns / SHORT_BATCH.length,
    roundMediansNs: rs.map((r) => Math.round(r.ns)), minNs: Math.min(...rs.map((r) => r.minNs)), maxNs: Math.max(...rs.map((r) => r.maxNs)),
    samplesPerRound: rs[0].samples, iters: rs[0].iters,
  };
});
const shieldBatchNs = shortBatch[0].nsPerBatch;
console.log(table(
  ['subject', 'per batch', 'per value', `round medians (${ROUNDS})`, 'vs shield scanValues'],
  shortBatch.map((r) => [r.name, fmtTime(r.nsPerBatch), fmtTime(r.nsPerValue), r.roundMediansNs.map(fmtTime).join(' / '), x(r.nsPerBatch / shieldBatchNs, 2)]),
));
const batchHits = batchFindings.map((f, i) => (f.length ? `${JSON.stringify(SHORT_BATCH[i])} -> ${f.map((y) => `${y.rule} ${JSON.stringify(y.matched)}`).join(', ')}` : null)).filter(Boolean);
console.log(`target: shield scanValues <= ${fmtTime(TARGETS.batchNs)} per batch: ${ok(shieldBatchNs <= TARGETS.batchNs)} (${fmtTime(shieldBatchNs)})`);
console.log(`shield findings on these benign values: ${batchHits.length ? batchHits.join('; ') : 'none'}`);

// ---------------------------------------------------------------- 2. throughput
heading('2. Throughput (MB/s, MB = UTF-8 input bytes / 1e6; higher is better)');
const tpInputs = [
  ['benign 1 KB', benignText(1024)],
  ['benign 64 KB', benignText(65536)],
  ['attack-dense 1 KB', attackText(1024)],
  ['attack-dense 64 KB', attackText(65536)],
];
const tpSubjects = [
  ['shield scan', (s) => scan(s)],
  ['shield sanitizeString', (s) => sanitizeString(s)],
  ['js-xss', (s) => filterXSS(s)],
  ['sanitize-html', (s) => sanitizeHtml(s)],
];
const tpOpts = { warmupMs: 40, minSampleMs: 5, minSamples: 7, maxSamples: 11, budgetMs: 200 };
const throughput = tpInputs.map(([inName, s]) => ({ input: inName, bytes: utf8Bytes(s), shieldFindings: [...new Set(scan(s).map((f) => f.rule))], subjects: {} }));
const tpRounds = tpInputs.map(() => tpSubjects.map(() => []));
for (let round = 0; round < ROUNDS; round++) {
  tpInputs.forEach(([, s], i) => tpSubjects.forEach(([, fn], j) => {
    const r = measure(fn, s, tpOpts);
    sink += r.sink;
    tpRounds[i][j].push(r);
  }));
}
throughput.forEach((row, i) => tpSubjects.forEach(([sName], j) => {
  const rs = tpRounds[i][j];
  const ns = median(rs.map((r) => r.ns));
  row.subjects[sName] = {
    ns, mbps: row.bytes / 1e6 / (ns / 1e9),
    roundMbps: rs.map((r) => +(row.bytes / 1e6 / (r.ns / 1e9)).toFixed(2)),
    minNs: Math.min(...rs.map((r) => r.minNs)), maxNs: Math.max(...rs.map((r) => r.maxNs)), samplesPerRound: rs[0].samples, iters: rs[0].iters,
  };
}));
console.log(table(
  ['input (bytes)', ...tpSubjects.map(([n]) => n), 'shield scan per call', 'shield scan rounds (MB/s)'],
  throughput.map((r) => [`${r.input} (${r.bytes})`, ...tpSubjects.map(([n]) => fmtRate(r.subjects[n].mbps)), fmtTime(r.subjects['shield scan'].ns), r.subjects['shield scan'].roundMbps.map((v) => v.toPrecision(3)).join(' / ')]),
));
const mb1k = throughput[0].subjects['shield scan'].mbps;
const mb64k = throughput[1].subjects['shield scan'].mbps;
console.log(`target: shield scan benign 1 KB >= ${TARGETS.mbps1k} MB/s: ${ok(mb1k >= TARGETS.mbps1k)} (${fmtRate(mb1k)})`);
console.log(`target: shield scan benign 64 KB >= ${TARGETS.mbps64k} MB/s: ${ok(mb64k >= TARGETS.mbps64k)} (${fmtRate(mb64k)})`);
for (const r of throughput) {
  if (r.input.startsWith('benign')) console.log(`shield findings on ${r.input}: ${r.shieldFindings.length ? r.shieldFindings.join(', ') : 'none'}`);
  else console.log(`shield rules hit on ${r.input}: ${r.shieldFindings.length} (${r.shieldFindings.join(', ')})`);
}
console.log('note: the peers sanitize (they rewrite the HTML); shield scan only reports findings. sanitizeString is the like-for-like column.');

// ---------------------------------------------------------------- 3. linear-time probe
let probe = null;
const probeSummary = [];
if (doProbe) {
  heading('3. Linear-time probe (time per call by input size; worker threads, watchdog)');
  const families = [BENIGN_FAMILY, ...FAMILIES.filter((f) => !famFilter || famFilter.includes(f.name))];
  const subjects = ['shield scan', 'shield sanitize', 'js-xss', 'sanitize-html'].filter((n) => n === 'shield scan' || !subjFilter || subjFilter.includes(n));
  console.log(`sizes: ${PROBE_SIZES.join(', ')} chars (all ASCII: chars = bytes); shield: new Engine({ maxValueLength: ${PROBE_MAX_VALUE_LENGTH} })`);
  console.log(`every subject: one call slower than ${PEER_CAP_MS / 1000} s stops that family (larger sizes skipped and printed); a call`);
  console.log(`that does not return is killed after ${PEER_CAP_MS / 1000 + 3} s; the whole probe stops measuring after ${PROBE_DEADLINE_MS / 1000} s`);
  for (const f of families) console.log(`  ${f.name.padEnd(7)} ${f.desc}`);
  const optsFor = (subject, size) => (subject.startsWith('shield')
    ? { warmupMs: 20, minSampleMs: 2, minSamples: 5, maxSamples: 11, budgetMs: size >= 1e6 ? 300 : 100 }
    : { warmupMs: 20, minSampleMs: 2, minSamples: 3, maxSamples: 7, budgetMs: size >= 1e6 ? 300 : 100 });
  const t0 = Date.now();
  // shield scan is probed first, so only the supplementary columns can fall to the time budget
  probe = await runProbe({ subjects, families, sizes: PROBE_SIZES, capMs: PEER_CAP_MS, optsFor, deadlineMs: PROBE_DEADLINE_MS, log: (s) => console.log(s) });
  const seen = new Set();
  for (const subject of subjects) for (const e of Object.values(probe[subject])) for (const c of e.cells) if (c.engineSha256) seen.add(c.engineSha256);
  seen.delete(meta.shield.engineSha256);
  if (seen.size) {
    meta.engineChangedDuringRun = [...seen];
    console.log(`WARNING: dist/ was rebuilt during the run: probe workers loaded engine ${[...seen].join(', ')}, sections 1-2 used ${meta.shield.engineSha256}`);
  }

  const big = PROBE_SIZES[PROBE_SIZES.length - 1];
  const prev = PROBE_SIZES[PROBE_SIZES.length - 2];
  const okCell = (c) => c && !c.skipped && !c.aborted && !c.error && !c.over && c.ns > 0;
  // An exponent from two points is sensitive to a burst of load on one of them: every
  // (subject, family) above the threshold is measured once more at every size, and the second
  // pass is used (both are printed; results.json keeps the first pass as firstPassNs).
  const remeasured = [];
  for (const subject of subjects) {
    for (const fam of families) {
      const e = probe[subject][fam.name];
      const cP = e.cells.find((c) => c.size === prev);
      const cB = e.cells.find((c) => c.size === big);
      if (!okCell(cP) || !okCell(cB)) continue;
      const exp1 = Math.log(cB.ns / cP.ns) / Math.log(big / prev);
      if (exp1 <= TARGETS.exponent) continue;
      // a fresh worker, warmed on the benign family first (not used), then every size again
      const again = await runProbe({ subjects: [subject], families: [BENIGN_FAMILY, fam], sizes: PROBE_SIZES, capMs: PEER_CAP_MS, optsFor });
      const cells2 = again[subject][fam.name].cells;
      const nP = cells2.find((c) => c.size === prev);
      const nB = cells2.find((c) => c.size === big);
      if (!okCell(nP) || !okCell(nB)) continue;
      const exp2 = Math.log(nB.ns / nP.ns) / Math.log(big / prev);
      e.cells = cells2.map((c, k) => ({ ...c, firstPassNs: e.cells[k]?.ns ?? null }));
      remeasured.push(`${subject} / ${fam.name}: exponent ${exp1.toFixed(2)} -> ${exp2.toFixed(2)} (100 KB ${fmtTime(cP.ns)} -> ${fmtTime(nP.ns)}, 1 MB ${fmtTime(cB.ns)} -> ${fmtTime(nB.ns)})`);
    }
  }
  const probeSeconds = (Date.now() - t0) / 1000;
  for (const subject of subjects) {
    const benignBig = probe[subject].benign.cells.find((c) => c.size === big);
    const benignNs = benignBig && !benignBig.skipped && !benignBig.aborted && !benignBig.error ? benignBig.ns : null;
    for (const fam of families) {
      const e = probe[subject][fam.name];
      const pts = e.cells.filter((c) => !c.skipped && !c.aborted && !c.error && c.ns > 0).map((c) => ({ size: c.size, ns: c.ns }));
      const pBig = pts.find((p) => p.size === big);
      const pPrev = pts.find((p) => p.size === prev);
      const s = {
        subject,
        family: fam.name,
        ns: Object.fromEntries(e.cells.map((c) => [c.size, c.skipped || c.aborted || c.error ? null : Math.round(c.ns)])),
        exponentTop: pBig && pPrev ? Math.log(pBig.ns / pPrev.ns) / Math.log(big / prev) : null,
        exponentLS: logSlope(pts),
        ratioToBenign1M: pBig && benignNs ? pBig.ns / benignNs : null,
        mbps1M: pBig ? big / 1e6 / (pBig.ns / 1e9) : null,
        findings1M: e.cells.find((c) => c.size === big)?.findings ?? null,
        note: e.note,
        cells: e.cells.map((c) => ({
          size: c.size,
          status: c.skipped ? 'skipped' : c.aborted ? 'killed' : c.error ? 'error' : c.over ? 'over-cap' : 'ok',
          ...(c.ns != null && !c.aborted ? { ns: Math.round(c.ns), minNs: Math.round(c.minNs), maxNs: Math.round(c.maxNs), firstMs: +c.firstMs.toFixed(3), samples: c.samples, iters: c.iters } : {}),
          ...(c.firstPassNs != null ? { remeasured: true, firstPassNs: Math.round(c.firstPassNs) } : {}),
          ...(c.error ? { error: c.error } : {}),
        })),
      };
      probeSummary.push(s);
    }
  }

  const probeTable = (subject, withTarget) => {
    const rows = probeSummary.filter((s) => s.subject === subject).map((s) => [
      s.family,
      ...PROBE_SIZES.map((n) => (s.ns[n] == null ? 'skipped' : fmtTime(s.ns[n]))),
      num(s.exponentTop),
      num(s.exponentLS),
      s.family === 'benign' ? '1.0x' : x(s.ratioToBenign1M),
      fmtRate(s.mbps1M),
      ...(withTarget ? [s.family === 'benign' ? '' : s.ratioToBenign1M == null ? 'n/a' : s.ratioToBenign1M <= TARGETS.advRatio ? 'yes' : 'NO'] : []),
    ]);
    return table(
      ['family', ...PROBE_SIZES.map((n) => (n >= 1e6 ? `${n / 1e6} MB` : `${n / 1e3} KB`)), 'exp 100K-1M', 'exp LS', 'vs benign 1MB', 'MB/s at 1MB', ...(withTarget ? [`<= ${TARGETS.advRatio}x`] : [])],
      rows,
    );
  };
  console.log('\n--- shield scan (target: 1 MB adversarial <= 3x 1 MB benign; exponent ~1) ---');
  console.log(probeTable('shield scan', true));
  const fnd = probeSummary.filter((s) => s.subject === 'shield scan' && s.findings1M?.length);
  if (fnd.length) console.log(`shield scan findings at 1 MB: ${fnd.map((s) => `${s.family}: ${s.findings1M.join(',')}`).join('; ')}`);
  for (const subject of subjects.slice(1)) {
    console.log(`\n--- ${subject}${subject === 'shield sanitize' ? ' (reference, no target)' : ' (peer)'} ---`);
    console.log(probeTable(subject, false));
  }
  if (remeasured.length) {
    console.log(`\nre-measured (exponent 100K-1M above ${TARGETS.exponent} on the first pass; the tables show the second pass):`);
    for (const r of remeasured) console.log(`  ${r}`);
  }
  const notes = probeSummary.filter((s) => s.note);
  if (notes.length) {
    console.log('\nskipped / stopped:');
    for (const s of notes) console.log(`  ${s.subject} / ${s.family}: ${s.note}`);
  }
  console.log(`\nexp 100K-1M: slope of log(time) vs log(size) between 100 KB and 1 MB (1.0 = linear, 2.0 = quadratic).`);
  console.log('exp LS: least-squares slope over all measured sizes (below 1 when fixed per-call cost dominates at 1 KB).');
  console.log(`probe took ${probeSeconds.toFixed(1)} s`);
}

// ---------------------------------------------------------------- 3b. one repeated character
const charSummary = [];
if (doChars && (!famFilter || famFilter.includes('chars'))) {
  heading('3b. One repeated character (shield scan, 1 MB; every printable ASCII character and 7 more)');
  const big = PROBE_SIZES[PROBE_SIZES.length - 1];
  const t0 = Date.now();
  // one worker: its own benign 1 MB first (the reference), then each character at 1 MB
  const sweep = await runProbe({
    subjects: ['shield scan'], families: [BENIGN_FAMILY, ...CHAR_FAMILIES], sizes: [big], capMs: PEER_CAP_MS,
    optsFor: () => ({ warmupMs: 10, minSampleMs: 2, minSamples: 3, maxSamples: 7, budgetMs: 120 }),
  });
  const cell = (name) => sweep['shield scan'][name].cells[0];
  const okC = (c) => c && !c.skipped && !c.aborted && !c.error && !c.over && c.ns > 0;
  const benignNs = okC(cell('benign')) ? cell('benign').ns : null;
  for (const fam of CHAR_FAMILIES) {
    const c = cell(fam.name);
    charSummary.push({
      family: fam.name,
      ns: okC(c) ? Math.round(c.ns) : null,
      ratioToBenign1M: okC(c) && benignNs ? c.ns / benignNs : null,
      findings1M: c?.findings ?? null,
      status: c?.skipped ? 'skipped' : c?.aborted ? 'killed' : c?.error ? 'error' : c?.over ? 'over-cap' : 'ok',
    });
  }
  const within = charSummary.filter((r) => r.ratioToBenign1M != null && r.ratioToBenign1M <= TARGETS.advRatio).length;
  const worst = [...charSummary].sort((a, b) => (b.ratioToBenign1M ?? Infinity) - (a.ratioToBenign1M ?? Infinity)).slice(0, 8);
  console.log(`benign 1 MB in this worker: ${benignNs ? fmtTime(benignNs) : 'n/a'}; ${within}/${charSummary.length} characters within ${TARGETS.advRatio}x; the 8 slowest:`);
  console.log(table(['character', '1 MB', 'vs benign 1MB', `<= ${TARGETS.advRatio}x`],
    worst.map((r) => [r.family, r.ns == null ? r.status : fmtTime(r.ns), x(r.ratioToBenign1M), r.ratioToBenign1M != null && r.ratioToBenign1M <= TARGETS.advRatio ? 'yes' : 'NO'])));
  console.log(`(every character's figure is in results.json, charSweep; took ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

// ---------------------------------------------------------------- targets summary
heading('Targets (shield)');
const shieldAdv = [
  ...probeSummary.filter((s) => s.subject === 'shield scan' && s.family !== 'benign'),
  ...charSummary.map((r) => ({ ...r, subject: 'shield scan', exponentTop: undefined })),
];
const probeFamilies = probeSummary.filter((s) => s.subject === 'shield scan' && s.family !== 'benign');
const worstRatio = shieldAdv.reduce((m, s) => (s.ratioToBenign1M != null && (!m || s.ratioToBenign1M > m.ratioToBenign1M) ? s : m), null);
const ratioFails = shieldAdv.filter((s) => s.ratioToBenign1M == null || s.ratioToBenign1M > TARGETS.advRatio);
// (the character sweep has one size: no exponent; the linearity target is the probe's)
const superLinear = probeFamilies.filter((s) => s.exponentTop == null || s.exponentTop > TARGETS.exponent);
const targets = [
  { target: `scanValues(8 short values) <= ${TARGETS.batchNs} ns per batch`, value: fmtTime(shieldBatchNs), met: shieldBatchNs <= TARGETS.batchNs },
  { target: `scan benign 1 KB >= ${TARGETS.mbps1k} MB/s`, value: fmtRate(mb1k), met: mb1k >= TARGETS.mbps1k },
  { target: `scan benign 64 KB >= ${TARGETS.mbps64k} MB/s`, value: fmtRate(mb64k), met: mb64k >= TARGETS.mbps64k },
];
if (doProbe) {
  targets.push({
    target: `scan 1 MB adversarial <= ${TARGETS.advRatio}x 1 MB benign (every family)`,
    value: `${shieldAdv.length - ratioFails.length}/${shieldAdv.length} families within${charSummary.length ? ` (${probeFamilies.length} probed, ${charSummary.length} characters)` : ''}; worst ${worstRatio?.family} ${x(worstRatio?.ratioToBenign1M)}`,
    met: ratioFails.length === 0,
  });
  targets.push({
    target: `scan linear: exponent 100 KB -> 1 MB <= ${TARGETS.exponent} (every family)`,
    value: superLinear.length ? `above: ${superLinear.map((s) => `${s.family} ${num(s.exponentTop)}`).join(', ')}` : `max ${num(Math.max(...probeFamilies.map((s) => s.exponentTop)))}`,
    met: superLinear.length === 0,
  });
}
console.log(table(['target', 'measured', 'status'], targets.map((t) => [t.target, t.value, ok(t.met)]), ['l', 'l', 'l']));

// ---------------------------------------------------------------- results.json
meta.loadavgEnd = os.loadavg().map((v) => +v.toFixed(2));
meta.runSeconds = +((Date.now() - started) / 1000).toFixed(1);
const results = {
  meta,
  targets: TARGETS,
  targetStatus: targets,
  shortBatch: { values: SHORT_BATCH, shieldFindings: batchFindings, rows: shortBatch },
  throughput,
  probe: doProbe ? { sizes: PROBE_SIZES, capMs: PEER_CAP_MS, deadlineMs: PROBE_DEADLINE_MS, families: [BENIGN_FAMILY, ...FAMILIES].map((f) => ({ name: f.name, desc: f.desc })), rows: probeSummary } : null,
  charSweep: charSummary.length ? { size: PROBE_SIZES[PROBE_SIZES.length - 1], subject: 'shield scan', rows: charSummary } : null,
  sink,
};
fs.mkdirSync(path.dirname(outFile), { recursive: true });
fs.writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
console.log(`\nload average at end ${meta.loadavgEnd.join(' ')}; sink ${sink}`);
console.log(`wrote ${path.relative(process.cwd(), outFile) || outFile}; total ${elapsedS()} s`);
