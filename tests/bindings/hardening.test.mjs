// Regressions from a review of the engine: each case once got past it or slowed it down.
import { describe, it, expect } from 'vitest';
import { Engine, scan, sanitizeString, decode } from '@shield/node';

const rules = (v) => scan(v).map((f) => f.rule);

describe('script URLs', () => {
  it('any number of leading spaces before a scheme in an attribute', () => {
    const v = `<a href="${' '.repeat(70)}javascript:top.name">x</a>`;
    expect(rules(v)).toContain('patterns.xss.js-url');
    expect(sanitizeString(v, { encode: false })).not.toMatch(/javascript:/i);
  });
  it('any number of leading spaces before a bare scheme', () => {
    const v = `${' '.repeat(100)}javascript:top.name`;
    expect(rules(v)).toContain('patterns.xss.js-url');
    expect(sanitizeString(v)).not.toMatch(/javascript:/i);
  });
  it('an operator word makes "word word" code, not prose', () => {
    expect(rules('javascript: top in import(name)')).toContain('patterns.xss.js-url');
    expect(rules('javascript: self instanceof import(name)')).toContain('patterns.xss.js-url');
    expect(scan('JavaScript: The Good Parts')).toEqual([]);
  });
});

describe('calls with a gap before the parenthesis', () => {
  it.each([["';prompt (1)//"], ["';prompt/**/(1)//"], ['x alert (document.domain)']])('%s', (v) => {
    expect(scan(v).some((f) => f.vector === 'xss')).toBe(true);
  });
  it('prose with a parenthesis after a sink name stays clean', () => {
    expect(scan('Please alert (the manager) if the door is open')).toEqual([]);
  });
});

describe('encoded literals inside a word', () => {
  it('base64 of <script in the middle of a token, in a long value', () => {
    expect(rules('YWJjPHNjcmlwdD4= padding padding padding')).toContain('patterns.xss.encoded-markup');
    expect(rules('some text then abcLi4vLi4vZXRjL3Bhc3N3ZA== end')).toContain('patterns.path.encoded-traversal');
  });
});

describe('SQL phrases', () => {
  it('a long comment between the words of a phrase does not hide it', () => {
    const v = `1 waitfor/*${'x'.repeat(600)}*/delay '0:0:5'`;
    expect(scan(v).some((f) => f.vector === 'sql')).toBe(true);
  });
});

describe('sanitizeString without encoding', () => {
  it('a tag behind an open comment inside a quoted value loses its handler', () => {
    const out = sanitizeString(`<a title="<!--'><img src=x onerror=alert(1)>`, { encode: false });
    expect(out).not.toMatch(/onerror/i);
  });
});

describe('offsets', () => {
  it('findings on the path view map back to the value, four-character units included', () => {
    const v = 'x/..0x2f..0x2fetc0x2fpasswd';
    const d = decode(v);
    for (const f of scan(v)) expect(d.slice(f.start, f.end).startsWith(f.matched)).toBe(true);
    const t = scan(v).find((f) => f.rule === 'patterns.path.traversal');
    expect(t && t.matched).toBe('/..0x2f');
  });
});

describe('many style elements', () => {
  it('are judged once (the scan stays linear; timed in npm run bench)', () => {
    const v = '<style>'.repeat(4000) + '*{x:expression(alert(1))}';
    const found = rules(v);
    expect(found).toContain('patterns.xss.injection-tag');
    expect(found).toContain('patterns.xss.css-expression');
  });
});

describe('limits', () => {
  it('maxValueLength must fit the engine', () => {
    expect(() => new Engine({ maxValueLength: 2 ** 32 })).toThrow(/maxValueLength/);
  });
  it('an oversize value is reported without being copied into the engine', () => {
    const e = new Engine({ maxValueLength: 1000 });
    const mem = e['ex'].memory;
    const before = mem.buffer.byteLength;
    const out = e.scanValues(['x'.repeat(8 << 20), '<script>alert(1)</script>']);
    expect(out[0].map((f) => f.rule)).toEqual(['patterns.limits.oversize']);
    expect(out[0][0].end).toBe(8 << 20);
    expect(out[0][0].matched).toBe('x'.repeat(80));
    expect(out[1].map((f) => f.rule)).toContain('patterns.xss.script-tag');
    // the 16 MB (UTF-16) value never reached engine memory: growth, if any, is the small batch's
    expect(mem.buffer.byteLength - before).toBeLessThan(1 << 20);
  });
});

// The literal pass leaves punctuation bitmaps that the detectors search; they are tied to one
// text, and decoded texts of equal length reuse the same engine memory from value to value.
describe('punctuation bitmaps never outlive their text', () => {
  const pad = (s, n) => s + ' plain words'.repeat(8).slice(0, n - s.length);
  const quiet = pad('%41 no punctuation here at all', 60); // decoded: 58 units, no ; = * quotes : . <
  const loud = pad("%41 1; drop table users -- x' or 1=1", 60);
  it('values of one batch with the same decoded length', () => {
    expect(decode(quiet).length).toBe(decode(loud).length);
    const [a, b] = new Engine().scanValues([quiet, loud]);
    expect(a).toEqual([]);
    expect(b.map((f) => f.rule)).toContain('patterns.sql.stacked-query');
  });
  it('a sanitize after a scan of a text of the same length', () => {
    const e = new Engine();
    expect(e.scan(quiet)).toEqual([]);
    expect(e.sanitize(loud, { encode: false })).not.toMatch(/drop table/i);
    expect(e.scan(loud).map((f) => f.rule)).toContain('patterns.sql.stacked-query');
    const tags = pad('%41 <b>x</b> <script>alert(1)</script>', 60);
    expect(decode(tags).length).toBe(decode(quiet).length);
    expect(e.scan(quiet)).toEqual([]);
    expect(e.sanitize(tags, { encode: false })).not.toMatch(/<script/i);
    expect(e.scanValues([quiet, tags])[1].map((f) => f.rule)).toContain('patterns.xss.script-tag');
  });
});

describe('views of the engine memory', () => {
  // the bindings keep typed views of the wasm memory and remake them only when they went stale:
  // memory growth detaches the old buffer, and a trap makes a new instance with a memory of its own
  const small = ['<script>alert(1)</script>', "1' OR '1'='1", 'plain words', '../../etc/passwd'];
  const expected = new Engine().scanValues(small).map((fs) => fs.map((f) => `${f.rule}@${f.start}`));
  const same = (engine) => engine.scanValues(small).map((fs) => fs.map((f) => `${f.rule}@${f.start}`));

  it('findings stay right after the memory grows', () => {
    const engine = new Engine({ maxValueLength: 4_000_000 });
    expect(same(engine)).toEqual(expected);
    // a 3 MB value (6 MB of UTF-16 plus the engine's own tables) grows the 256 KB start memory
    const big = `${'lorem ipsum '.repeat(250_000)}<svg onload=alert(1)>`;
    expect(engine.scan(big).map((f) => f.rule)).toContain('patterns.xss.event-handler');
    expect(same(engine)).toEqual(expected);
    expect(engine.decode('%3Cb%3E')).toBe('<b>');
  });

  it('findings stay right after the engine is made anew (a trap)', () => {
    // a memory cap too small for the value: the scan traps, the engine is instantiated again
    const engine = new Engine({ maxValueLength: 4_000_000, maxMemoryMiB: 2 });
    expect(same(engine)).toEqual(expected);
    const f = engine.scan('x'.repeat(3_000_000));
    expect(f.map((x) => x.rule)).toEqual(['patterns.engine.fault']);
    expect(same(engine)).toEqual(expected);
  });
});

describe('a batch whose findings fill the result table (4,096 per batch)', () => {
  const engine = new Engine();
  const alone = (v) => JSON.stringify(engine.scan(v));

  it('5,000 hostile values: every value keeps the findings it has when scanned alone', () => {
    const values = Array.from({ length: 5000 }, (_, i) => `<script>alert(${i})</script>`);
    const out = engine.scanValues(values);
    expect(out).toHaveLength(5000);
    const one = alone(values[0]);
    expect(JSON.parse(one).length).toBeGreaterThan(0);
    for (let i = 0; i < values.length; i++) {
      expect(out[i].length, `value ${i}`).toBeGreaterThan(0);
      expect(JSON.stringify(out[i]), `value ${i}`).toBe(alone(values[i]));
    }
  });

  it('values of many findings each, mixed with clean ones: the same findings as one by one', () => {
    const poly = "'><svg onload=alert(1)>../../etc/passwd;cat /etc/passwd' UNION SELECT 1--{{7*7}}<!ENTITY x SYSTEM \"file:///\">";
    expect(JSON.parse(alone(poly)).length).toBeGreaterThan(4);
    const values = Array.from({ length: 3000 }, (_, i) => (i % 3 === 2 ? `plain words ${i}` : `${poly}${i}`));
    const out = engine.scanValues(values);
    for (let i = 0; i < values.length; i++) expect(JSON.stringify(out[i]), `value ${i}`).toBe(alone(values[i]));
  });
});
