// Operator and prototype keys (the rules of kind `object-key`): matching a key, its [ ] and .
// segments, and the keys of a JSON object held in a string. Shared by the object walk
// (object.ts) and by scan, which judges strings that are JSON this way (engine.ts).

import type { Engine, Finding } from './engine.js';
import { detach } from './text.js';

// ------------------------------------------------------------------ key rules

/** The object-key rules of one engine: every listed key, lower case, to a bit per rule. */
export interface KeyTable {
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
export interface KeyCheck {
  table: KeyTable;
  on: number;
  /**
   * Object keys (at most CLEAN_KEY_MAX units) this engine found nothing in, with no operator or
   * prototype key in them: both answers are a function of the key alone, and rules can only be
   * switched off (a new KeyCheck then starts a new set), so a key found clean stays clean. A
   * request body's keys are its API's field names, the same on every request; the walk skips
   * them (no keyFindings, no engine scan). At most CLEAN_KEYS entries, cleared when full; one
   * walk adds at most CLEAN_KEYS_PER_WALK (a request of thousands of made-up keys neither empties
   * the set for the others at once nor pays for adding them all).
   */
  cleanKeys: Set<string>;
}

/** The longest key kept in KeyCheck.cleanKeys, and how many are kept. */
export const CLEAN_KEY_MAX = 32;
export const CLEAN_KEYS = 4096;
export const CLEAN_KEYS_PER_WALK = 64;

const checks = new WeakMap<Engine, { disabled: number; check: KeyCheck }>();

export function keyCheck(engine: Engine): KeyCheck {
  // once per engine and set of switched-off rules (the walk asks on every request)
  const cached = checks.get(engine);
  if (cached !== undefined && cached.disabled === engine.disabledCount) return cached.check;
  const table = keyTable(engine);
  let on = 0;
  table.rules.forEach((r, i) => { if (engine.isEnabled(r.id)) on |= 1 << i; });
  const check = { table, on, cleanKeys: new Set<string>() };
  checks.set(engine, { disabled: engine.disabledCount, check });
  return check;
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
  // a copy: inside JSON text the key is cut from the scanned value
  if (whole !== 0) report(whole, detach(key), 0, key.length);
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
      if (bits !== 0) report(bits, detach(key.slice(from, i)), from, i);
    }
    from = i + 1;
  }
  return seen;
}

/** Whether a key holds '[', ']' or '.' (then its segments are judged one by one). */
function hasSegmentDelimiter(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 0x5b || c === 0x5d || c === 0x2e) return true;
  }
  return false;
}

export function keyFindings(kc: KeyCheck, key: string): Finding[] | null {
  // no key or segment shorter than the shortest listed key can hit (most keys: id, name, q)
  if (kc.on === 0 || key.length < kc.table.minLen) return null;
  // most keys are one segment that is not listed: answered without allocating
  if (segmentBits(kc, key) === 0 && !hasSegmentDelimiter(key)) return null;
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
export function jsonFindings(kc: KeyCheck, s: string): Finding[] | null {
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
      let j = readString(false);
      if (j < 0) return null;
      // a key whose text is shorter than every listed key holds none (escapes only shorten it)
      if (j - 1 - start >= kc.table.minLen) {
        j = readString(true);
        seen = collectKeyHits(kc, key, seen, out, [start, j - 1]);
      }
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


/** Rule id `id` is one of the object-key rules. */
export function isKeyRule(kc: KeyCheck, id: string): boolean {
  return kc.table.rules.some((r) => r.id === id);
}
