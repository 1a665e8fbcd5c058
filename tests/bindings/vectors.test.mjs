// The shared vector files through the public API of @shield/node: scan, scanValues (one batch),
// sanitizeString, decode, plus rule switching, `matched` limits and offsets.

import { describe, it, expect, beforeAll } from 'vitest';
import { scan, scanValues, sanitizeString, decode, Engine } from '@shield/node';
import { loadVectors, DETECTOR_FILES, ruleIdsFromSource, label, firstCodePoints } from '../support/vectors.mjs';

const files = Object.fromEntries(DETECTOR_FILES.map((n) => [n, loadVectors(n)]));
const brief = (fs) => fs.map((f) => `${f.rule} [${f.start},${f.end}) ${JSON.stringify(f.matched)}`);

// ---------------------------------------------------------------- detector vectors

for (const name of DETECTOR_FILES) {
  const file = files[name];
  describe(`${name}.json: scan`, () => {
    for (const c of file.cases) {
      it(`${c.attack ? 'attack' : 'benign'}: ${label(c.input)}`, () => {
        const fs = scan(c.input);
        if (c.attack) {
          expect(fs.filter((f) => f.vector === file.vector).length, `no ${file.vector} finding; got ${JSON.stringify(brief(fs))}`).toBeGreaterThan(0);
          if (c.rule) expect(fs.map((f) => f.rule), `rule ${c.rule} missing`).toContain(c.rule);
        } else {
          expect(brief(fs), 'benign input must have no finding').toEqual([]);
        }
      });
    }
  });

  const withSanitized = file.cases.filter((c) => c.sanitized !== undefined);
  const opts = file.sanitizeOptions ?? {};
  describe(`${name}.json: sanitizeString`, () => {
    it('the file has expected sanitizer outputs', () => {
      expect(withSanitized.length).toBeGreaterThan(3);
    });
    for (const c of withSanitized) {
      it(`${label(c.input)} -> ${label(c.sanitized)}`, () => {
        expect(sanitizeString(c.input, opts)).toBe(c.sanitized);
      });
    }
    it('sanitizeString is idempotent on every case of the file', () => {
      const notFixed = [];
      for (const c of file.cases) {
        const once = sanitizeString(c.input, opts);
        const twice = sanitizeString(once, opts);
        if (twice !== once) notFixed.push({ input: c.input, once, twice });
      }
      expect(notFixed).toEqual([]);
    });
  });
}

describe('scanValues: every detector case in one batch', () => {
  const all = DETECTOR_FILES.flatMap((n) => files[n].cases.map((c) => ({ ...c, vector: files[n].vector })));
  let batch;
  beforeAll(() => {
    batch = scanValues(all.map((c) => c.input));
  });

  it('returns one finding list per value, equal to scanning each value alone', () => {
    expect(batch.length).toBe(all.length);
    const differing = [];
    all.forEach((c, i) => {
      if (JSON.stringify(batch[i]) !== JSON.stringify(scan(c.input))) differing.push(c.input);
    });
    expect(differing).toEqual([]);
  });

  it('attack values have a finding of their vector, benign values none', () => {
    const wrong = [];
    all.forEach((c, i) => {
      const ok = c.attack ? batch[i].some((f) => f.vector === c.vector && (!c.rule || batch[i].some((g) => g.rule === c.rule))) : batch[i].length === 0;
      if (!ok) wrong.push({ input: c.input, attack: c.attack, rule: c.rule, got: brief(batch[i]) });
    });
    expect(wrong).toEqual([]);
  });

  it('offsets slice the decoded text to the matched text, and matched is at most 80 code points', () => {
    const bad = [];
    all.forEach((c, i) => {
      const decoded = decode(c.input);
      for (const f of batch[i]) {
        const slice = decoded.slice(f.start, f.end);
        const ok = Number.isInteger(f.start) && Number.isInteger(f.end) && f.start >= 0 && f.start <= f.end && f.end <= decoded.length &&
          slice.startsWith(f.matched) && [...f.matched].length <= 80 && f.matched === firstCodePoints(slice, 80);
        if (!ok) bad.push({ input: c.input, finding: f, slice });
      }
    });
    expect(bad).toEqual([]);
  });

  it('every finding names a rule of its vector', () => {
    for (const fs of batch) for (const f of fs) expect(f.rule.startsWith(`patterns.${f.vector}.`)).toBe(true);
  });
});

// ---------------------------------------------------------------- decode vectors

for (const name of ['nfkc', 'decode']) {
  const file = loadVectors(name);
  describe(`${name}.json: decode`, () => {
    for (const c of file.cases) {
      it(`${label(c.input)} -> ${label(c.output)}`, () => {
        expect(decode(c.input)).toBe(c.output);
        const rules = scan(c.input).map((f) => f.rule);
        if (c.rule) expect(rules).toContain(c.rule);
        else expect(rules).not.toContain('patterns.decode.excess-encoding');
      });
    }
  });
}

// ---------------------------------------------------------------- rules.disable

describe('rules.disable', () => {
  it('engine.rules lists every rule id of assembly/rules/*.json', () => {
    const ids = new Engine().rules.map((r) => r.id);
    for (const id of ruleIdsFromSource()) expect(ids).toContain(id);
  });

  it('disabling patterns.sql.comment stops that rule only', () => {
    const values = ["admin'--", "' OR 1=1--", '1 UNION SELECT 1,2,3', '<script>alert(1)</script>', '../../etc/passwd'];
    const before = new Engine().scanValues(values);
    expect(before[0].map((f) => f.rule)).toContain('patterns.sql.comment');
    const eng = new Engine({ rules: { disable: ['patterns.sql.comment'] } });
    const after = eng.scanValues(values);
    expect(after.flat().map((f) => f.rule)).not.toContain('patterns.sql.comment');
    // every other finding is unchanged
    const strip = (fss) => fss.map((fs) => fs.filter((f) => f.rule !== 'patterns.sql.comment'));
    expect(after).toEqual(strip(before));
    expect(after[1].map((f) => f.rule)).toContain('patterns.sql.tautology');
    expect(after[3].map((f) => f.rule)).toContain('patterns.xss.script-tag');
  });

  it("a vector wildcard 'patterns.sql.*' switches off every SQL rule and nothing else", () => {
    const eng = new Engine({ rules: { disable: ['patterns.sql.*'] } });
    const r = eng.scanValues(["' OR 1=1--", '1; DROP TABLE users', '<svg onload=alert(1)>', '../../etc/passwd']);
    expect(r[0]).toEqual([]);
    expect(r[1]).toEqual([]);
    expect(r[2].map((f) => f.vector)).toContain('xss');
    expect(r[3].map((f) => f.vector)).toContain('path');
  });

  it('the default engine is unaffected by another engine disabling rules', () => {
    new Engine({ rules: { disable: ['patterns.xss.*'] } });
    expect(scan('<script>alert(1)</script>').map((f) => f.rule)).toContain('patterns.xss.script-tag');
  });

  it('the rules for values that were not scanned cannot be switched off', () => {
    for (const id of ['patterns.limits.oversize', 'patterns.engine.fault', 'patterns.limits.*', 'patterns.engine.*']) {
      expect(() => new Engine({ rules: { disable: [id] } })).toThrow(id);
    }
    // with other rules off, an oversize value is still reported
    const eng = new Engine({ rules: { disable: ['patterns.sql.*'] }, maxValueLength: 10 });
    expect(eng.scan('x'.repeat(11)).map((f) => f.rule)).toEqual(['patterns.limits.oversize']);
  });

  it('bare data: URLs are still judged with the script-scheme rule off', () => {
    const eng = new Engine({ rules: { disable: ['patterns.xss.js-url'] } });
    const rules = eng.scan('data:text/html,<svg onload=alert(1)>').map((f) => f.rule);
    expect(rules).toContain('patterns.xss.data-url');
    expect(rules).not.toContain('patterns.xss.js-url');
  });

  it('an unknown rule id throws an Error naming it', () => {
    expect(() => new Engine({ rules: { disable: ['patterns.sql.no-such-rule'] } })).toThrow(/patterns\.sql\.no-such-rule/);
    expect(() => new Engine({ rules: { disable: ['patterns.nothing.*'] } })).toThrow(/patterns\.nothing\.\*/);
    let err;
    try { new Engine({ rules: { disable: ['patterns.xss.script-tag', 'typo.rule'] } }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain('typo.rule');
  });
});

// ---------------------------------------------------------------- matched and offsets

describe('matched and offsets', () => {
  it('matched is cut to 80 code points on a long hit', () => {
    const long = `<img src=x onerror="alert(1);${'a'.repeat(500)}">`;
    const fs = scan(long);
    expect(fs.length).toBeGreaterThan(0);
    for (const f of fs) {
      expect([...f.matched].length).toBeLessThanOrEqual(80);
      expect(long.slice(f.start, f.end).startsWith(f.matched)).toBe(true);
    }
    expect(fs.some((f) => f.end - f.start > 80 && [...f.matched].length === 80)).toBe(true);
  });

  it('matched counts code points, not UTF-16 units, and never splits a surrogate pair', () => {
    const v = `<img src=x onerror="${'😀'.repeat(200)}">`;
    const fs = scan(v);
    const eh = fs.find((f) => f.rule === 'patterns.xss.event-handler');
    expect(eh).toBeDefined();
    expect([...eh.matched].length).toBe(80);
    expect(eh.matched.length).toBeGreaterThan(80);
    expect(eh.matched).toBe(firstCodePoints(decode(v).slice(eh.start, eh.end), 80));
    expect(/[\ud800-\udbff]$/.test(eh.matched)).toBe(false);
  });

  it('offsets refer to the decoded text of an encoded value', () => {
    const v = 'hello %3Cscript%3Ealert(1)%3C%2Fscript%3E';
    const d = decode(v);
    expect(d).toBe('hello <script>alert(1)</script>');
    const f = scan(v).find((x) => x.rule === 'patterns.xss.script-tag');
    expect(f).toBeDefined();
    expect(f.start).toBe(6);
    expect(d.slice(f.start, f.end).startsWith(f.matched)).toBe(true);
    expect(f.matched.toLowerCase().startsWith('<script')).toBe(true);
  });

  it('offsets of a fullwidth value point into its NFKC form', () => {
    const v = 'ok ＜ｓｃｒｉｐｔ＞ａｌｅｒｔ(1)＜/ｓｃｒｉｐｔ＞';
    const d = decode(v);
    expect(d).toBe('ok <script>alert(1)</script>');
    const f = scan(v).find((x) => x.rule === 'patterns.xss.script-tag');
    expect(f).toBeDefined();
    expect(f.start).toBe(3);
    expect(d.slice(f.start, f.end).startsWith(f.matched)).toBe(true);
  });
});

describe('sanitizeString and percent-encoded spaces', () => {
  it.each([
    ['a%20b', 'a b'],
    ['hello%20world', 'hello world'],
    ['one%20two%20three', 'one two three'],
    ['%20', ' '],
  ])('%s -> %s', (input, out) => {
    expect(sanitizeString(input)).toBe(out);
  });

  it('options switch individual steps off', () => {
    expect(sanitizeString('<b>x</b>', { encode: false })).toBe('<b>x</b>');
    expect(sanitizeString('../../etc/passwd', { path: false })).toBe('../../etc/passwd');
    expect(sanitizeString('../../etc/passwd')).toBe('etc/passwd');
    expect(sanitizeString('<script>alert(1)</script>ok', { xss: false, encode: false })).toBe('<script>alert(1)</script>ok');
    expect(sanitizeString('<script>alert(1)</script>ok', { encode: false })).toBe('ok');
  });
});
