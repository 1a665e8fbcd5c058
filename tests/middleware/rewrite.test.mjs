// applyEdits (sanitize mode's rewriting): several findings in one value or key are one edit, with
// few edits (compared one by one) and with many (a Set of joined paths) alike.

import { describe, it, expect } from 'vitest';
import { applyEdits, neutralize } from '../../dist/middleware/rewrite.js';
import { defaultEngine, sanitizeString, scan } from '../../dist/middleware/index.js';
import { DETECTOR_FILES, loadVectors } from '../support/vectors.mjs';

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
      const counting = { sanitize: (v) => { calls++; return engine.sanitize(v); }, scan: (v) => engine.scan(v) };
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

describe('neutralize: what sanitize mode hands on for a value with a finding', () => {
  it.each([
    // SPEC's sanitizeString when that leaves nothing the engine flags
    ['<script>alert(1)</script>hi', 'hi'],
    ['../docs/a.txt', 'docs/a.txt'],
    ["' OR 1=1--", '&#39; [BLOCKED]--'],
    // the command sanitizer when the default one leaves a command line
    ['; cat notes.txt', ' cat notes.txt'],
    ['$(sleep 5)', 'sleep 5)'],
    // the XML sanitizer when HTML-encoding leaves a DOCTYPE for the engine to find
    ['<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', '&lt;x&gt;&amp;e;&lt;/x&gt;'],
    // nothing usable: no sanitizer for the vector, or what is left is still an attack
    ['http://169.254.169.254/latest/meta-data/', ''],
    ['admin)(|(uid=*', ''],
    ["'; return true; //", ''],
    ['../../etc/passwd', ''],
    ['javascript:alert(1)', ''],
  ])('%j -> %j', (v, want) => {
    expect(scan(v).length).toBeGreaterThan(0);
    expect(neutralize(engine, v)).toBe(want);
  });

  it('no attack vector of the detector files is handed on with a finding, and what the default sanitizer cleans is its text', () => {
    const problems = [];
    let kept = 0;
    let emptied = 0;
    for (const file of DETECTOR_FILES) {
      for (const c of loadVectors(file).cases) {
        if (typeof c.input !== 'string' || scan(c.input).length === 0) continue;
        const out = neutralize(engine, c.input);
        if (scan(out).length > 0) problems.push([c.input, out]);
        const viaDefault = sanitizeString(c.input);
        if (scan(viaDefault).length === 0 && out !== viaDefault) problems.push([c.input, 'not sanitizeString', out]);
        if (out === '') emptied++; else kept++;
      }
    }
    expect(problems).toEqual([]);
    // both outcomes occur (a check that the loop saw values of each kind)
    expect(kept).toBeGreaterThan(100);
    expect(emptied).toBeGreaterThan(10);
  });
});
