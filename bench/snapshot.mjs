// Engine snapshot. `npm run bench` first copies dist/bindings/ (the compiled
// bindings with the engine embedded) into .bench-out/engine-snapshot/ and every part of the run,
// main thread and probe workers, imports that copy: a rebuild of dist/ during the run (another
// engineer building) cannot mix two engine builds in one set of results.
// run.mjs puts the snapshot's path in SHIELD_BENCH_DIST; load-shield.mjs imports it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function listFiles(dir, base = dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? listFiles(p, base) : [path.relative(base, p)];
  });
}

const sameTree = (a, b) => {
  const fa = listFiles(a).filter((f) => f.endsWith('.js')).sort();
  return fa.every((f) => fs.existsSync(path.join(b, f)) && fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))));
};

/** Copies dist/bindings to .bench-out/engine-snapshot (retrying while dist/ is being rewritten); returns its index.js path. */
export function snapshotDist() {
  const src = path.join(root, 'dist/bindings');
  const dst = path.join(root, '.bench-out/engine-snapshot');
  for (let attempt = 0; attempt < 20; attempt++) {
    fs.rmSync(dst, { recursive: true, force: true });
    fs.cpSync(src, dst, { recursive: true });
    // a copy taken while tsc was writing would differ from dist/ a moment later
    const until = Date.now() + 300;
    while (Date.now() < until);
    if (sameTree(src, dst) && sameTree(dst, src)) return path.join(dst, 'index.js');
  }
  throw new Error('dist/bindings kept changing while it was copied; try again when the build is idle');
}

