// Self-test of the probe's safety nets (not part of `npm run bench`): a deliberately quadratic
// function must be stopped at 100 KB (one call over the 5 s cap, or killed by the watchdog at
// cap + 3 s) with 1 MB skipped, and killed by the watchdog at 1 MB when sent there directly.
// Takes ~20 s. Run: node bench/probe-selftest.mjs
import { runProbe } from './linear-probe.mjs';
import { FAMILIES } from './inputs.mjs';

const fam = [FAMILIES[0]];
const opts = { subjects: ['selftest-quadratic'], families: fam, capMs: 5000, optsFor: () => ({ budgetMs: 100 }), log: console.log };
const show = (r) => r['selftest-quadratic'].a.cells.map((c) => `${c.size}: ${c.skipped ? 'skipped' : c.aborted ? 'killed' : c.over ? `over cap (${(c.firstMs / 1000).toFixed(1)} s)` : `${(c.ns / 1e6).toFixed(2)} ms`}`).join(', ');

const a = await runProbe({ ...opts, sizes: [1e3, 1e4, 1e5, 1e6] });
console.log(`cap:      ${show(a)}`);
const b = await runProbe({ ...opts, sizes: [1e3, 1e6, 2e6] });
console.log(`watchdog: ${show(b)}`);
const okA = a['selftest-quadratic'].a.cells[3].skipped;
const okB = b['selftest-quadratic'].a.cells[1].aborted && b['selftest-quadratic'].a.cells[2].skipped;
console.log(okA && okB ? 'probe self-test passed' : 'probe self-test FAILED');
process.exit(okA && okB ? 0 : 1);
