// applyEdits (sanitize mode's rewriting): several findings in one value or key are one edit, with
// few edits (compared one by one) and with many (a Set of joined paths) alike.

import { describe, it, expect } from 'vitest';
import { applyEdits } from '../../dist/middleware/rewrite.js';
import { defaultEngine, sanitizeString } from '../../dist/middleware/index.js';

const engine = defaultEngine();
const dangerous = (name) => name === '$where' || name === '__proto__';

function body(n) {
  const o = { keep: 'plain text', nested: { deep: ['<script>x</script>', 'ok'] } };
  for (let i = 0; i < n; i++) o[`f${i}`] = `<img src=x onerror=alert(${i})>`;
  o['<b>k</b>'] = 'v';
  o.$where = 'sleep(1)';
  return o;
}

function editsFor(o, copies) {
  const edits = [];
  for (let c = 0; c < copies; c++) {
    for (const k of Object.keys(o)) {
      if (k.startsWith('f')) edits.push({ path: ['body', k], part: 'value', structural: false });
    }
    edits.push({ path: ['body', 'nested', 'deep', 0], part: 'value', structural: false });
    edits.push({ path: ['body', '<b>k</b>'], part: 'key', structural: false });
    edits.push({ path: ['body', '$where'], part: 'key', structural: true });
  }
  return edits;
}

describe('applyEdits', () => {
  for (const n of [1, 3, 20]) {
    it(`${n} hostile values, each edit given three times (${editsFor(body(n), 3).length} edits): every value sanitized exactly once`, () => {
      const root = { body: body(n) };
      // sanitizeString is idempotent, so a value sanitized twice would look right: count the calls
      let calls = 0;
      const counting = { sanitize: (v) => { calls++; return engine.sanitize(v); } };
      applyEdits(root, editsFor(root.body, 3), counting, dangerous);
      expect(calls).toBe(n + 2); // each value, the nested one, the renamed key
      for (let i = 0; i < n; i++) expect(root.body[`f${i}`]).toBe(sanitizeString(`<img src=x onerror=alert(${i})>`));
      expect(root.body.nested.deep).toEqual([sanitizeString('<script>x</script>'), 'ok']);
      expect(root.body.keep).toBe('plain text');
      expect(Object.hasOwn(root.body, '$where')).toBe(false);
      expect(Object.hasOwn(root.body, '<b>k</b>')).toBe(false);
      expect(root.body[sanitizeString('<b>k</b>')]).toBe('v');
    });
  }
  it('paths that differ only in a later element are different edits', () => {
    const root = { body: { a: ['<i>1</i>', '<i>2</i>'] } };
    applyEdits(root, [
      { path: ['body', 'a', 0], part: 'value', structural: false },
      { path: ['body', 'a', 1], part: 'value', structural: false },
    ], engine, dangerous);
    expect(root.body.a).toEqual([sanitizeString('<i>1</i>'), sanitizeString('<i>2</i>')]);
  });
});
