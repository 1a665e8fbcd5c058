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
import { keyCheck, keyFindings, jsonFindings, isKeyRule, CLEAN_KEY_MAX, CLEAN_KEYS, CLEAN_KEYS_PER_WALK, type KeyCheck } from './object-keys.js';

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
  /** Deepest nesting of objects and arrays, the root counting as 1 (default 64, at most 1,024). */
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

/**
 * The largest maxDepth accepted. Every finding carries its path from the root, so a value
 * nested d deep with a finding at every level reports about d * d / 2 path entries: at 1,024
 * that is half a million, at 10,000 fifty million (seconds of CPU, gigabytes of paths).
 */
export const MAX_DEPTH_CEILING = 1024;

function limitOption(options: ObjectScanOptions, name: LimitName): number {
  const v = options[name] ?? OBJECT_LIMITS[name];
  if (!Number.isSafeInteger(v) || v < 1) throw new TypeError(`${name} must be a positive integer, got ${String(options[name])}`);
  if (name === 'maxDepth' && v > MAX_DEPTH_CEILING) {
    throw new TypeError(`maxDepth must be at most ${MAX_DEPTH_CEILING} (each finding's path grows with the depth), got ${v}`);
  }
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

const SEEN_SCAN = 32;

/** The index of `v` in `objs` (a few entries: compared one by one), or undefined. */
function seenAmong(objs: object[], v: object): number | undefined {
  for (let k = 0; k < objs.length; k++) if (objs[k] === v) return k;
  return undefined;
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
  // containers already visited (cycles, shared subtrees): a request body has a few, found by
  // a scan of w.cObj; a Map only past SEEN_SCAN of them (a Map key costs an identity hash,
  // which an object from JSON.parse gets stored in a new properties array)
  let seen = null as Map<object, number> | null;
  let keys = 0;
  let units = 0;

  const cleanKeys = kc.cleanKeys;
  const addString = (s: string, ref: number, isKey: boolean): void => {
    if (s.length === 0) return;
    units += s.length;
    if (units > maxUnits) throw new ObjectLimitError(fn, 'maxStringUnits', maxUnits, pathOfEntry(w, ref >> 1));
    // a key found clean before: nothing to find in it again
    if (isKey && s.length <= CLEAN_KEY_MAX && cleanKeys.has(s)) return;
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
    if (seen !== null) seen.set(v, c);
    else if (c + 1 > SEEN_SCAN) {
      seen = new Map();
      for (let k = 0; k <= c; k++) seen.set(w.cObj[k], k);
    }
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
      const known = seen !== null ? seen.get(v) : seenAmong(w.cObj, v);
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
  // the short keys found clean, for the next requests (only keys: values are the users' data;
  // a few per walk: an API's field names are few, a flood of made-up keys is not kept)
  let added = 0;
  for (let i = 0; i < w.sText.length && added < CLEAN_KEYS_PER_WALK; i++) {
    const ref = w.sRef[i];
    if ((ref & 1) === 0 || w.sText[i].length > CLEAN_KEY_MAX || w.found[i].length !== 0 || (w.structural.size !== 0 && w.structural.has(ref))) continue;
    if (cleanKeys.size >= CLEAN_KEYS) cleanKeys.clear();
    cleanKeys.add(w.sText[i]);
    added++;
  }
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
    const structural = w.structural.size === 0 ? undefined : w.structural.get(ref);
    const found = w.found[i];
    if (!structural && found.length === 0) continue;
    const part = (ref & 1) === 1 ? 'key' : 'value';
    // the fields one by one: an object spread with more properties after it takes V8's slow path
    for (const f of structural ?? []) out.push({ vector: f.vector, rule: f.rule, matched: f.matched, start: f.start, end: f.end, path: pathOfEntry(w, ref >> 1), part });
    // scan also reports listed keys of JSON held in a string, read from the decoded text; in an
    // object the walk's own reading of the raw string (as the server's JSON.parse sees it) stands
    for (const f of found) {
      if (!isKeyRule(w.kc, f.rule)) out.push({ vector: f.vector, rule: f.rule, matched: f.matched, start: f.start, end: f.end, path: pathOfEntry(w, ref >> 1), part });
    }
  }
  return out;
}

// Property descriptors are read with HasProperty, which walks the prototype chain: a
// descriptor that inherits from a polluted Object.prototype could gain a `get`. Null prototype.
const descriptor: PropertyDescriptor = Object.assign(Object.create(null) as PropertyDescriptor, {
  value: undefined, writable: true, enumerable: true, configurable: true,
});

/** Defines an own data property without [[Set]] (no inherited setter runs, `__proto__` stays a plain key). */
export function define(target: object, key: string | number, value: unknown): void {
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
    const structural = w.structural.size !== 0 && w.structural.has(ref);
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
