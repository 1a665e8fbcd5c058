// Linear-time probe (main-thread side). For each subject and input family, times one call at
// each size in a worker thread; a call slower than capMs stops that family for that subject
// (larger sizes are skipped), and a call that does not return at all within the watchdog
// time is killed with worker.terminate().
import { Worker } from 'node:worker_threads';

const WORKER_URL = new URL('./probe-worker.mjs', import.meta.url);

class CellRunner {
  constructor() {
    this.worker = null;
  }

  spawn() {
    this.worker = new Worker(WORKER_URL);
    this.worker.unref();
  }

  async stop() {
    if (this.worker) await this.worker.terminate();
    this.worker = null;
  }

  /** Resolves with the worker's result, or { aborted: true } after the watchdog fired. */
  run(msg, capMs) {
    if (!this.worker) this.spawn();
    const w = this.worker;
    return new Promise((resolve) => {
      let timer;
      const arm = (ms) => {
        clearTimeout(timer);
        timer = setTimeout(async () => {
          w.off('message', onMsg);
          w.off('error', onErr);
          this.worker = null;
          await w.terminate();
          resolve({ aborted: true, abortedAfterMs: ms });
        }, ms);
      };
      const onMsg = (m) => {
        if (m.type === 'first') {
          // first call returned: the rest is bounded by the sampling budget; allow generous slack
          arm(Math.max(15_000, m.ms * 8 + (msg.opts.budgetMs ?? 250) * 4));
        } else if (m.type === 'done') {
          clearTimeout(timer);
          w.off('message', onMsg);
          w.off('error', onErr);
          resolve(m.result);
        }
      };
      const onErr = (e) => {
        clearTimeout(timer);
        w.off('message', onMsg);
        this.worker = null;
        resolve({ error: `worker died: ${e?.message ?? e}` });
      };
      w.on('message', onMsg);
      w.on('error', onErr);
      // first call: cap plus time to load the worker and build the input
      arm(capMs + 3_000);
      w.postMessage(msg);
    });
  }
}

/** Slope of log(t) against log(n) by least squares over the points given. */
export function logSlope(points) {
  const pts = points.filter((p) => p.ns > 0 && Number.isFinite(p.ns));
  if (pts.length < 2) return null;
  const xs = pts.map((p) => Math.log(p.size));
  const ys = pts.map((p) => Math.log(p.ns));
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}

/**
 * Runs every (subject, family, size) cell. Returns
 * { [subject]: { [family]: { cells: [{ size, ns, ... }], skippedFrom, note } } }.
 */
export async function runProbe({ subjects, families, sizes, capMs = 5000, optsFor, log = () => {}, deadlineMs = Infinity }) {
  const out = {};
  const start = Date.now();
  let deadlineLogged = false;
  for (const subject of subjects) {
    const runner = new CellRunner();
    out[subject] = {};
    for (const fam of families) {
      const entry = { cells: [], skippedFrom: null, note: null };
      out[subject][fam.name] = entry;
      for (const size of sizes) {
        if (entry.skippedFrom != null) {
          entry.cells.push({ size, skipped: true });
          continue;
        }
        if (Date.now() - start > deadlineMs) {
          entry.cells.push({ size, skipped: true });
          entry.note = `probe time budget (${deadlineMs / 1000} s) used up: not measured from ${size} chars on`;
          entry.skippedFrom = size;
          if (!deadlineLogged) log(`  probe time budget (${deadlineMs / 1000} s) used up: the remaining cells are skipped`);
          deadlineLogged = true;
          continue;
        }
        const opts = { capMs, ...optsFor(subject, size) };
        const r = await runner.run({ subject, family: fam.name, size, opts }, capMs);
        entry.cells.push({ size, ...r });
        if (r.error) {
          entry.note = `error at ${size}: ${r.error}`;
          entry.skippedFrom = size;
        } else if (r.aborted) {
          entry.note = `killed: no answer within ${(r.abortedAfterMs / 1000).toFixed(0)} s at ${size} chars; larger sizes skipped`;
          entry.skippedFrom = size;
        } else if (r.over) {
          entry.note = `one call took ${(r.firstMs / 1000).toFixed(1)} s (> ${capMs / 1000} s) at ${size} chars; larger sizes skipped`;
          entry.skippedFrom = size;
        }
        if (entry.note && entry.skippedFrom === size) log(`  ${subject} / ${fam.name}: ${entry.note}`);
      }
    }
    await runner.stop();
  }
  return out;
}
