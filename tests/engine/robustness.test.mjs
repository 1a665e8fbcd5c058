// Robustness of one engine instance: 100,000 malformed inputs in a row (deterministic generator),
// then it must still answer exactly like a fresh engine; the engine-fault path (a memory cap the
// input needs to exceed); the size cap; empty batches; non-string values.

import { describe, it, expect } from 'vitest';
import { Engine, scanValues } from '@shield/node';
import { prng } from '../../bench/inputs.mjs';

// ---------------------------------------------------------------- a deterministic generator

// mulberry32, the same seeded generator the benchmark inputs use
const rng = prng;

const TRUNCATED = ['%', '%4', '%u', '%u0', '%u00', '%u003', '%uD8', '%uD83D', '%c0', '%c0%', '%c0%a', '%e0%80', '%f0%80%80', '%ff',
  '%25', '%252', '%2525', '&', '&#', '&#x', '&#x3', '&#6', '&#0', '&#x110000', '&#99999999999', '&am', '&amp', '&lt', '&#x3c',
  '&NotNestedGreaterGreate', '&;', '&#;', '&#x;', '%%', '%u%u', '%c0%qf', '%c1%pc', '%bg%qf'];
const OPENERS = ['<a href="', "<a href='", '<img src=x onerror="', '<!--', '<!-', '<![CDATA[', '<script>', '<script', '</script',
  '<style>', '<svg', '<', '</', "'", '"', '`', '/*', '--', "' OR '1'='1", '("', "')", '<a href=javascript:', 'javascript:', '\\x3c',
  '\\u00', 'UNION SELECT', '../', '..\\', '%2e%2e%2f', '....//'];
const ODD = [0, 1, 0x1f, 0x7f, 0x85, 0xa0, 0xad, 0x200b, 0x200d, 0x2028, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xff05, 0xff06, 0xff1c, 0x3164];

function generator(seed) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (a) => a[int(a.length)];
  const run = (s, max) => s.repeat(1 + int(max));
  const binary = (n) => { let s = ''; for (let i = 0; i < n; i++) s += String.fromCharCode(int(0x10000)); return s; };
  const kinds = [
    () => pick(TRUNCATED) + (r() < 0.5 ? '' : pick(TRUNCATED)), // truncated escapes, at the very end
    () => { let s = ''; const n = 1 + int(12); for (let i = 0; i < n; i++) s += pick(TRUNCATED) + (r() < 0.3 ? 'a' : ''); return s; },
    () => { let s = ''; const n = 1 + int(40); for (let i = 0; i < n; i++) s += String.fromCharCode(0xd800 + int(0x800)) + (r() < 0.5 ? 'x' : ''); return s; }, // lone surrogates
    () => run('%', 300), // '%' runs
    () => run('%25', 100) + pick(['', '3C', '3', 'u003C']),
    () => run('&#', 300) + pick(['', 'x', '60', ';']), // '&#' runs
    () => run('&amp;', 60) + pick(['lt;', 'lt', '#60;', '']),
    () => run('<', 500) + pick(['', 'script>', 'a', '!--']), // '<' runs
    () => run('<a ', 100), () => run('<!--', 100), () => run('"', 200) + run("'", 200),
    () => pick(OPENERS) + binary(int(20)), // unterminated quotes, comments, tags
    () => { let s = ''; const n = 1 + int(10); for (let i = 0; i < n; i++) s += pick(OPENERS); return s; },
    () => binary(int(200)), // random binary
    () => { let s = ''; const n = int(60); for (let i = 0; i < n; i++) s += String.fromCharCode(pick(ODD)); return s; },
    () => binary(int(10)) + pick(TRUNCATED) + pick(OPENERS) + binary(int(10)) + String.fromCharCode(0xd800 + int(0x800)),
    () => run(pick(OPENERS) + pick(TRUNCATED), 400), // long
    () => '',
  ];
  return () => pick(kinds)();
}

// ---------------------------------------------------------------- probes

const ATTACKS = [
  ['<script>alert(1)</script>', 'patterns.xss.script-tag'],
  ['<img src=x onerror=alert(1)>', 'patterns.xss.event-handler'],
  ['<a href="javascript:alert(1)">x</a>', 'patterns.xss.js-url'],
  ['%3Csvg%2Fonload%3Dalert(1)%3E', 'patterns.xss.event-handler'],
  ["' OR 1=1--", 'patterns.sql.tautology'],
  ['1 UNION SELECT password FROM users', 'patterns.sql.union'],
  ['../../etc/passwd', 'patterns.path.traversal'],
  ['../../etc/passwd', 'patterns.path.sensitive-file'],
  ['%252525253C', 'patterns.decode.excess-encoding'], // five rounds of encoding, the pipeline does four,
];
const BENIGN = ['hello world', '42', 'red shoes', "O'Brien", 'a-b_c.d/e', 'café ünïcødé', 'x = 1 + 2', ''];
const probeValues = () => [...ATTACKS.map(([v]) => v), ...BENIGN];

function expectHealthy(engine, label) {
  const got = engine.scanValues(probeValues());
  for (let i = 0; i < ATTACKS.length; i++) {
    const [v, rule] = ATTACKS[i];
    expect(got[i].map((f) => f.rule), `${label}: ${JSON.stringify(v)} must report ${rule}`).toContain(rule);
  }
  for (let k = 0; k < BENIGN.length; k++) expect(got[ATTACKS.length + k], `${label}: benign ${JSON.stringify(BENIGN[k])}`).toEqual([]);
  // exactly what a fresh engine says, offsets and matched text included
  expect(got, `${label}: differs from a fresh engine`).toEqual(new Engine().scanValues(probeValues()));
  // (the order of findings within a value is not specified)
  expect(engine.scan('<script>alert(1)</script>').find((f) => f.rule === 'patterns.xss.script-tag')).toEqual({ vector: 'xss', rule: 'patterns.xss.script-tag', matched: '<script>', start: 0, end: 8 });
  expect(engine.decode('&#x3C;ｓｃｒｉｐｔ&#x3E;')).toBe('<script>');
  expect(engine.sanitize('<img src=x onerror=alert(1)>hi')).toBe('&lt;img src=x &gt;hi');
}

const rulesOf = (fs) => fs.map((f) => f.rule);

// ---------------------------------------------------------------- 100,000 malformed inputs

describe('100,000 malformed inputs in a row', () => {
  it('no throw, no fault, every value answered; then the engine still answers correctly', () => {
    const engine = new Engine();
    const next = generator(0x5eed);
    const TOTAL = 100_000;
    const BATCH = 100;
    let units = 0;
    let withFindings = 0;
    const faulted = [];
    const t0 = performance.now();
    for (let done = 0; done < TOTAL; done += BATCH) {
      const values = Array.from({ length: BATCH }, next);
      for (const v of values) units += v.length;
      const out = engine.scanValues(values);
      expect(out.length).toBe(BATCH);
      for (let i = 0; i < BATCH; i++) {
        if (out[i].length) withFindings++;
        if (out[i].some((f) => f.rule === 'patterns.engine.fault' || f.rule === 'patterns.limits.oversize')) faulted.push(values[i]);
      }
      // no state carried between batches: a brand-new engine says exactly the same
      if (done % 5000 === 0) expect(out, `batch at ${done} differs from a fresh engine`).toEqual(new Engine().scanValues(values));
      // the single-value paths on a sample of the same inputs
      if (done % 1000 === 0) {
        expect(typeof engine.decode(values[0])).toBe('string');
        expect(typeof engine.sanitize(values[1])).toBe('string');
      }
    }
    console.log(`robustness: ${TOTAL} values (${units} code units, ${withFindings} with findings) in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(faulted.map((v) => JSON.stringify(v.slice(0, 60)))).toEqual([]);
    expect(engine.faults).toBe(0);
    expect(withFindings).toBeGreaterThan(10_000); // the generator really produced hostile-looking input
    expectHealthy(engine, 'after 100,000 malformed inputs');
    expect(engine.faults).toBe(0);
  });
});

// ---------------------------------------------------------------- the engine-fault path

describe('engine faults: an input that needs more memory than the cap', () => {
  const XSS = '<img src=x onerror=alert(1)>';
  const SQL = "' OR 1=1--";

  it('the pipeline outgrows a 2 MiB cap: engine.fault for that value, real findings for its neighbours, then normal scans', () => {
    const engine = new Engine({ maxMemoryMiB: 2, maxValueLength: 4 << 20 });
    expectHealthy(engine, 'before the fault');
    const big = 'é'.repeat(300_000); // 600 KB in the batch; decoding and folding it needs more than 2 MiB
    const before = engine.faults;
    const out = engine.scanValues([XSS, big, SQL, 'hello']);
    expect(engine.faults).toBeGreaterThan(before);
    expect(rulesOf(out[1])).toEqual(['patterns.engine.fault']);
    expect(out[1][0]).toEqual({ vector: 'engine', rule: 'patterns.engine.fault', matched: big.slice(0, 80), start: 0, end: big.length });
    expect(rulesOf(out[0])).toContain('patterns.xss.event-handler');
    expect(rulesOf(out[2])).toContain('patterns.sql.tautology');
    expect(out[3]).toEqual([]);
    expect(out[0]).toEqual(new Engine().scan(XSS));
    expectHealthy(engine, 'after the fault');
    // the single-value paths fail closed on the same input
    const f = engine.faults;
    expect(engine.sanitize(big)).toBe('');
    expect(engine.faults).toBeGreaterThan(f);
    expectHealthy(engine, 'after a sanitize fault');
  });

  it('2 MB of non-ASCII text with a 2 MiB cap: engine.fault for that value (the batch itself is over the cap), not an exception', () => {
    const engine = new Engine({ maxMemoryMiB: 2, maxValueLength: 4 << 20 });
    const big = 'é'.repeat(1 << 20); // 2 MiB of UTF-16 text
    const before = engine.faults;
    let out;
    let thrown;
    try {
      out = engine.scanValues([XSS, big, SQL]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown, `scanValues threw ${thrown}`).toBeUndefined();
    expect(rulesOf(out[1])).toEqual(['patterns.engine.fault']);
    expect(rulesOf(out[0])).toContain('patterns.xss.event-handler');
    expect(rulesOf(out[2])).toContain('patterns.sql.tautology');
    expect(engine.faults).toBeGreaterThan(before);
    expectHealthy(engine, 'after the fault');
  });
});

// ---------------------------------------------------------------- limits and argument checks

describe('size cap, empty batches, non-string values', () => {
  it('a value longer than maxValueLength yields patterns.limits.oversize and nothing else', () => {
    const engine = new Engine({ maxValueLength: 100 });
    const over = '<script>alert(1)</script>'.repeat(5).slice(0, 101);
    const at = '<script>alert(1)</script>'.repeat(4); // exactly 100: scanned
    expect(at.length).toBe(100);
    const out = engine.scanValues([over, at, "' OR 1=1--".padEnd(150, ' '), 'hello']);
    expect(out[0]).toEqual([{ vector: 'limits', rule: 'patterns.limits.oversize', matched: over.slice(0, 80), start: 0, end: 101 }]);
    expect(rulesOf(out[1])).toContain('patterns.xss.script-tag');
    expect(rulesOf(out[1])).not.toContain('patterns.limits.oversize');
    expect(rulesOf(out[2])).toEqual(['patterns.limits.oversize']);
    expect(out[3]).toEqual([]);
    expect(engine.faults).toBe(0);
  });

  it('oversize is counted in UTF-16 code units, before any decoding', () => {
    const engine = new Engine({ maxValueLength: 10 });
    expect(rulesOf(engine.scan('\ud83d\ude00'.repeat(5)))).toEqual([]); // 10 units
    expect(rulesOf(engine.scan('\ud83d\ude00'.repeat(5) + 'a'))).toEqual(['patterns.limits.oversize']);
    expect(rulesOf(engine.scan('%41'.repeat(4)))).toEqual(['patterns.limits.oversize']); // 12 units, 4 decoded
  });

  it('scanValues([]) returns []', () => {
    expect(scanValues([])).toEqual([]);
    expect(new Engine().scanValues([])).toEqual([]);
  });

  it('a non-string value throws a TypeError naming its index, and the engine carries on', () => {
    const engine = new Engine();
    expect(() => engine.scanValues(['a', 5])).toThrow(TypeError);
    expect(() => engine.scanValues(['a', 5])).toThrow(/value 1\b.*number/);
    expect(() => engine.scanValues(['a', 'b', null])).toThrow(/value 2\b.*null/);
    expect(() => engine.scanValues([undefined])).toThrow(/value 0\b.*undefined/);
    expect(() => engine.scanValues(['<script>', {}])).toThrow(/value 1\b.*object/);
    expect(() => engine.scan(42)).toThrow(TypeError);
    expect(() => engine.sanitize(42)).toThrow(TypeError);
    expect(() => engine.decode(null)).toThrow(TypeError);
    expect(engine.faults).toBe(0);
    expectHealthy(engine, 'after TypeErrors');
  });
});
