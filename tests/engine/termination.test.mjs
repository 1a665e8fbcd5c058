// Random strings made of the characters and words the detectors anchor on (';' '=' '(' '/*',
// quotes, UNION, '..', '0x2f', '%', '&'): every scan returns (a loop that stops advancing would
// hang here until vitest's time-out) and gives the same findings as a fresh engine.
import { describe, it, expect } from 'vitest';
import { Engine } from '@shield/node';

const PIECES = [';', '=', '(', ')', '/', '*', "'", '"', '`', 'a', ' ', 'union', 'select', 'sleep', 'exec', 'x_y', '-', '#',
  '<', '>', '<!--', 'on', 'javascript:', '0x2f', '..', '%', '%2', '&', '&#', '\\', '+', '@@', '\u00e9', '\ud83d'];

function* strings(count, seed) {
  let s = seed;
  const r = (n) => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s % n; };
  for (let i = 0; i < count; i++) {
    let v = '';
    const k = r(48);
    for (let j = 0; j < k; j++) v += PIECES[r(PIECES.length)];
    yield v;
  }
}

describe('termination on anchor-dense input', () => {
  it('30,000 random values return, and a long-lived engine answers like a fresh one', () => {
    const engine = new Engine();
    const values = [...strings(30_000, 7)];
    for (let i = 0; i < values.length; i += 100) engine.scanValues(values.slice(i, i + 100));
    expect(engine.faults).toBe(0);
    const fresh = new Engine();
    for (const v of values.slice(0, 2000)) {
      expect(JSON.stringify(engine.scan(v))).toBe(JSON.stringify(fresh.scan(v)));
    }
  });
});
