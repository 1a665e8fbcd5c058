// The shield module every part of the benchmark uses: the dist/ snapshot named by
// SHIELD_BENCH_DIST (set by run.mjs, inherited by the probe workers), else '@shield/node'.
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = process.env.SHIELD_BENCH_DIST;
export const shield = await import(dist ? pathToFileURL(dist).href : '@shield/node');
export const shieldSource = dist ? path.relative(root, dist) : '@shield/node (package by name)';
