// One value made of a repeated unit, through the bindings (engine call, packing, and the checks
// the bindings make on decoded text: SSRF, JSON keys), for the figures of families whose cost is
// partly in JavaScript; `bench/wasm-only.mjs --unit` times the engine alone.
//
//   node bench/scan-unit.mjs [path to a bindings index.js] --unit 'http://a/' [--size 1048576]
//        [--sanitize]   time sanitizeString instead of scan
//        (a '{n}' in the unit becomes a counter in base 36: 'http://h{n}/' gives distinct hosts)
//
// Prints the best of 5 calls after 2 warm-up calls, and the findings (or the output length).
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const unit = opt('--unit');
if (unit === undefined) {
  console.error("usage: node bench/scan-unit.mjs [bindings index.js] --unit U [--size N] [--sanitize]");
  process.exit(2);
}
const size = Number(opt('--size') ?? 1 << 20);
const sanitize = args.includes('--sanitize');
const positional = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--unit' && args[i - 1] !== '--size');
const bindings = path.resolve(positional[0] ?? path.join(here, '../dist/bindings/index.js'));
const { Engine } = await import(pathToFileURL(bindings).href);
const engine = new Engine({ maxValueLength: Math.max(size, 1 << 20) });

let value = '';
for (let n = 0; value.length < size; n++) value += unit.includes('{n}') ? unit.replaceAll('{n}', n.toString(36)) : unit;
value = value.slice(0, size);

const call = sanitize ? () => engine.sanitize(value) : () => engine.scan(value);
let out = call();
out = call();
let best = Infinity;
for (let r = 0; r < 5; r++) {
  const t0 = process.hrtime.bigint();
  out = call();
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
}
const what = sanitize ? `sanitizeString: ${out.length} units out` : `scan: ${out.map((f) => f.rule).join(', ') || 'no findings'}`;
console.log(`${JSON.stringify(unit)} to ${size} units, ${path.relative(process.cwd(), bindings)}: ${best.toFixed(2)} ms (${what})`);
