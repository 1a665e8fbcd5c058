// Worker side of the linear-time probe. Runs one (subject, family, size) cell per message so
// the main thread can terminate it when one call runs away (a quadratic scanner or sanitizer
// on a 1 MB input must not hang the benchmark).
import { parentPort } from 'node:worker_threads';
import { FAMILIES, BENIGN_FAMILY, CHAR_FAMILIES } from './inputs.mjs';
import { makeSubjects } from './subjects.mjs';
import { measure } from './timing.mjs';
import { shield } from './load-shield.mjs';
import { createHash } from 'node:crypto';

const engineSha256 = createHash('sha256').update(shield.engineBytes()).digest('hex').slice(0, 16);

const { fns } = makeSubjects();
const families = new Map([...FAMILIES, BENIGN_FAMILY, ...CHAR_FAMILIES].map((f) => [f.name, f]));
let cacheKey = '';
let cacheVal = '';

parentPort.on('message', (msg) => {
  const { subject, family, size, opts } = msg;
  try {
    const key = `${family}\0${size}`;
    if (key !== cacheKey) {
      cacheVal = families.get(family).make(size);
      cacheKey = key;
    }
    const fn = fns[subject];
    const input = cacheVal;
    const r = measure(fn, input, { ...opts, onFirst: (ms) => parentPort.postMessage({ type: 'first', ms }) });
    let findings;
    if (subject === 'shield scan') findings = [...new Set(fn(input).map((f) => f.rule))];
    parentPort.postMessage({ type: 'done', result: { ...r, findings, engineSha256 } });
  } catch (e) {
    parentPort.postMessage({ type: 'done', result: { error: String(e?.stack ?? e).split('\n').slice(0, 3).join(' | ') } });
  }
});
