// A false-positive probe for encoded uploads: line-wrapped base64 of random bytes (a PEM body, a
// MIME part, an image pasted into a JSON field), 76 characters a line (64 for a quarter of them),
// LF or CR LF, 200 to 1,000 bytes each, from a seeded generator. Every value is benign; prints
// how many were flagged, per rule, with examples. Nothing is asserted.
//
//   node bench/benign-stress/base64.mjs [bindings path] [--texts 40000] [--seed 1337] [--against other bindings path]

import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { mulberry32 } from './gen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const positional = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const bindings = path.resolve(positional[0] ?? path.join(here, '../../dist/bindings/index.js'));
const against = opt('against', null);
const TEXTS = Number(opt('texts', 40000));
const SEED = Number(opt('seed', 1337));

const r = mulberry32(SEED);
const texts = [];
for (let i = 0; i < TEXTS; i++) {
  const bytes = Buffer.alloc(200 + Math.floor(r() * 801));
  for (let k = 0; k < bytes.length; k++) bytes[k] = Math.floor(r() * 256);
  const b64 = bytes.toString('base64');
  const width = r() < 0.25 ? 64 : 76;
  const lines = [];
  for (let k = 0; k < b64.length; k += width) lines.push(b64.slice(k, k + width));
  texts.push(lines.join(r() < 0.5 ? '\n' : '\r\n'));
}

async function probe(file) {
  const { scan } = await import(pathToFileURL(file).href);
  const flagged = new Set();
  const shown = new Map();
  const byRule = new Map();
  texts.forEach((t, i) => {
    const f = scan(t);
    if (f.length === 0) return;
    flagged.add(i);
    shown.set(i, f.map((x) => `${x.rule} ${JSON.stringify(t.slice(Math.max(0, x.start - 8), x.end + 8))}`).join(', '));
    for (const x of f) {
      const e = byRule.get(x.rule) ?? { n: 0, examples: [] };
      e.n++;
      if (e.examples.length < 5) e.examples.push(JSON.stringify(t.slice(Math.max(0, x.start - 8), x.end + 8)));
      byRule.set(x.rule, e);
    }
  });
  return { flagged, byRule, shown };
}

const mine = await probe(bindings);
console.log(`bindings: ${bindings}  seed: ${SEED}  texts: ${TEXTS}  flagged: ${mine.flagged.size} (${(mine.flagged.size * 100 / TEXTS).toFixed(3)}%)`);
for (const [rule, e] of [...mine.byRule].sort((a, b) => b[1].n - a[1].n)) {
  console.log(`  ${rule}: ${e.n}`);
  for (const x of e.examples) console.log(`     ${x}`);
}
if (against) {
  const other = await probe(path.resolve(against));
  const onlyOther = [...other.flagged].filter((i) => !mine.flagged.has(i)).length;
  const onlyMine = [...mine.flagged].filter((i) => !other.flagged.has(i)).length;
  console.log(`against ${path.resolve(against)}: flagged ${other.flagged.size}; only there ${onlyOther}, only here ${onlyMine}`);
  // what differs, with the finding (here, or there)
  for (const [who, a, b] of [['only here', mine, other], ['only there', other, mine]]) {
    for (const i of a.flagged) if (!b.flagged.has(i)) console.log(`  ${who}: ${a.shown.get(i)}`);
  }
}
