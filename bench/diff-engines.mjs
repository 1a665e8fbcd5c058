// Differential check for engine changes that should not change what is detected (speed work):
// scans the development corpus, every vector file, 200,000 short and 10,000 long seeded
// token-soup strings with two builds of the bindings and prints every value whose findings differ.
//
//   git worktree add /tmp/base <commit> && (cd /tmp/base && ln -s "$PWD/../<repo>/node_modules" . && npm run build)
//   node bench/diff-engines.mjs /tmp/base/dist/bindings/index.js [dist/bindings/index.js]
//
// "misses" (a rule the base reported and the candidate did not) are what to look at first.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { prng } from './inputs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [baseArg, candArg = path.join(here, '../dist/bindings/index.js')] = process.argv.slice(2);
if (!baseArg) {
  console.error('usage: node bench/diff-engines.mjs <base bindings index.js> [candidate bindings index.js]');
  process.exit(2);
}
const BASE = await import(pathToFileURL(path.resolve(baseArg)).href);
const CAND = await import(pathToFileURL(path.resolve(candArg)).href);

const inputs = [];
const corpus = path.join(here, '../../shared/corpus/dev.jsonl');
if (fs.existsSync(corpus)) {
  for (const line of fs.readFileSync(corpus, 'utf8').split('\n')) if (line.trim()) inputs.push(JSON.parse(line).text);
}
const vectors = path.join(here, '../tests/vectors');
for (const f of fs.readdirSync(vectors)) {
  JSON.parse(fs.readFileSync(path.join(vectors, f), 'utf8'), (k, v) => { if (k === 'input' && typeof v === 'string') inputs.push(v); return v; });
}
// token soup: SQL, HTML and path pieces next to prose words, contractions and quotes
const T = ["don't", "it's", "O'Brien", 'the', "'best'", "you'll", '"quoted"', 'really', 'hello', ' ', ' ', '--\n', ')',
  "'", '"', ' ', ';', '(', ')', '=', '1', 'or', 'and', 'union', 'select', 'drop', 'table', 'sleep', '(5)', '/**/', '--', '#',
  'from', 'users', 'x', 'benchmark', ',', '<', 'script', '>', 'javascript', ':', 'alert', '..', '/', '\\', 'etc/passwd', '%27',
  '&#39;', 'exec', 'xp_cmdshell', 'waitfor', 'delay', "'0:0:5'", 'into', 'outfile', '@@version', 'a', '\n', 'insert', 'update',
  'set', 'declare', '@x', 'load_file', 'pg_sleep', '||', '&&', '1=1', 'like', 'is', 'null', 'char', 'concat', 'if', 'case', 'when'];
const rand = prng(7);
for (let i = 0; i < 200_000; i++) {
  const n = 1 + Math.floor(rand() * 14);
  let s = '';
  for (let j = 0; j < n; j++) s += T[Math.floor(rand() * T.length)];
  inputs.push(s);
}

// long values (past the engine's 64-unit blocks): the same soup with encoded, full-width and
// invisible pieces and other white space, so that vector passes, block edges, decoding and NFKC
// are all exercised
const L = [...T, '%3Cscript%3E', '%2e%2e%2f', '&lt;', '&#x3c;', '&amp;', '%', '&', '\t', '\r\n', '\u00a0', 'caf\u00e9',
  '\uff53\uff43\uff52\uff49\uff50\uff54', '\u200b', '0x2f', '$(', '`', '|', '{{7*7}}', '${', 'http://example.com/a?b=c',
  '<!--', '-->', '<!ENTITY', 'Lorem ipsum dolor sit amet, ', 'The quick brown fox. '];
for (let i = 0; i < 10_000; i++) {
  const n = 20 + Math.floor(rand() * 400);
  let s = '';
  for (let j = 0; j < n; j++) s += L[Math.floor(rand() * L.length)];
  inputs.push(s);
}

const key = (fs_) => fs_.map((x) => `${x.rule}@${x.start}-${x.end}`).sort().join(',');
let misses = 0, extras = 0, moved = 0, sanitizeDiffs = 0;
for (const s of inputs) {
  const a = BASE.scan(s), b = CAND.scan(s);
  if (key(a) !== key(b)) {
    const ra = new Set(a.map((x) => x.rule)), rb = new Set(b.map((x) => x.rule));
    const lost = [...ra].filter((r) => !rb.has(r)), found = [...rb].filter((r) => !ra.has(r));
    const kind = lost.length ? 'MISS' : found.length ? 'EXTRA' : 'MOVED';
    if (kind === 'MISS') misses++; else if (kind === 'EXTRA') extras++; else moved++;
    console.log(kind, JSON.stringify(s).slice(0, 160), '\n   base:', key(a) || '-', '\n   cand:', key(b) || '-');
    // where a lost rule was, with some context (long values are cut above)
    for (const x of a) if (lost.includes(x.rule)) console.log(`   lost ${x.rule}: ${JSON.stringify(s.slice(Math.max(0, x.start - 24), x.end + 24))}`);
  }
  if (BASE.sanitizeString(s) !== CAND.sanitizeString(s)) sanitizeDiffs++;
}
console.log(`${inputs.length} values: ${misses} misses, ${extras} extra findings, ${moved} moved spans; sanitizeString differs on ${sanitizeDiffs}`);
