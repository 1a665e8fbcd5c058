// Key walks over request objects (parsed bodies, queries, params). Two kinds of danger live in
// the shape of an object rather than in its strings: keys that reach a prototype when the
// object is merged or assigned (`__proto__`, `constructor`, ...) and document-database
// operator keys that change a query's meaning (`$ne`, `$where`, ...). Both key lists are rule
// data of kind `object-key` in the engine's rule table, so a rule change is a data change and
// `rules.disable` switches them off. Every key and every string value is also scanned by the
// engine, all of them in one wasm call per object.
//
// What the walk visits: arrays (every index below `length`) and plain objects (prototype
// `Object.prototype` or `null`: own enumerable string keys, in `Object.keys` order, which
// includes an own `__proto__` made by JSON.parse). Everything else is a leaf that is neither
// scanned nor copied: Date, RegExp, Map, Set, Buffer and typed arrays, ArrayBuffer, boxed
// primitives, class instances, functions, symbols, objects of another realm. Symbol-keyed
// properties and non-index properties of arrays are not visited. Values are read by ordinary
// property access (as JSON.stringify and merge helpers read them), so a getter runs once.
//
// The walk is iterative (an explicit stack; untrusted nesting never reaches the call stack),
// visits each object once (cycles and shared subtrees), and is bounded: nesting depth, the
// number of keys and array elements, and the total length of keys and strings. Past a bound
// it throws ObjectLimitError (a RangeError) naming the limit and the path where it was hit.

import type { Engine, Finding } from './engine.js';
import { defaultEngine } from './index.js';

/** Keys from the root to a key or value: property names, and indices for array elements. */
export type ObjectPath = (string | number)[];

/** A finding in an object: `path` leads to the key or value it belongs to; `part` says which. */
export interface ObjectFinding extends Finding {
  path: ObjectPath;
  /** `key` when the key itself is the finding (an operator or prototype key, or a hostile key string). */
  part: 'key' | 'value';
}

/** Options of scanObject and sanitizeObject. */
export interface ObjectScanOptions {
  /** The engine whose rules (and `rules.disable`) apply; default: the shared `defaultEngine()`. */
  engine?: Engine;
  /** Deepest nesting of objects and arrays, the root counting as 1 (default 64). */
  maxDepth?: number;
  /** Most keys plus array elements (an array counts its whole `length`) in the whole value (default 100,000). */
  maxKeys?: number;
  /** Most UTF-16 code units of keys and strings together (default 8 MiB of units, 8,388,608). */
  maxStringUnits?: number;
}

/** The default bounds of scanObject and sanitizeObject. */
export const OBJECT_LIMITS = Object.freeze({ maxDepth: 64, maxKeys: 100_000, maxStringUnits: 8 * 1024 * 1024 });

type LimitName = keyof typeof OBJECT_LIMITS;

/** Thrown when a value exceeds maxDepth, maxKeys or maxStringUnits; a caller answers 400 or 413. */
export class ObjectLimitError extends RangeError {
  /** Which bound was exceeded. */
  readonly limit: LimitName;
  /** The bound's value in this call. */
  readonly max: number;
  /** Where it was exceeded (the container or string being added). */
  readonly path: ObjectPath;

  constructor(fn: string, limit: LimitName, max: number, path: ObjectPath) {
    const what = limit === 'maxDepth' ? `objects and arrays nested deeper than maxDepth (${max})`
      : limit === 'maxKeys' ? `more than maxKeys (${max}) keys and array elements`
        : `more than maxStringUnits (${max}) UTF-16 code units of keys and strings`;
    super(`${fn}: ${what}; limit reached at path ${formatPath(path)}`);
    this.name = 'ObjectLimitError';
    this.limit = limit;
    this.max = max;
    this.path = path;
  }
}

// ------------------------------------------------------------------ paths in messages

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/; // anchored, no nested quantifier: linear

/** `$.a[0]["b c"]`, with long keys and long paths shortened so a message stays short. */
function formatPath(path: ObjectPath): string {
  const part = (k: string | number): string => {
    if (typeof k === 'number') return `[${k}]`;
    const s = k.length > 40 ? k.slice(0, 40) + '…' : k;
    return IDENTIFIER.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
  };
  if (path.length <= 12) return '$' + path.map(part).join('');
  return '$' + path.slice(0, 4).map(part).join('') + `…(${path.length - 8} more)…` + path.slice(-4).map(part).join('');
}

// ------------------------------------------------------------------ key rules

/** The object-key rules of one engine: every listed key, lower case, to a bit per rule. */
interface KeyTable {
  rules: { id: string; vector: string }[];
  keys: Map<string, number>;
  minLen: number;
  maxLen: number;
  /** ASCII first units (either case) some listed key starts with: most segments are rejected without lowering them. */
  firstAscii: Uint8Array;
}

const tables = new WeakMap<Engine, KeyTable>();

function keyTable(engine: Engine): KeyTable {
  let t = tables.get(engine);
  if (t) return t;
  t = { rules: [], keys: new Map(), minLen: Infinity, maxLen: 0, firstAscii: new Uint8Array(128) };
  for (const r of engine.rules) {
    if (r.kind !== 'object-key' || t.rules.length === 31) continue;
    const bit = 1 << t.rules.length;
    t.rules.push({ id: r.id, vector: r.vector });
    for (const p of r.params) {
      const k = p.toLowerCase();
      t.keys.set(k, (t.keys.get(k) ?? 0) | bit);
      t.minLen = Math.min(t.minLen, k.length);
      t.maxLen = Math.max(t.maxLen, k.length);
      // a non-ASCII first unit can lower to ASCII (K, U+212A KELVIN SIGN, lowers to k): those are never rejected early
      const c = k.charCodeAt(0);
      if (c < 128) { t.firstAscii[c] = 1; t.firstAscii[String.fromCharCode(c).toUpperCase().charCodeAt(0)] = 1; }
    }
  }
  tables.set(engine, t);
  return t;
}

/** A key table with the rules switched off in this engine masked out (checked per call: engine.disable may run later). */
interface KeyCheck {
  table: KeyTable;
  on: number;
}

function keyCheck(engine: Engine): KeyCheck {
  const table = keyTable(engine);
  let on = 0;
  table.rules.forEach((r, i) => { if (engine.isEnabled(r.id)) on |= 1 << i; });
  return { table, on };
}

/** The enabled rule bits of one key segment, case-insensitively. */
function segmentBits(kc: KeyCheck, s: string): number {
  if (s.length < kc.table.minLen || s.length > kc.table.maxLen) return 0;
  const c = s.charCodeAt(0);
  if (c < 128 && kc.table.firstAscii[c] === 0) return 0;
  return (kc.table.keys.get(s.toLowerCase()) ?? 0) & kc.on;
}

/**
 * Operator and prototype keys in one key: the whole key, and every segment between `[`, `]`
 * and `.`, because flat parsers (querystring, URLSearchParams) leave `user[$ne]` and
 * `a[__proto__][x]` as one key that qs-style expansion or a dotted-path setter (lodash `set`,
 * dot-prop) later turns into nesting. One finding per rule per key (the first segment that
 * hits); `span`, when given, replaces the offsets (a key inside JSON text). Returns the rule
 * bits reported so far (`seen` plus the new ones).
 */
function collectKeyHits(kc: KeyCheck, key: string, seen: number, out: Finding[], span: [number, number] | null): number {
  const report = (bits: number, matched: string, start: number, end: number): void => {
    const fresh = bits & ~seen;
    if (fresh === 0) return;
    seen |= fresh;
    for (let r = 0; r < kc.table.rules.length; r++) {
      if ((fresh & (1 << r)) === 0) continue;
      const rule = kc.table.rules[r];
      out.push({ vector: rule.vector, rule: rule.id, matched, start: span ? span[0] : start, end: span ? span[1] : end });
    }
  };
  const whole = segmentBits(kc, key);
  if (whole !== 0) report(whole, key, 0, key.length);
  let from = -1; // -1 until a delimiter is seen: without one the key is a single segment
  for (let i = 0; i <= key.length; i++) {
    const c = i < key.length ? key.charCodeAt(i) : 0x2e;
    if (c !== 0x5b && c !== 0x5d && c !== 0x2e) continue; // [ ] .
    if (from < 0) {
      if (i === key.length) break;
      from = 0;
    }
    if (i > from) {
      const bits = segmentBits(kc, key.slice(from, i));
      if (bits !== 0) report(bits, key.slice(from, i), from, i);
    }
    from = i + 1;
  }
  return seen;
}

function keyFindings(kc: KeyCheck, key: string): Finding[] | null {
  // no key or segment shorter than the shortest listed key can hit (most keys: id, name, q)
  if (kc.on === 0 || key.length < kc.table.minLen) return null;
  const out: Finding[] = [];
  collectKeyHits(kc, key, 0, out, null);
  return out.length === 0 ? null : out;
}

// ------------------------------------------------------------------ JSON held in a string

const JSON_ARRAY = 0;
const JSON_OBJECT = 1;

/** JSON whitespace (what JSON.parse skips; String#trim skips more). */
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Operator and prototype keys inside a string that is a JSON object or array, so
 * `filter={"$where":"..."}` read by `JSON.parse` on the server is caught. The text is lexed
 * once, left to right, with a byte stack for nesting (no parse tree, no depth limit, linear):
 * findings count only when the whole string is JSON that `JSON.parse` accepts. Keys are
 * compared after their escapes are decoded (`"\u0024ne"` is `$ne`); start/end span the key
 * inside the JSON text. One finding per rule per string.
 */
function jsonFindings(kc: KeyCheck, s: string): Finding[] | null {
  const n = s.length;
  let i = 0;
  while (i < n && isJsonSpace(s.charCodeAt(i))) i++;
  if (i === n || (s.charCodeAt(i) !== 0x7b && s.charCodeAt(i) !== 0x5b)) return null; // { [
  let stack = new Uint8Array(64);
  let depth = 0;
  const out: Finding[] = [];
  let seen = 0;
  let key = '';

  // Reads the string token whose opening quote is at i; returns the index after the closing
  // quote or -1. With `keep`, its decoded text is left in `key`.
  const readString = (keep: boolean): number => {
    let j = i + 1;
    let from = j;
    key = '';
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c === 0x22) { if (keep) key += s.slice(from, j); return j + 1; }
      if (c < 0x20) return -1;
      if (c !== 0x5c) { j++; continue; }
      if (keep) key += s.slice(from, j);
      const e = j + 1 < n ? s.charCodeAt(j + 1) : -1;
      if (e === 0x75) { // \uXXXX
        let v = 0;
        for (let k = j + 2; k < j + 6; k++) {
          const h = k < n ? s.charCodeAt(k) : -1;
          const d = h >= 0x30 && h <= 0x39 ? h - 0x30 : (h | 0x20) >= 0x61 && (h | 0x20) <= 0x66 ? (h | 0x20) - 0x57 : -1;
          if (d < 0) return -1;
          v = v * 16 + d;
        }
        if (keep) key += String.fromCharCode(v);
        j += 6;
      } else {
        const m = e === 0x22 ? '"' : e === 0x5c ? '\\' : e === 0x2f ? '/' : e === 0x62 ? '\b' : e === 0x66 ? '\f'
          : e === 0x6e ? '\n' : e === 0x72 ? '\r' : e === 0x74 ? '\t' : null;
        if (m === null) return -1;
        if (keep) key += m;
        j += 2;
      }
      from = j;
    }
    return -1;
  };
  const digits = (j: number): number => { while (j < n && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x39) j++; return j; };
  // Reads a number at i; returns the index after it or -1.
  const readNumber = (): number => {
    let j = i;
    if (s.charCodeAt(j) === 0x2d) j++;
    const c = j < n ? s.charCodeAt(j) : -1;
    if (c === 0x30) j++;
    else if (c >= 0x31 && c <= 0x39) j = digits(j + 1);
    else return -1;
    if (j < n && s.charCodeAt(j) === 0x2e) {
      const k = digits(j + 1);
      if (k === j + 1) return -1;
      j = k;
    }
    if (j < n && (s.charCodeAt(j) | 0x20) === 0x65) {
      j++;
      if (j < n && (s.charCodeAt(j) === 0x2b || s.charCodeAt(j) === 0x2d)) j++;
      const k = digits(j);
      if (k === j) return -1;
      j = k;
    }
    return j;
  };
  const skipSpace = (): void => { while (i < n && isJsonSpace(s.charCodeAt(i))) i++; };

  // The states of the lexer: a value is expected, a key is expected, or a value just ended.
  let state: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    skipSpace();
    if (state === 'after') {
      if (depth === 0) return i === n ? (out.length === 0 ? null : out) : null;
      const c = i < n ? s.charCodeAt(i) : -1;
      const top = stack[depth - 1];
      if (c === 0x2c) { i++; state = top === JSON_OBJECT ? 'key' : 'value'; continue; } // ,
      if ((c === 0x7d && top === JSON_OBJECT) || (c === 0x5d && top === JSON_ARRAY)) { i++; depth--; continue; }
      return null;
    }
    if (i >= n) return null;
    if (state === 'key') {
      if (s.charCodeAt(i) !== 0x22) return null;
      const start = i + 1;
      const j = readString(true);
      if (j < 0) return null;
      seen = collectKeyHits(kc, key, seen, out, [start, j - 1]);
      i = j;
      skipSpace();
      if (i >= n || s.charCodeAt(i) !== 0x3a) return null; // :
      i++;
      state = 'value';
      continue;
    }
    const c = s.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (depth === stack.length) { const grown = new Uint8Array(depth * 2); grown.set(stack); stack = grown; }
      stack[depth++] = c === 0x7b ? JSON_OBJECT : JSON_ARRAY;
      i++;
      skipSpace();
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (i < n && s.charCodeAt(i) === close) { i++; depth--; state = 'after'; continue; }
      state = c === 0x7b ? 'key' : 'value';
      continue;
    }
    let j: number;
    if (c === 0x22) j = readString(false);
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) j = readNumber();
    else if (s.startsWith('true', i)) j = i + 4;
    else if (s.startsWith('false', i)) j = i + 5;
    else if (s.startsWith('null', i)) j = i + 4;
    else j = -1;
    if (j < 0) return null;
    i = j;
    state = 'after';
  }
}

// ------------------------------------------------------------------ the walk

/**
 * Everything one walk saw, in flat arrays (no object per entry). Containers are numbered in
 * visiting order; container c owns entries first[c] .. first[c]+count[c]-1. A string slot's
 * ref is `entry * 2 + 1` for a key and `entry * 2` for a value; the root value is entry -1.
 */
interface Walk {
  cObj: object[];
  cArray: boolean[];
  cNullProto: boolean[];
  cParentEntry: number[];
  cFirst: number[];
  cCount: number[];
  eKey: (string | number)[];
  eVal: unknown[];
  eOwner: number[];
  /** The container an entry's value is (possibly visited earlier), or -1. */
  eChild: number[];
  sText: string[];
  sRef: number[];
  /** Operator and prototype findings by string ref (rare, so a map). */
  structural: Map<number, Finding[]>;
  /** Engine findings per string slot. */
  found: Finding[][];
  kc: KeyCheck;
  engine: Engine;
}

function pathOfEntry(w: Walk, entry: number): ObjectPath {
  const path: ObjectPath = [];
  for (let e = entry; e >= 0; e = w.cParentEntry[w.eOwner[e]]) path.push(w.eKey[e]);
  return path.reverse();
}

function limitOption(options: ObjectScanOptions, name: LimitName): number {
  const v = options[name] ?? OBJECT_LIMITS[name];
  if (!Number.isSafeInteger(v) || v < 1) throw new TypeError(`${name} must be a positive integer, got ${String(options[name])}`);
  return v;
}

function resolveEngine(options: ObjectScanOptions): Engine {
  const e = options.engine;
  if (e === undefined) return defaultEngine();
  if (e === null || typeof e !== 'object' || typeof e.scanValues !== 'function' || !Array.isArray(e.rules)) {
    throw new TypeError('engine must be an Engine (new Engine(...) from @shield/node)');
  }
  return e;
}

/** Arrays and plain objects are walked; anything else is a leaf. */
function containerKind(v: object): 'array' | 'object' | 'null-proto' | null {
  if (Array.isArray(v)) return 'array';
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype ? 'object' : proto === null ? 'null-proto' : null;
}

function walk(fn: string, root: unknown, options: ObjectScanOptions | undefined): Walk {
  const opts = options ?? {};
  if (typeof opts !== 'object') throw new TypeError(`options must be an object, got ${typeof opts}`);
  const engine = resolveEngine(opts);
  const maxDepth = limitOption(opts, 'maxDepth');
  const maxKeys = limitOption(opts, 'maxKeys');
  const maxUnits = limitOption(opts, 'maxStringUnits');
  const kc = keyCheck(engine);
  const w: Walk = {
    cObj: [], cArray: [], cNullProto: [], cParentEntry: [], cFirst: [], cCount: [],
    eKey: [], eVal: [], eOwner: [], eChild: [], sText: [], sRef: [], structural: new Map(), found: [], kc, engine,
  };
  const level: number[] = [];
  const seen = new Map<object, number>();
  let keys = 0;
  let units = 0;

  const addString = (s: string, ref: number, isKey: boolean): void => {
    if (s.length === 0) return;
    units += s.length;
    if (units > maxUnits) throw new ObjectLimitError(fn, 'maxStringUnits', maxUnits, pathOfEntry(w, ref >> 1));
    w.sText.push(s);
    w.sRef.push(ref);
    const hits = isKey ? keyFindings(kc, s) : kc.on === 0 ? null : jsonFindings(kc, s);
    if (hits) w.structural.set(ref, hits);
  };
  const addContainer = (v: object, kind: 'array' | 'object' | 'null-proto', parentEntry: number, lvl: number): number => {
    if (lvl > maxDepth) throw new ObjectLimitError(fn, 'maxDepth', maxDepth, pathOfEntry(w, parentEntry));
    const c = w.cObj.length;
    w.cObj.push(v);
    w.cArray.push(kind === 'array');
    w.cNullProto.push(kind === 'null-proto');
    w.cParentEntry.push(parentEntry);
    w.cFirst.push(0);
    w.cCount.push(0);
    level.push(lvl);
    seen.set(v, c);
    return c;
  };

  // Depth-first in document order with an explicit stack of open containers (frames): the
  // container, the next position in it, and its keys. Entries of a container are reserved in
  // one block when it opens, so they stay contiguous although its children open in between.
  const frameC: number[] = [];
  const frameI: number[] = [];
  const frameNames: (string[] | null)[] = [];
  const open = (c: number): void => {
    const obj = w.cObj[c];
    // an array's length is checked before anything is read: a sparse `length` of 2**32-1 costs nothing
    const names = w.cArray[c] ? null : Object.keys(obj);
    const n = names ? names.length : (obj as unknown[]).length;
    keys += n;
    if (keys > maxKeys) throw new ObjectLimitError(fn, 'maxKeys', maxKeys, pathOfEntry(w, w.cParentEntry[c]));
    w.cFirst[c] = w.eKey.length;
    w.cCount[c] = n;
    for (let i = 0; i < n; i++) { w.eKey.push(0); w.eVal.push(undefined); w.eOwner.push(c); w.eChild.push(-1); }
    frameC.push(c);
    frameI.push(0);
    frameNames.push(names);
  };

  if (typeof root === 'string') addString(root, -2, false);
  else if (root !== null && typeof root === 'object') {
    const kind = containerKind(root);
    if (kind) open(addContainer(root, kind, -1, 1));
  }
  while (frameC.length > 0) {
    const top = frameC.length - 1;
    const c = frameC[top];
    const i = frameI[top];
    if (i === w.cCount[c]) { frameC.pop(); frameI.pop(); frameNames.pop(); continue; }
    frameI[top] = i + 1;
    const names = frameNames[top];
    const key = names ? names[i] : i;
    const v = (w.cObj[c] as Record<string | number, unknown>)[key];
    const e = w.cFirst[c] + i;
    w.eKey[e] = key;
    w.eVal[e] = v;
    if (names) addString(key as string, e * 2 + 1, true);
    if (typeof v === 'string') addString(v, e * 2, false);
    else if (v !== null && typeof v === 'object') {
      const known = seen.get(v);
      if (known !== undefined) w.eChild[e] = known;
      else {
        const kind = containerKind(v);
        if (kind) {
          const child = addContainer(v, kind, e, level[c] + 1);
          w.eChild[e] = child;
          open(child);
        }
      }
    }
  }
  // the one engine call for the whole object
  w.found = w.sText.length === 0 ? [] : engine.scanValues(w.sText);
  return w;
}

// ------------------------------------------------------------------ public functions

/**
 * Every finding in a parsed request object: operator and prototype keys (also in `a[b]` and
 * `a.b` segments and in JSON held by strings), and the engine's findings for every key and
 * string value, scanned in one engine call. Throws ObjectLimitError past a bound.
 */
export function scanObject(value: unknown, options?: ObjectScanOptions): ObjectFinding[] {
  const w = walk('scanObject', value, options);
  const out: ObjectFinding[] = [];
  for (let i = 0; i < w.sText.length; i++) {
    const ref = w.sRef[i];
    const structural = w.structural.get(ref);
    const found = w.found[i];
    if (!structural && found.length === 0) continue;
    const part = (ref & 1) === 1 ? 'key' : 'value';
    for (const f of structural ?? []) out.push({ ...f, path: pathOfEntry(w, ref >> 1), part });
    for (const f of found) out.push({ ...f, path: pathOfEntry(w, ref >> 1), part });
  }
  return out;
}

// Property descriptors are read with HasProperty, which walks the prototype chain: a
// descriptor that inherits from a polluted Object.prototype could gain a `get`. Null prototype.
const descriptor: PropertyDescriptor = Object.assign(Object.create(null) as PropertyDescriptor, {
  value: undefined, writable: true, enumerable: true, configurable: true,
});

function define(target: object, key: string, value: unknown): void {
  descriptor.value = value;
  Object.defineProperty(target, key, descriptor);
  descriptor.value = undefined;
}

const ENTRY_DROP = 1;
const ENTRY_RENAME = 2;

// Details a caller can rely on:
// - the default pipeline, not options: its HTML encoding is what turns smuggled JSON
//   (`{"$ne":1}` in a string) into text JSON.parse refuses (`{&quot;$ne&quot;:1}`);
// - a hostile key becomes its sanitized text; it is dropped when nothing is left, when that
//   text is an operator or prototype key, or when the object already has a key of that name;
// - copies are `{}` (or `Object.create(null)` for a null-prototype input) filled with
//   Object.defineProperty, never by assignment, so no inherited setter runs; arrays keep
//   their length (holes become undefined); leaves are the same objects as in the input;
// - one scan call for the whole object, then one engine.sanitize call per string that has a
//   finding (the engine has no batch sanitize yet; clean requests make none).

/**
 * A sanitized copy of a parsed request object; the input is not changed. Operator and
 * prototype keys are removed with their values (also when a bracket or dot segment of the key
 * is one). Every string with a finding, key or value, is replaced by the engine's
 * `sanitize()` with its default pipeline (xss, sql, path, encode); every other string is
 * returned byte-identical. Array elements are never removed. Throws ObjectLimitError past a bound.
 */
export function sanitizeObject<T>(value: T, options?: ObjectScanOptions): T {
  const w = walk('sanitizeObject', value, options);
  const { engine, kc } = w;
  const flags = new Uint8Array(w.eKey.length);
  const renamed = new Map<number, string>();
  const fixed = new Map<number, string>();
  for (let i = 0; i < w.sText.length; i++) {
    const ref = w.sRef[i];
    const structural = w.structural.has(ref);
    if (!structural && w.found[i].length === 0) continue;
    const e = ref >> 1;
    if ((ref & 1) === 0) { fixed.set(ref, engine.sanitize(w.sText[i])); continue; }
    if (structural) { flags[e] = ENTRY_DROP; continue; }
    // A hostile key is renamed to its sanitized text, unless nothing is left of it or that
    // text is itself an operator or prototype key (`$n<script></script>e` becomes `$ne`).
    const name = engine.sanitize(w.sText[i]);
    if (name.length === 0 || keyFindings(kc, name)) { flags[e] = ENTRY_DROP; continue; }
    flags[e] = ENTRY_RENAME;
    renamed.set(e, name);
  }
  if (w.cObj.length === 0) {
    return (typeof value === 'string' ? fixed.get(-2) ?? value : value) as T;
  }

  const outs: object[] = new Array(w.cObj.length);
  for (let c = 0; c < outs.length; c++) {
    // Array.from defines own elements (no [[Set]] that a polluted prototype could intercept);
    // later writes hit those own data properties.
    outs[c] = w.cArray[c] ? Array.from({ length: w.cCount[c] }) : w.cNullProto[c] ? Object.create(null) : {};
  }
  const valueOf = (e: number): unknown => {
    const child = w.eChild[e];
    if (child >= 0) return outs[child];
    const v = w.eVal[e];
    return typeof v === 'string' ? fixed.get(e * 2) ?? v : v;
  };
  for (let c = 0; c < outs.length; c++) {
    const out = outs[c] as Record<string, unknown>;
    const first = w.cFirst[c];
    const end = first + w.cCount[c];
    if (w.cArray[c]) {
      for (let e = first; e < end; e++) (out as unknown as unknown[])[e - first] = valueOf(e);
      continue;
    }
    // A renamed key never displaces a clean key of the same object (`ro<script></script>le`
    // sanitizes to `role`, which must not overwrite the real `role`), nor an earlier renamed one.
    let clean: Set<string> | null = null;
    if (renamed.size > 0) {
      for (let e = first; e < end; e++) {
        if (flags[e] === ENTRY_RENAME) {
          clean = new Set();
          for (let k = first; k < end; k++) if (flags[k] === 0) clean.add(w.eKey[k] as string);
          break;
        }
      }
    }
    for (let e = first; e < end; e++) {
      const f = flags[e];
      if (f === ENTRY_DROP) continue;
      if (f === ENTRY_RENAME) {
        const name = renamed.get(e)!;
        if (clean!.has(name) || Object.hasOwn(out, name)) continue;
        define(out, name, valueOf(e));
      } else {
        define(out, w.eKey[e] as string, valueOf(e));
      }
    }
  }
  return outs[0] as T;
}
