// Hand-rolled timing: one timed first call, a short warm-up, then several samples of a
// calibrated number of iterations; the figure is the median time per call. Every result is
// folded into a sink that is returned (and written to results.json), so no call can be
// eliminated as dead code.

const now = () => process.hrtime.bigint();

/** Folds a call's result into a number: string length, array length, or nested array lengths. */
export function consume(r) {
  if (typeof r === 'string') return r.length;
  if (typeof r === 'number') return r;
  if (Array.isArray(r)) {
    let n = r.length;
    for (let i = 0; i < r.length; i++) if (Array.isArray(r[i])) n += r[i].length;
    return n;
  }
  return r ? 1 : 0;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Times fn(arg). Options:
 *  - capMs: if the first call takes longer, stop there ({ over: true }).
 *  - slowMs: first call slower than this: no warm-up, 2 more single-call samples at most.
 *  - warmupMs: warm-up duration (at least 2 calls).
 *  - minSampleMs: each sample runs enough iterations to last at least this long.
 *  - minSamples / maxSamples / budgetMs: number of samples is budgetMs / sample time, clamped.
 *  - onFirst(ms): called after the first call (the probe worker reports progress with it).
 * Returns { ns (median per call), minNs, maxNs, firstMs, iters, samples, sink, over }.
 */
export function measure(fn, arg, opts = {}) {
  const {
    capMs = Infinity, slowMs = 1000, warmupMs = 25, minSampleMs = 2,
    minSamples = 5, maxSamples = 15, budgetMs = 250, onFirst,
  } = opts;
  let sink = 0;
  let t0 = now();
  sink += consume(fn(arg));
  const firstNs = Number(now() - t0);
  const firstMs = firstNs / 1e6;
  onFirst?.(firstMs);
  if (firstMs > capMs) return { over: true, firstMs, ns: firstNs, minNs: firstNs, maxNs: firstNs, iters: 1, samples: 1, sink };

  if (firstMs >= slowMs) {
    // one call is already slow: a median of up to three single calls (the first included)
    const xs = [firstNs];
    const more = firstMs * 3 < capMs ? 2 : 1;
    for (let k = 0; k < more; k++) {
      t0 = now();
      sink += consume(fn(arg));
      xs.push(Number(now() - t0));
    }
    return { over: false, firstMs, ns: median(xs), minNs: Math.min(...xs), maxNs: Math.max(...xs), iters: 1, samples: xs.length, sink };
  }

  // warm-up, which also estimates the per-call time
  let calls = 0;
  const wStart = now();
  let elapsed = 0;
  while (calls < 2 || elapsed < warmupMs * 1e6) {
    sink += consume(fn(arg));
    calls++;
    elapsed = Number(now() - wStart);
  }
  const est = Math.max(elapsed / calls, 1);
  const iters = Math.max(1, Math.ceil((minSampleMs * 1e6) / est));
  const nSamples = Math.min(maxSamples, Math.max(minSamples, Math.floor((budgetMs * 1e6) / (iters * est))));
  const xs = [];
  for (let s = 0; s < nSamples; s++) {
    t0 = now();
    for (let i = 0; i < iters; i++) sink += consume(fn(arg));
    xs.push(Number(now() - t0) / iters);
  }
  return { over: false, firstMs, ns: median(xs), minNs: Math.min(...xs), maxNs: Math.max(...xs), iters, samples: nSamples, sink };
}

export function fmtTime(ns) {
  if (ns == null || !Number.isFinite(ns)) return '-';
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} us`;
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`;
  return `${(ns / 1e9).toPrecision(3)} s`;
}

export function fmtRate(mbps) {
  if (mbps == null || !Number.isFinite(mbps)) return '-';
  return mbps >= 1000 ? `${(mbps / 1000).toFixed(2)} GB/s` : `${mbps.toPrecision(3)} MB/s`;
}
