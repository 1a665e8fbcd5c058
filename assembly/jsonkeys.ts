// A quick look for listed object keys in a value that is JSON (operator and prototype keys, the
// rules of kind object-key): the bindings' JSON lexer (object-keys.ts) runs only on values where
// some quoted string is a listed key, holds an escape, or holds '[' or '.' (a segment may be
// listed). The answer can only be "no" or "maybe". Linear: each string is read once.

import { at, lower, isAlpha, isAlnum, find2, findP, splat16, P_QUOTE } from './text';
import { emit, fired } from './findings';
import { K_OBJECT_KEY, enabledRule, ruleWithWord, kindLenMask, kindFirstMask } from './rules';

const MAX_KEY = 64; // a longer string is no listed key, but may hold segments: "maybe"

/** Some quoted string in p[0, n) may be a listed key. */
export function jsonKeyCandidate(p: usize, n: i32): bool {
  if (enabledRule(K_OBJECT_KEY) < 0) return false;
  // the kind's length and first-character filters, so that most keys need no rule lookup
  const lens = kindLenMask(K_OBJECT_KEY);
  const firsts = kindFirstMask(K_OBJECT_KEY);
  let i = 0;
  while (i < n) {
    i = findP(p, i, n, P_QUOTE, 34, 34, 34, 34);
    if (i >= n) return false;
    const s = i + 1;
    let k = s;
    while (k < n && k - s <= MAX_KEY) {
      const c = at(p, k);
      if (c == 34) break;
      if (c == 92 || c == 91 || c == 46) return true; // an escape or a segment separator
      k++;
    }
    if (k - s > MAX_KEY) return true;
    if (k >= n) return false; // unterminated: JSON.parse refuses it
    const l = k - s;
    if (l > 0 && (lens & (1 << (l >= 31 ? 31 : l))) != 0 && (firsts & (1 << (lower(at(p, s)) & 31))) != 0 &&
      ruleWithWord(K_OBJECT_KEY, p, s, l) >= 0) return true;
    i = k + 1;
  }
  return false;
}

/**
 * Listed keys that start with '$' (the document-database operators) written in a string the way
 * JavaScript, a Mongo shell or a query string writes a key, not as JSON (whose "$ne": the bindings'
 * JSON reader judges):
 * - the name, bare or in single quotes, then ':' (white space between allowed), after the value's
 *   start, a quote or one of { , [ ( ; & | (white space between allowed: "{ $ne: 1 }",
 *   "', $where: '1 == 1'", "{'$gt': ''}"; not after a word: "echo $text: done", "Price $in: 5");
 * - the name in brackets, the form a query parser turns into a key ("[$ne]=1", "user[$gt]=").
 * Reported by the object-key rule whose param it is. Linear: each '$' is read once, a name at
 * most 24 units.
 */
export function scanOperatorText(p: usize, n: i32): void {
  let i = find2(p, 0, n, 36, 36);
  while (i < n) {
    let k = i + 1;
    while (k < n && k - i <= 24 && isAlpha(at(p, k))) k++;
    const l = k - i;
    // the units around the name first, the rule lookup last ("$in$in...", "x$in:x$in:..." cost a
    // lookup per '$')
    if (l >= 3 && l <= 24 && k < n) {
      const prev: u32 = i > 0 ? at(p, i - 1) : 0;
      const next = at(p, k);
      if (prev == 91 && next == 93) {
        const r = ruleWithWord(K_OBJECT_KEY, p, i, l);
        if (r >= 0 && !fired(r)) { emit(r, i - 1, k + 1); return; }
      } else if (next == 58 || next == 32 || next == 9 || next == 39) {
        const quoted = prev == 39;
        let j = k;
        if (quoted) j = next == 39 ? j + 1 : n;
        while (j < n && (at(p, j) == 32 || at(p, j) == 9)) j++;
        if (j < n && at(p, j) == 58 && !(j + 1 < n && at(p, j + 1) == 58)) {
          // what stands before the name (and its quote), white space aside: nothing, or what
          // comes before a key (not a word: "echo $text: done", "Price $in: 5")
          let q = quoted ? i - 1 : i;
          while (q > 0 && q > i - 64 && (at(p, q - 1) == 32 || at(p, q - 1) == 9 || at(p, q - 1) == 10 || at(p, q - 1) == 13)) q--;
          const b: u32 = q > 0 ? at(p, q - 1) : 0;
          if (b == 0 || b == 39 || b == 34 || b == 123 || b == 44 || b == 91 || b == 40 || b == 59 || b == 38 || b == 124) {
            const r = ruleWithWord(K_OBJECT_KEY, p, i, l);
            if (r >= 0 && !fired(r)) { emit(r, quoted ? i - 1 : i, j + 1); return; }
          }
        }
      }
    }
    i = nextKeyDollar(p, k > i + 1 ? k : i + 1, n);
  }
}

/**
 * The next '$' at or after i (i >= 1) that no letter or digit stands right before (a key's name
 * starts after white space, a quote or punctuation: "x$in:x$in:..." cost a look at every '$'), or
 * n; eight units a step.
 */
function nextKeyDollar(p: usize, i: i32, n: i32): i32 {
  const kDollar = splat16(36);
  const k0 = splat16(48);
  const k9 = splat16(9);
  const kA = splat16(97);
  const k25 = splat16(25);
  const k20 = splat16(32);
  while (i + 8 <= n) {
    const q = p + (<usize>i << 1);
    const v = v128.load(q);
    const vp = v128.load(q - 2);
    const alnum = v128.or(i16x8.le_u(i16x8.sub(vp, k0), k9), i16x8.le_u(i16x8.sub(v128.or(vp, k20), kA), k25));
    const m = i16x8.bitmask(v128.andnot(i16x8.eq(v, kDollar), alnum));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i < n && !(at(p, i) == 36 && !isAlnum(at(p, i - 1)))) i++;
  return i;
}
