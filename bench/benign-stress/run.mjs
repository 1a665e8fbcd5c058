// Usage: node bench/benign-stress/run.mjs [bindings path] [seed] [--out flagged.jsonl]
// Scans every generated benign value (gen.mjs: column lists, CSV texts, inventory lines, prose,
// markdown, technical text, names; 36,000 values for a seed) with every default rule on; prints
// flagged counts per family, per family/sub and per rule and 10 examples per rule; with --out,
// writes every flagged value with its findings. Nothing is asserted: a false-positive probe.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generate } from './gen.mjs';

const args = process.argv.slice(2);
const o = args.indexOf('--out');
const out = o >= 0 ? args[o + 1] : null;
const pos = args.filter((a, i) => !a.startsWith('--') && (o < 0 || i !== o + 1));
const bindings = pos[0] ?? fileURLToPath(new URL('../../dist/bindings/index.js', import.meta.url));
const seed = Number(pos[1] ?? 1337);
const { Engine } = await import(bindings);
const e = new Engine();
const values = generate(seed);

const fam = {}, sub = {}, rule = {}, examples = {};
const flagged = [];
const t0 = Date.now();
for (const v of values) {
  const fk = v.family, sk = `${v.family}/${v.sub}`;
  fam[fk] ??= [0, 0]; sub[sk] ??= [0, 0];
  fam[fk][0]++; sub[sk][0]++;
  const f = e.scan(v.value);
  if (!f.length) continue;
  fam[fk][1]++; sub[sk][1]++;
  flagged.push({ ...v, findings: f });
  for (const r of new Set(f.map((x) => x.rule))) {
    rule[r] ??= { n: 0, fams: {} };
    rule[r].n++; rule[r].fams[sk] = (rule[r].fams[sk] ?? 0) + 1;
    (examples[r] ??= []).push({ sk, value: v.value, matched: f.filter((x) => x.rule === r).map((x) => x.matched) });
  }
}
if (out) fs.writeFileSync(out, flagged.map((x) => JSON.stringify(x)).join('\n') + (flagged.length ? '\n' : ''));

const pct = (a, b) => (100 * a / b).toFixed(2) + '%';
console.log(`bindings: ${bindings}  seed: ${seed}  values: ${values.length}  flagged: ${flagged.length} (${pct(flagged.length, values.length)})  ${Date.now() - t0} ms`);
console.log('\n== per family (flagged / total)');
for (const [k, [n, fl]] of Object.entries(fam).sort()) console.log(`${k.padEnd(12)} ${String(fl).padStart(5)} / ${String(n).padStart(5)}  ${pct(fl, n)}`);
console.log('\n== per family/sub (only those with flags)');
for (const [k, [n, fl]] of Object.entries(sub).sort()) if (fl) console.log(`${k.padEnd(28)} ${String(fl).padStart(5)} / ${String(n).padStart(5)}  ${pct(fl, n)}`);
console.log('\n== per rule (values flagged)');
for (const [k, o] of Object.entries(rule).sort((a, b) => b[1].n - a[1].n)) {
  console.log(`${k.padEnd(40)} ${String(o.n).padStart(5)}   ${Object.entries(o.fams).sort((a, b) => b[1] - a[1]).map(([s, c]) => `${s}:${c}`).join(' ')}`);
}
// 10 examples per rule, spread over the families/subs that triggered it (deterministic)
console.log('\n== examples (10 per rule)');
for (const [k, list] of Object.entries(examples).sort()) {
  console.log(`-- ${k}`);
  const bySub = {};
  for (const x of list) (bySub[x.sk] ??= []).push(x);
  const subs = Object.keys(bySub).sort();
  const shown = [];
  for (let i = 0; shown.length < Math.min(10, list.length); i++) for (const s of subs) { if (bySub[s][i] && shown.length < 10) shown.push(bySub[s][i]); }
  for (const x of shown) console.log(`   [${x.sk}] ${JSON.stringify(x.value)}  => ${JSON.stringify(x.matched)}`);
}
