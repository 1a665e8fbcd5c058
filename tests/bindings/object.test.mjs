// scanObject / sanitizeObject (bindings/object.ts): the shared vectors (tests/vectors/objects.json),
// prototype pollution tried through real merges and path setters, the input left unchanged,
// leaf types, cycles and shared subtrees, the bounds and their errors, one engine call per
// object, rules.disable, and fast-check properties (fixed seed), including one comparing the
// check of JSON held in strings with JSON.parse itself.

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import querystring from 'node:querystring';
import { scanObject, sanitizeObject, ObjectLimitError, OBJECT_LIMITS, MAX_DEPTH_CEILING } from '../../dist/bindings/object.js';
import { Engine } from '@shield/node';
import { keyCheck, CLEAN_KEY_MAX, CLEAN_KEYS, CLEAN_KEYS_PER_WALK } from '../../dist/bindings/object-keys.js';
import { loadVectors, label } from '../support/vectors.mjs';

const SEED = 42;

// ---------------------------------------------------------------- reference helpers

// The listed keys, read from the rule data rather than from the implementation.
const params = (name) => JSON.parse(readFileSync(new URL(`../../assembly/rules/${name}.json`, import.meta.url), 'utf8')).rules[0].params;
const OPERATOR_KEYS = new Set(params('nosql').map((k) => k.toLowerCase()));
const PROTOTYPE_KEYS = new Set(params('prototype').map((k) => k.toLowerCase()));

/** Which vectors a key stands for: the whole key or any `[ ] .` segment, case-insensitively. */
function listedKey(key) {
  const hit = new Set();
  for (const part of [key, ...key.split(/[[\].]/)]) {
    const k = part.toLowerCase();
    if (OPERATOR_KEYS.has(k)) hit.add('nosql');
    if (PROTOTYPE_KEYS.has(k)) hit.add('prototype');
  }
  return hit;
}

const isWalked = (v) => v !== null && typeof v === 'object' &&
  (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** Paths of listed keys anywhere in arrays and plain objects (an explicit stack, cycles once). */
function listedKeyPaths(root) {
  const found = [];
  const seen = new Set();
  const stack = [[root, []]];
  while (stack.length) {
    const [v, path] = stack.pop();
    if (!isWalked(v) || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) stack.push([v[i], [...path, i]]); continue; }
    for (const k of Object.keys(v)) {
      if (listedKey(k).size) found.push([...path, k]);
      stack.push([v[k], [...path, k]]);
    }
  }
  return found;
}

const brief = (findings) => findings.map(({ vector, rule, path }) => ({ vector, rule, path }));
const sorted = (findings) => brief(findings).map((f) => JSON.stringify(f)).sort();

/** The merge many apps wrote: recursive, follows whatever key it is given. */
function naiveMerge(target, source) {
  for (const key of Object.keys(source)) {
    const v = source[key];
    if (v !== null && typeof v === 'object') {
      const t = target[key];
      if (t === null || (typeof t !== 'object' && typeof t !== 'function')) target[key] = {};
      naiveMerge(target[key], v);
    } else {
      target[key] = v;
    }
  }
  return target;
}

/** A dotted/bracket path setter in the style of lodash `set`. */
function naiveSet(target, key, value) {
  const parts = key.split(/[[\].]+/).filter(Boolean);
  let o = target;
  for (let i = 0; i < parts.length - 1; i++) {
    if (o[parts[i]] === null || (typeof o[parts[i]] !== 'object' && typeof o[parts[i]] !== 'function')) o[parts[i]] = {};
    o = o[parts[i]];
  }
  o[parts[parts.length - 1]] = value;
  return target;
}

function withPollutionCheck(fn) {
  try {
    fn();
    expect({}.polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  } finally {
    delete Object.prototype.polluted;
  }
}

function deepObject(n) {
  const root = {};
  let o = root;
  for (let i = 0; i < n; i++) { o.a = {}; o = o.a; }
  return root;
}

function deepArray(n) {
  const root = [];
  let o = root;
  for (let i = 0; i < n; i++) { const next = []; o.push(next); o = next; }
  return root;
}

function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  throw new Error('expected an error');
}

/** An Engine whose scanValues and sanitize calls are counted. */
function countingEngine(options) {
  const engine = new Engine(options);
  const counts = { scanValues: 0, sanitize: 0 };
  const scanValues = engine.scanValues.bind(engine);
  const sanitize = engine.sanitize.bind(engine);
  engine.scanValues = (values) => { counts.scanValues++; return scanValues(values); };
  engine.sanitize = (value, o) => { counts.sanitize++; return sanitize(value, o); };
  return { engine, counts };
}

// ---------------------------------------------------------------- vectors

describe('vectors (tests/vectors/objects.json)', () => {
  const { vector, cases } = loadVectors('objects');

  it.each(cases.map((c) => [label(JSON.stringify(c.input)), c]))('%s', (_l, c) => {
    const before = JSON.stringify(c.input);
    expect(sorted(scanObject(c.input))).toEqual(sorted(c.findings));
    const out = sanitizeObject(c.input);
    expect(out).toEqual(c.sanitized);
    expect(JSON.stringify(c.input)).toBe(before);
    expect(sanitizeObject(out)).toEqual(out);
    expect(listedKeyPaths(out)).toEqual([]);
    if (c.findings.length === 0) expect(out).toEqual(c.input);
  });

  it('covers both rules, bracket and dotted keys, smuggled JSON, hostile keys and benign objects', () => {
    expect(vector).toBe('objects');
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const rules = new Set(cases.flatMap((c) => c.findings.map((f) => f.rule)));
    expect(rules).toContain('patterns.nosql.operator-key');
    expect(rules).toContain('patterns.prototype.pollution-key');
    const keys = cases.flatMap((c) => (isWalked(c.input) && !Array.isArray(c.input) ? Object.keys(c.input) : []));
    expect(keys.some((k) => /\[\$/.test(k))).toBe(true);
    expect(keys.some((k) => /\.__proto__/.test(k))).toBe(true);
    expect(cases.filter((c) => c.findings.length === 0).length).toBeGreaterThanOrEqual(12);
    expect(cases.every((c) => typeof c.note === 'string' && c.note.length > 0)).toBe(true);
  });
});

// ---------------------------------------------------------------- findings

describe('findings', () => {
  it('name the key: matched, offsets of the segment, part', () => {
    const [op] = scanObject({ pass: { $NE: 1 } });
    expect(op).toEqual({ vector: 'nosql', rule: 'patterns.nosql.operator-key', matched: '$NE', start: 0, end: 3, path: ['pass', '$NE'], part: 'key' });
    const [br] = scanObject({ 'user[$ne]': 'x' });
    expect(br).toMatchObject({ matched: '$ne', start: 5, end: 8, path: ['user[$ne]'], part: 'key' });
    const [dot] = scanObject({ 'a.__proto__.x': 1 });
    expect(dot).toMatchObject({ vector: 'prototype', matched: '__proto__', start: 2, end: 11, part: 'key' });
  });

  it('a key with both kinds of segment has one finding of each', () => {
    const f = scanObject({ 'a[$ne][__proto__][$gt]': 1 });
    expect(f.map((x) => [x.vector, x.matched])).toEqual([['nosql', '$ne'], ['prototype', '__proto__']]);
  });

  it('JSON in a string: the finding spans the key in the text, matched is the unescaped key', () => {
    const s = '{"ok": [1, 2], "\\u0024Ne": {"x": null}}';
    const f = scanObject({ q: s });
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ vector: 'nosql', matched: '$Ne', path: ['q'], part: 'value' });
    expect(s.slice(f[0].start, f[0].end)).toBe('\\u0024Ne');
  });

  it('a hostile key string is reported on the key, its value on the value', () => {
    const f = scanObject({ '<script>alert(1)</script>': '../../etc/passwd' });
    expect(new Set(f.map((x) => `${x.vector}:${x.part}`))).toEqual(new Set(['xss:key', 'path:value']));
    expect(f.every((x) => x.path.length === 1 && x.path[0] === '<script>alert(1)</script>')).toBe(true);
  });

  it('come in document order (depth first, keys in Object.keys order)', () => {
    const f = scanObject({ a: { x: '<script>alert(1)</script>' }, b: [{ $ne: 1 }], c: '../../etc/passwd', d: { __proto__x: 1, e: { constructor: 1 } } });
    const order = [...new Set(f.map((x) => JSON.stringify(x.path)))];
    expect(order).toEqual([['a', 'x'], ['b', 0, '$ne'], ['c'], ['d', 'e', 'constructor']].map((p) => JSON.stringify(p)));
    expect(scanObject({ b: 1, a: '$ne' })).toEqual([]);
  });

  it('every finding path leads to the key or the string it names', () => {
    const input = JSON.parse('{"a":[{"$gt":"<svg onload=alert(1)>"},"{\\"$where\\":1}"],"__proto__":{"x":"1 OR 1=1"}}');
    for (const f of scanObject(input)) {
      let v = input;
      for (const k of f.path.slice(0, -1)) v = v[k];
      const last = f.path[f.path.length - 1];
      expect(Object.hasOwn(v, last)).toBe(true);
      if (f.part === 'value') expect(typeof v[last]).toBe('string');
    }
  });

  it('a root string is scanned with an empty path; non-container roots have no findings', () => {
    expect(brief(scanObject("1' OR 1=1--"))).toEqual([{ vector: 'sql', rule: 'patterns.sql.tautology', path: [] }]);
    for (const v of [null, undefined, 42, true, 10n, Symbol('x'), () => '<script>', new Date()]) expect(scanObject(v)).toEqual([]);
  });
});

// ---------------------------------------------------------------- prototype pollution

describe('prototype pollution', () => {
  it('the merge and the path setter used below really pollute (control)', () => {
    try {
      naiveMerge({}, JSON.parse('{"__proto__": {"polluted": 1}}'));
      expect({}.polluted).toBe(1);
    } finally { delete Object.prototype.polluted; }
    try {
      naiveSet({}, 'a[constructor][prototype][polluted]', 1);
      expect({}.polluted).toBe(1);
    } finally { delete Object.prototype.polluted; }
    expect({}.polluted).toBeUndefined();
  });

  const payloads = [
    '{"__proto__": {"polluted": 1}}',
    '{"a": {"__proto__": {"polluted": 1}}}',
    '{"constructor": {"prototype": {"polluted": 1}}}',
    '{"a": [{"constructor": {"prototype": {"polluted": 1}}}]}',
    '[{"__proto__": {"polluted": 1}}]',
    '{"a[__proto__][polluted]": 1}',
    '{"a.__proto__.polluted": 1}',
    '{"a[constructor][prototype][polluted]": 1, "b": 2}',
    '{"x.constructor.prototype.polluted": 1}',
    '{"__PROTO__": {"polluted": 1}, "Constructor": {"prototype": {"polluted": 1}}}',
  ];

  it.each(payloads)('%s: the sanitized copy pollutes nothing through assign, merge or a path setter', (text) => {
    const input = JSON.parse(text);
    withPollutionCheck(() => {
      const out = sanitizeObject(input);
      const assigned = Object.assign({}, out);
      expect(Object.getPrototypeOf(assigned)).toBe(Object.prototype);
      naiveMerge({}, out);
      naiveMerge({}, JSON.parse(JSON.stringify(out)));
      if (!Array.isArray(out)) for (const k of Object.keys(out)) naiveSet({}, k, out[k]);
      expect(listedKeyPaths(out)).toEqual([]);
    });
  });

  it('the result has the ordinary prototype and no own __proto__', () => {
    const out = sanitizeObject(JSON.parse('{"__proto__": {"polluted": 1}, "a": {"__proto__": {"x": 1}, "b": 2}}'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(false);
    expect(Object.hasOwn(out.a, '__proto__')).toBe(false);
    expect(out).toEqual({ a: { b: 2 } });
  });

  it('JSON smuggled in a string no longer parses after sanitizing', () => {
    const out = sanitizeObject({ prefs: '{"__proto__": {"polluted": 1}}' });
    expect(() => JSON.parse(out.prefs)).toThrow(SyntaxError);
    expect(out.prefs).toBe('{&quot;__proto__&quot;: {&quot;polluted&quot;: 1}}');
  });

  it('keys are written as own data properties even if Object.prototype has a setter for that name', () => {
    let hit = 0;
    Object.defineProperty(Object.prototype, 'trap', { set() { hit++; }, get() { return undefined; }, configurable: true });
    try {
      const out = sanitizeObject(JSON.parse('{"trap": "x", "a": {"trap": 1}}'));
      expect(hit).toBe(0);
      expect(Object.getOwnPropertyDescriptor(out, 'trap')).toEqual({ value: 'x', writable: true, enumerable: true, configurable: true });
      expect(Object.hasOwn(out.a, 'trap')).toBe(true);
    } finally {
      delete Object.prototype.trap;
    }
  });
});

// ---------------------------------------------------------------- copies, leaves, parsers

describe('the copy', () => {
  it('leaves the input unchanged and shares no walked object with it', () => {
    const input = JSON.parse('{"a": {"$ne": 1, "k": "<script>alert(1)</script>"}, "list": [{"__proto__": {}}, "x"], "ok": "fine"}');
    const before = JSON.stringify(input);
    const a = input.a;
    const out = sanitizeObject(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(input.a).toBe(a);
    expect(Object.keys(input.a)).toEqual(['$ne', 'k']);
    expect(out).not.toBe(input);
    expect(out.a).not.toBe(input.a);
    expect(out.list).not.toBe(input.list);
    expect(out).toEqual({ a: { k: '' }, list: [{}, 'x'], ok: 'fine' });
  });

  it('a clean object comes back equal, every string byte-identical', () => {
    const input = { name: 'R&D "quoted" <b>', n: [1, 'a & b', { deep: "O'Brien" }], nul: null, t: true };
    const out = sanitizeObject(input);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(out.name).toBe(input.name);
  });

  it('leaves are neither scanned nor copied: Date, Buffer, typed arrays, Map, Set, RegExp, boxed strings, class instances, functions, symbols', () => {
    class Query { constructor() { this.$ne = '<script>alert(1)</script>'; } }
    const leaves = {
      date: new Date(0),
      buf: Buffer.from('<script>alert(1)</script>'),
      u8: new Uint8Array([36, 110, 101]),
      map: new Map([['$ne', '<script>alert(1)</script>']]),
      set: new Set(['../../etc/passwd']),
      re: /<script>/,
      boxed: new String('<script>alert(1)</script>'),
      query: new Query(),
      fn: () => '<script>',
      sym: Symbol('$ne'),
      big: 10n,
    };
    const input = { ...leaves, [Symbol('k')]: '<script>alert(1)</script>', ok: 'x' };
    expect(scanObject(input)).toEqual([]);
    const out = sanitizeObject(input);
    for (const k of Object.keys(leaves)) expect(out[k]).toBe(leaves[k]);
    expect(Object.getOwnPropertySymbols(out)).toEqual([]);
    expect(out.ok).toBe('x');
  });

  it('objects with a null prototype are walked and copied with a null prototype (node:querystring)', () => {
    const parsed = querystring.parse('user[$ne]=x&name=bob&q=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(Object.getPrototypeOf(parsed)).toBe(null);
    expect(sorted(scanObject(parsed))).toEqual(sorted([
      { vector: 'nosql', rule: 'patterns.nosql.operator-key', path: ['user[$ne]'] },
      { vector: 'xss', rule: 'patterns.xss.script-tag', path: ['q'] },
      { vector: 'xss', rule: 'patterns.xss.js-call', path: ['q'] },
    ]));
    const out = sanitizeObject(parsed);
    expect(Object.getPrototypeOf(out)).toBe(null);
    expect(Object.keys(out)).toEqual(['name', 'q']);
    expect(out.name).toBe('bob');
  });

  it('URLSearchParams entries keep bracket keys flat: they are checked by segment', () => {
    const flat = Object.fromEntries(new URLSearchParams('a%5B__proto__%5D%5Bx%5D=1&filter[$or][0][x]=1&page=2'));
    expect(brief(scanObject(flat)).map((f) => f.vector)).toEqual(['prototype', 'nosql']);
    expect(sanitizeObject(flat)).toEqual({ page: '2' });
  });

  it('arrays keep their length and indices; holes become undefined; only object keys are removed', () => {
    // eslint-disable-next-line no-sparse-arrays
    const input = ['a', , { $gt: 1 }, '{"$ne":1}', [{ __proto__x: 1 }]];
    const out = sanitizeObject(input);
    expect(Array.isArray(out)).toBe(true);
    expect(out).toHaveLength(5);
    expect(Object.hasOwn(out, 1)).toBe(true);
    expect(out).toEqual(['a', undefined, {}, '{&quot;$ne&quot;:1}', [{ __proto__x: 1 }]]);
  });

  it('a hostile key is renamed to its sanitized text; a clean key of the same name wins wherever it stands', () => {
    expect(sanitizeObject({ 'ro<script></script>le': 'admin', role: 'user' })).toEqual({ role: 'user' });
    expect(sanitizeObject({ role: 'user', 'ro<script></script>le': 'admin' })).toEqual({ role: 'user' });
    expect(sanitizeObject({ 'ro<script></script>le': 'admin', 'r<script></script>ole': 'x' })).toEqual({ role: 'admin' });
    expect(sanitizeObject({ '<svg onload=alert(1)>': 1, k: 2 })).toEqual({ '&lt;svg &gt;': 1, k: 2 });
    expect(sanitizeObject({ '<script>alert(1)</script>': 1 })).toEqual({});
    expect(sanitizeObject({ '__pro<script></script>to__': { polluted: 1 } })).toEqual({});
  });

  it('the default sanitizeString pipeline applies to strings with a finding (xss, sql, path, encode)', () => {
    const out = sanitizeObject({ x: '<img src=x onerror=alert(1)>hi', s: '1 UNION SELECT password FROM users', p: '../../etc/passwd', t: '{{7*7}}' });
    expect(out).toEqual({ x: '&lt;img src=x &gt;hi', s: '1 [BLOCKED] password FROM users', p: 'etc/passwd', t: '{{7*7}}' });
  });
});

// ---------------------------------------------------------------- cycles and sharing

describe('cycles and shared subtrees', () => {
  it('each object is visited once; the copy keeps cycles and sharing', () => {
    const a = { name: '<script>alert(1)</script>', list: [] };
    a.self = a;
    a.list.push(a, { back: a });
    const f = scanObject(a);
    expect(f.length).toBeGreaterThan(0);
    expect(f.every((x) => JSON.stringify(x.path) === '["name"]')).toBe(true);
    const out = sanitizeObject(a);
    expect(out.self).toBe(out);
    expect(out.list[0]).toBe(out);
    expect(out.list[1].back).toBe(out);
    expect(out.name).toBe('');
    expect(a.name).toBe('<script>alert(1)</script>');
  });

  it('a shared subtree is reported at its first path and copied once', () => {
    const shared = { s: "1' OR 1=1--", $ne: 1 };
    const root = { x: shared, y: [shared], z: shared };
    expect(brief(scanObject(root)).map((f) => f.path)).toEqual([['x', 's'], ['x', '$ne']]);
    const out = sanitizeObject(root);
    expect(out.x).toBe(out.z);
    expect(out.y[0]).toBe(out.x);
    expect(out.x).not.toBe(shared);
    expect(out.x).toEqual({ s: '1&#39; [BLOCKED]--' });
  });

  it('sharing and cycles are kept past the first 32 containers (where the walk switches to a Map)', () => {
    // 40 plain containers first, then a shared subtree and a cycle: the shared object is met
    // again after the walk has seen more than 32 containers
    const shared = { s: "1' OR 1=1--" };
    const root = { pad: Array.from({ length: 40 }, (_, i) => ({ i: String(i) })), a: shared, list: [] };
    root.list.push(shared, root, { back: shared });
    root.pad[39].later = shared; // visited first here (inside pad), then from a, list[0], list[2].back
    expect(brief(scanObject(root)).map((f) => f.path)).toEqual([['pad', 39, 'later', 's']]);
    const out = sanitizeObject(root);
    expect(out.a).toBe(out.pad[39].later);
    expect(out.list[0]).toBe(out.a);
    expect(out.list[1]).toBe(out);
    expect(out.list[2].back).toBe(out.a);
    expect(out.a).toEqual({ s: '1&#39; [BLOCKED]--' });
    expect(out.pad[0]).toEqual({ i: '0' });
  });

  it('an array containing itself', () => {
    const arr = ['<script>alert(1)</script>'];
    arr.push(arr);
    const out = sanitizeObject(arr);
    expect(out[1]).toBe(out);
    expect(out[0]).toBe('');
  });
});

// ---------------------------------------------------------------- bounds

describe('bounds', () => {
  it('documents its defaults', () => {
    expect(OBJECT_LIMITS).toEqual({ maxDepth: 64, maxKeys: 100_000, maxStringUnits: 8 * 1024 * 1024 });
    expect(Object.isFrozen(OBJECT_LIMITS)).toBe(true);
  });

  it.each([['scanObject', scanObject], ['sanitizeObject', sanitizeObject]])('%s: a 100,000-deep object throws the maxDepth error', (name, fn) => {
    const err = thrown(() => fn(deepObject(100_000)));
    expect(err).toBeInstanceOf(RangeError);
    expect(err).toBeInstanceOf(ObjectLimitError);
    expect(err.name).toBe('ObjectLimitError');
    expect(err.limit).toBe('maxDepth');
    expect(err.max).toBe(64);
    expect(err.path).toEqual(new Array(64).fill('a'));
    expect(err.message).toBe(`${name}: objects and arrays nested deeper than maxDepth (64); limit reached at path $.a.a.a.a…(56 more)….a.a.a.a`);
  });

  it('a 100,000-deep array throws the maxDepth error with indices in the path', () => {
    const err = thrown(() => scanObject(deepArray(100_000)));
    expect(err).toBeInstanceOf(ObjectLimitError);
    expect(err.path).toEqual(new Array(64).fill(0));
    expect(err.message).toContain('limit reached at path $[0][0][0][0]…(56 more)…[0][0][0][0]');
  });

  it('a 1,000,000-key object throws the maxKeys error (scan and sanitize)', () => {
    const big = {};
    for (let i = 0; i < 1_000_000; i++) big['k' + i] = i;
    for (const [name, fn] of [['scanObject', scanObject], ['sanitizeObject', sanitizeObject]]) {
      const err = thrown(() => fn({ body: big }));
      expect(err).toBeInstanceOf(RangeError);
      expect(err.limit).toBe('maxKeys');
      expect(err.path).toEqual(['body']);
      expect(err.message).toBe(`${name}: more than maxKeys (100000) keys and array elements; limit reached at path $.body`);
    }
  });

  it('a huge or sparse array throws maxKeys before any element is read', () => {
    expect(thrown(() => scanObject(new Array(1_000_000).fill('x'))).limit).toBe('maxKeys');
    const sparse = [];
    sparse.length = 2 ** 32 - 1;
    const err = thrown(() => sanitizeObject({ a: [sparse] }));
    expect(err.limit).toBe('maxKeys');
    expect(err.path).toEqual(['a', 0]);
  });

  it('keys and strings over maxStringUnits throw, naming the string', () => {
    const err = thrown(() => scanObject({ a: ['x'.repeat(5_000_000), 'y'.repeat(5_000_000)] }));
    expect(err).toBeInstanceOf(RangeError);
    expect(err.limit).toBe('maxStringUnits');
    expect(err.path).toEqual(['a', 1]);
    expect(err.message).toBe('scanObject: more than maxStringUnits (8388608) UTF-16 code units of keys and strings; limit reached at path $.a[1]');
    const longKey = 'k'.repeat(100);
    const e2 = thrown(() => sanitizeObject({ [longKey]: 1 }, { maxStringUnits: 50 }));
    expect(e2.path).toEqual([longKey]);
    expect(e2.message).toContain(`limit reached at path $["${'k'.repeat(40)}…"]`);
  });

  it('limits are inclusive and configurable', () => {
    expect(() => scanObject({ a: { b: {} } }, { maxDepth: 3 })).not.toThrow();
    expect(thrown(() => scanObject({ a: { b: { c: {} } } }, { maxDepth: 3 })).path).toEqual(['a', 'b', 'c']);
    expect(() => scanObject({ a: 1, b: [1] }, { maxKeys: 3 })).not.toThrow();
    expect(thrown(() => scanObject({ a: 1, b: [1, 2] }, { maxKeys: 3 })).path).toEqual(['b']);
    expect(() => scanObject({ ab: 'cdef' }, { maxStringUnits: 6 })).not.toThrow();
    expect(thrown(() => scanObject({ ab: 'cdefg' }, { maxStringUnits: 6 })).path).toEqual(['ab']);
    expect(thrown(() => scanObject('abc', { maxStringUnits: 2 })).path).toEqual([]);
  });

  it('a shared subtree and a cycle count once', () => {
    const s = { a: 1, b: 2 };
    expect(() => scanObject({ x: s, y: s }, { maxKeys: 4 })).not.toThrow();
    const c = { v: 1 };
    c.c = c;
    expect(() => scanObject(c, { maxDepth: 1 })).not.toThrow();
  });

  it('deep JSON held in a string needs no depth limit (lexed, not parsed)', () => {
    const deep = '['.repeat(300_000) + '{"$ne":1}' + ']'.repeat(300_000);
    expect(brief(scanObject({ q: deep }))).toEqual([{ vector: 'nosql', rule: 'patterns.nosql.operator-key', path: ['q'] }]);
    expect(scanObject({ q: deep.slice(0, -1) })).toEqual([]);
  });

  it.each([['maxDepth', 0], ['maxDepth', -1], ['maxKeys', 1.5], ['maxKeys', '10'], ['maxStringUnits', NaN], ['maxStringUnits', Infinity]])(
    'a bad %s (%s) is a TypeError naming it',
    (name, v) => {
      expect(() => scanObject({}, { [name]: v })).toThrow(TypeError);
      expect(() => sanitizeObject({}, { [name]: v })).toThrow(new RegExp(`^${name} must be a positive integer`));
    },
  );

  it('a bad engine or options value is a TypeError', () => {
    expect(() => scanObject({}, { engine: {} })).toThrow(/engine must be an Engine/);
    expect(() => scanObject({}, 'fast')).toThrow(TypeError);
  });
});

// ---------------------------------------------------------------- engine use and rules

describe('engine', () => {
  it('one scanValues call per object, however many strings; sanitize only for strings with a finding', () => {
    const { engine, counts } = countingEngine();
    const input = { items: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })) };
    input.items[7].name = '<script>alert(1)</script>';
    input.items[9].tags[1] = '../../etc/passwd';
    input.items[11]['<svg onload=alert(1)>'] = 1;
    input.items[13].$ne = 'x';
    const f = scanObject(input, { engine });
    expect(counts.scanValues).toBe(1);
    expect(new Set(f.map((x) => x.vector))).toEqual(new Set(['xss', 'path', 'nosql']));
    const out = sanitizeObject(input, { engine });
    expect(counts.scanValues).toBe(2);
    expect(counts.sanitize).toBe(3); // the two values and the hostile key; the operator key is removed unsanitized
    expect(out.items[13]).toEqual({ id: 13, name: 'item 13', tags: ['a', 'b'] });
    expect(out.items[11]['&lt;svg &gt;']).toBe(1);
  });

  it('a value without keys or strings makes no engine call', () => {
    const { engine, counts } = countingEngine();
    expect(scanObject([1, [2, null, true]], { engine })).toEqual([]);
    expect(sanitizeObject([1, [{}]], { engine })).toEqual([1, [{}]]);
    expect(counts.scanValues).toBe(0);
  });

  it("rules.disable: ['patterns.nosql.*'] turns off operator-key findings and removal", () => {
    const engine = new Engine({ rules: { disable: ['patterns.nosql.*'] } });
    const input = { a: { $ne: 1 }, 'b[$gt]': '1', c: '{"$where":"this.a"}', 'd.$set': 2 };
    expect(scanObject(input, { engine })).toEqual([]);
    expect(sanitizeObject(input, { engine })).toEqual(input);
    const proto = JSON.parse('{"__proto__": {"x": 1}, "$ne": 1}');
    expect(brief(scanObject(proto, { engine }))).toEqual([{ vector: 'prototype', rule: 'patterns.prototype.pollution-key', path: ['__proto__'] }]);
    expect(sanitizeObject(proto, { engine })).toEqual({ $ne: 1 });
  });

  it('with the prototype rule off, an own __proto__ is kept as an own data property and still pollutes nothing', () => {
    const engine = new Engine({ rules: { disable: ['patterns.prototype.pollution-key'] } });
    withPollutionCheck(() => {
      const out = sanitizeObject(JSON.parse('{"__proto__": {"polluted": 1}}'), { engine });
      expect(Object.hasOwn(out, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(out, '__proto__').value).toEqual({ polluted: 1 });
    });
  });

  it('Engine#disable after first use takes effect on the next call', () => {
    const engine = new Engine();
    expect(scanObject({ $ne: 1 }, { engine })).toHaveLength(1);
    engine.disable('patterns.nosql.operator-key');
    expect(scanObject({ $ne: 1 }, { engine })).toEqual([]);
  });

  it('a key found clean is not scanned again by the same engine; hostile, long and value strings always are', () => {
    const engine = new Engine();
    const seen = [];
    const scanValues = engine.scanValues.bind(engine);
    engine.scanValues = (values) => { seen.push([...values]); return scanValues(values); };
    const long = `k${'x'.repeat(CLEAN_KEY_MAX)}`;
    const body = () => ({ name: 'name', nested: { email: 'a@b.example', '<script>': 1, $ne: 1 }, [long]: 'v' });
    const first = brief(scanObject(body(), { engine }));
    const second = brief(scanObject(body(), { engine }));
    expect(second).toEqual(first);
    expect(first.map((f) => `${f.vector} ${f.path.join('.')}`).sort()).toEqual(['nosql nested.$ne', 'xss nested.<script>']);
    expect(seen[0]).toEqual(['name', 'name', 'nested', 'email', 'a@b.example', '<script>', '$ne', long, 'v']);
    // the clean short keys (name, nested, email) are gone; the values, the hostile keys and the long key stay
    expect(seen[1]).toEqual(['name', 'a@b.example', '<script>', '$ne', long, 'v']);
    // another engine keeps its own set
    const other = new Engine({ rules: { disable: ['patterns.xss.*'] } });
    expect(brief(scanObject({ '<script>': 1 }, { engine: other }))).toEqual([]);
    expect(brief(scanObject({ '<script>': 1 }, { engine }))).toHaveLength(1);
    expect(keyCheck(engine).cleanKeys.has('<script>')).toBe(false);
  });

  it('the set of clean keys is bounded: past CLEAN_KEYS it starts again, and findings stay the same', () => {
    const engine = new Engine();
    const set = keyCheck(engine).cleanKeys;
    let peak = 0;
    for (let round = 0; round < Math.ceil(CLEAN_KEYS / CLEAN_KEYS_PER_WALK) + 6; round++) {
      const o = {};
      for (let i = 0; i < CLEAN_KEYS_PER_WALK; i++) o[`field${round}_${i}`] = 1;
      o['__proto__x'] = 1;
      o['a[$gt]'] = 1;
      expect(brief(scanObject(o, { engine })).map((f) => f.path[0])).toEqual(['a[$gt]']);
      peak = Math.max(peak, set.size);
      expect(set.size).toBeLessThanOrEqual(CLEAN_KEYS);
    }
    expect(peak).toBe(CLEAN_KEYS); // it did fill up, and was started again
    expect(set.size).toBeLessThan(CLEAN_KEYS);
  });

  it('one walk adds at most CLEAN_KEYS_PER_WALK keys: a flood of made-up keys neither fills the set nor empties it', () => {
    const engine = new Engine();
    const set = keyCheck(engine).cleanKeys;
    scanObject({ name: 'a', email: 'b' }, { engine });
    expect([...set]).toEqual(['name', 'email']);
    const flood = {};
    for (let i = 0; i < 2 * CLEAN_KEYS; i++) flood[`k${i}`] = 1;
    flood['x[$ne]'] = 1;
    expect(brief(scanObject(flood, { engine })).map((f) => f.path[0])).toEqual(['x[$ne]']);
    expect(set.size).toBe(2 + CLEAN_KEYS_PER_WALK);
    expect(set.has('name') && set.has('email') && set.has('k0') && set.has(`k${CLEAN_KEYS_PER_WALK - 1}`)).toBe(true);
    expect(set.has(`k${CLEAN_KEYS_PER_WALK}`)).toBe(false);
    // the keys not kept are scanned again next time, with the same findings
    expect(brief(scanObject(flood, { engine })).map((f) => f.path[0])).toEqual(['x[$ne]']);
    expect(set.size).toBe(2 + 2 * CLEAN_KEYS_PER_WALK);
  });

  it('the default engine is used when none is given', () => {
    expect(brief(scanObject({ $where: 1 }))).toEqual([{ vector: 'nosql', rule: 'patterns.nosql.operator-key', path: ['$where'] }]);
  });
});

// ---------------------------------------------------------------- properties

const KEYS = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: 'grapheme' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '$ne', '$NE', '$where', '$Regex', '__proto__', '__PROTO__', 'constructor', 'prototype', '__defineGetter__',
      'a[$gt]', 'a[__proto__][x]', 'x.__proto__.y', 'x.$set', '[$in]', '$', 'currency$', 'proto', 'constructorName',
      '<script>', '<svg onload=alert(1)>', 'ro<script></script>le', 'role', '$n<script></script>e', '__pro<script></script>to__',
      '', '.', '[]', 'a..b', '0', '1',
    ),
  },
);
const STRINGS = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '<script>alert(1)</script>', "1' OR 1=1--", '../../etc/passwd', '{"$ne":1}', ' [{"__proto__":{}}]', '{"a":"b"}',
      '{"\\u0024gt":""}', '[1,2', 'R&D', '{{7*7}}', '&lt;b&gt;', '%3Cscript%3E', 'bob$smith@example.com',
    ),
  },
  { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
);
const ANY = fc.anything({
  maxDepth: 4,
  maxKeys: 6,
  key: KEYS,
  values: [STRINGS, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)],
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withDate: true,
  withTypedArray: true,
  withSparseArray: true,
  withNullPrototype: true,
  withObjectString: true,
  withBigInt: true,
});

describe('properties (fast-check, fixed seed)', () => {
  it('scanObject and sanitizeObject never throw within the limits; findings are well formed', () => {
    fc.assert(
      fc.property(ANY, (v) => {
        for (const f of scanObject(v)) {
          expect(f.rule).toMatch(/^patterns\.[a-z_]+\.[a-z0-9-]+$/);
          expect(f.rule.split('.')[1]).toBe(f.vector);
          expect(Array.isArray(f.path)).toBe(true);
          expect(['key', 'value']).toContain(f.part);
          expect(f.start).toBeLessThanOrEqual(f.end);
        }
        sanitizeObject(v);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('sanitizeObject is idempotent, leaves no listed key at any depth, and does not change its input', () => {
    fc.assert(
      fc.property(ANY, (v) => {
        const before = fc.stringify(v);
        const once = sanitizeObject(v);
        expect(sanitizeObject(once)).toEqual(once);
        expect(listedKeyPaths(once)).toEqual([]);
        expect(fc.stringify(v)).toBe(before);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('an engine that has seen many keys finds exactly what a new engine finds (the clean-key set changes nothing)', () => {
    const warm = new Engine();
    fc.assert(
      fc.property(ANY, (v) => {
        const cold = new Engine();
        expect(scanObject(v, { engine: warm })).toEqual(scanObject(v, { engine: cold }));
        expect(sanitizeObject(v, { engine: warm })).toEqual(sanitizeObject(v, { engine: cold }));
        // and again, now that the warm engine has seen this value's keys
        expect(scanObject(v, { engine: warm })).toEqual(scanObject(v, { engine: cold }));
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('a value without findings is copied equal, with every string byte-identical', () => {
    fc.assert(
      fc.property(ANY, (v) => {
        if (scanObject(v).length === 0) expect(sanitizeObject(v)).toEqual(v);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('every listed key in arrays and plain objects is reported at its path', () => {
    fc.assert(
      fc.property(ANY, (v) => {
        const reported = new Set(scanObject(v).filter((f) => f.part === 'key' && (f.vector === 'nosql' || f.vector === 'prototype')).map((f) => JSON.stringify(f.path)));
        for (const p of listedKeyPaths(v)) expect(reported).toContain(JSON.stringify(p));
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  // JSON text with listed keys (some escaped), padded, wrapped, and sometimes corrupted.
  const LISTED = fc.constantFrom('$ne', '\\u0024ne', '$N\\u0045', '$where', '__proto__', '\\u005f_proto__', 'a[$gt]', 'x.constructor', 'ok', 'name', '$', 'proto');
  const PAD = fc.constantFrom('', ' ', '\n\t', '\r\n  ', '\u00a0', '\ufeff');
  const jsonText = fc
    .tuple(LISTED, fc.json({ maxDepth: 2 }), fc.json({ maxDepth: 2 }), fc.boolean(), PAD, PAD)
    .map(([k, a, b, wrap, p1, p2]) => {
      const obj = `{"x":${a},"${k}":${b}}`;
      return p1 + (wrap ? `[1,${obj}]` : obj) + p2;
    });
  const corrupted = fc
    .tuple(jsonText, fc.nat(), fc.constantFrom('', '{', '}', '[', ']', '"', ',', ':', '\\', 'u', '0', ' ', '\u0001', 'x', 'e', '-', '.'))
    .map(([s, at, ch]) => {
      const i = at % (s.length + 1);
      return s.slice(0, i) + ch + s.slice(i + (at % 3 === 0 ? 0 : 1));
    });

  it('JSON held in a string is reported exactly when JSON.parse accepts it and it holds a listed key', () => {
    fc.assert(
      fc.property(fc.oneof(jsonText, corrupted, fc.json({ maxDepth: 3 })), (s) => {
        let expected = false;
        let parsed;
        let ok = true;
        try { parsed = JSON.parse(s); } catch { ok = false; }
        const first = s.replace(/^[ \t\n\r]+/, '')[0];
        if (ok && (first === '{' || first === '[')) expected = listedKeyPaths(parsed).length > 0;
        const got = scanObject({ q: s }).some((f) => f.vector === 'nosql' || f.vector === 'prototype');
        expect(got).toBe(expected);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });
});

describe('maxDepth ceiling', () => {
  // every finding carries its path from the root: findings at every level of a value nested d
  // deep report about d * d / 2 path entries, so maxDepth is capped
  const nested = (d) => {
    let v = { $ne: 1 };
    for (let i = 1; i < d; i++) v = { $ne: v };
    return v;
  };

  it(`maxDepth above ${MAX_DEPTH_CEILING} is refused, naming the option`, () => {
    expect(MAX_DEPTH_CEILING).toBe(1024);
    expect(() => scanObject({}, { maxDepth: MAX_DEPTH_CEILING + 1 })).toThrow(/maxDepth must be at most 1024/);
    expect(() => sanitizeObject({}, { maxDepth: 100_000 })).toThrow(TypeError);
  });

  it('at the ceiling, an operator key at every level is reported with its whole path', () => {
    const found = scanObject(nested(MAX_DEPTH_CEILING), { maxDepth: MAX_DEPTH_CEILING });
    const keys = found.filter((f) => f.part === 'key');
    expect(keys).toHaveLength(MAX_DEPTH_CEILING);
    const depths = keys.map((f) => f.path.length).sort((a, b) => a - b);
    expect(depths[0]).toBe(1);
    expect(depths[depths.length - 1]).toBe(MAX_DEPTH_CEILING);
    expect(() => scanObject(nested(MAX_DEPTH_CEILING + 1), { maxDepth: MAX_DEPTH_CEILING })).toThrow(ObjectLimitError);
  });
});
