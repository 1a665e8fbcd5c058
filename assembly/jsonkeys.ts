// A quick look for listed object keys in a value that is JSON (operator and prototype keys, the
// rules of kind object-key): the bindings' JSON lexer (object-keys.ts) runs only on values where
// some quoted string is a listed key, holds an escape, or holds '[' or '.' (a segment may be
// listed). The answer can only be "no" or "maybe". Linear: each string is read once.

import { at, lower, isAlpha, isAlnum, find1, find2, findP, splat16, lowerWordIs, P_QUOTE } from './text';
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
 * JavaScript, a Mongo shell or a query string writes a key. Reported by the object-key rule whose
 * param it is:
 * - the name, bare or in quotes, then ':' (white space between allowed), then what a JavaScript
 *   value starts with (a quote, a digit, '-', '{', '[', '/', '$', true, false, null, this, new,
 *   function), after the value's start, a quote or one of { , [ ( ; & | (white space between
 *   allowed): "{ $ne: 1 }", "', $where: '1 == 1'", "{'$gt': ''}", "a\", \"$where\": \"1==1";
 *   not after a word ("echo $text: done", "Price $in: 5") nor before prose ("Fields: $size, $type:
 *   both"). In double quotes only after ',' and before the value's first '{' (a member added past
 *   the end of a JSON string; not JSON shown in prose, 'see {"a": 1, "$ne": 1} inline'), and when
 *   the value does not start like JSON (`jsonLike`), whose own "$ne": the bindings' JSON reader
 *   judges;
 * - the name in brackets, then '=' or the next bracket, the forms a query string carries
 *   ("[$ne]=1", "user[$gt]=", "user[$in][]=admin"), not an index into a variable ("$arr[$set] = 1",
 *   "$_GET[$type]").
 * Linear: each '$' is read once, a name at most 24 units, the name before '[' at most 64.
 */
export function scanOperatorText(p: usize, n: i32, jsonLike: bool): void {
  firstBrace = -2;
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
        // then '=' (white space before it allowed) or the next bracket of a nested key
        // ("user[$in][]=admin", "filter[$or][0][name]=x")
        let j = k + 1;
        while (j < n && (at(p, j) == 32 || at(p, j) == 9)) j++;
        if (j < n && (at(p, j) == 61 || (j == k + 1 && at(p, j) == 91)) && !variableBefore(p, i - 1)) {
          const r = ruleWithWord(K_OBJECT_KEY, p, i, l);
          if (r >= 0 && !fired(r)) { emit(r, i - 1, k + 1); return; }
        }
      } else if (prev == 46 && (next == 61 || next == 91) && dottedKeyBefore(p, i - 1)) {
        // a query key in dot notation ("user.$ne=1", "user.$in[]=a": qs's allowDots, and other
        // parsers, make it { user: { $ne: 1 } })
        const r = ruleWithWord(K_OBJECT_KEY, p, i, l);
        if (r >= 0 && !fired(r)) { emit(r, i - 1, k + 1); return; }
      } else if (next == 58 || next == 32 || next == 9 || next == 39 || next == 34) {
        // in quotes when the same quote closes the name ('$gt', "$where" outside JSON and before
        // the value's first '{': a member added past the end of a JSON string, not JSON shown in
        // prose, 'see {"a": 1, "$ne": 1} inline'); a quote before it alone is a lead ("$ne:1)
        const quote: u32 = next == prev && (prev == 39 || (prev == 34 && !jsonLike && !braceBefore(p, n, i))) ? prev : 0;
        let j = k;
        if (quote != 0) j++;
        else if (next == 39 || next == 34) j = n;
        while (j < n && (at(p, j) == 32 || at(p, j) == 9)) j++;
        if (j < n && at(p, j) == 58 && !(j + 1 < n && at(p, j + 1) == 58)) {
          // what stands before the name (and its quote), white space aside: nothing, or what
          // comes before a key (not a word: "echo $text: done", "Price $in: 5")
          let q = quote != 0 ? i - 1 : i;
          while (q > 0 && q > i - 64 && (at(p, q - 1) == 32 || at(p, q - 1) == 9 || at(p, q - 1) == 10 || at(p, q - 1) == 13)) q--;
          const b: u32 = q > 0 ? at(p, q - 1) : 0;
          // (in double quotes, only after ',': a member added past the end of a JSON string,
          // "a\", \"$where\": ...; not JSON shown in prose, 'see {"$ne": 1} inline')
          if ((quote == 34 ? b == 44 : b == 0 || b == 39 || b == 34 || b == 123 || b == 44 || b == 91 || b == 40 || b == 59 || b == 38 || b == 124) &&
            jsValueAt(p, n, j + 1)) {
            const r = ruleWithWord(K_OBJECT_KEY, p, i, l);
            if (r >= 0 && !fired(r)) { emit(r, quote != 0 ? i - 1 : i, j + 1); return; }
          }
        }
      }
    }
    i = nextKeyDollar(p, k > i + 1 ? k : i + 1, n);
  }
}

/**
 * The '.' at d ends a query key: one or more key units (letters, digits, '_', '-', '.', '[', ']')
 * back to the value's start or a '&', '?' or ';' of a query string (at most 64 units; not a
 * variable's member, "$obj.$ne=").
 */
function dottedKeyBefore(p: usize, d: i32): bool {
  let q = d;
  while (q > 0 && d - q < 64) {
    const c = at(p, q - 1);
    if (!(isAlnum(c) || c == 95 || c == 45 || c == 46 || c == 91 || c == 93)) break;
    q--;
  }
  if (q == d) return false;
  return q == 0 || at(p, q - 1) == 38 || at(p, q - 1) == 63 || at(p, q - 1) == 59;
}

// The value's first '{' (-2: not looked for yet in this value; n when there is none).
let firstBrace = -2;

/** A '{' stands before i in the value p[0, n) (looked for once per value). */
function braceBefore(p: usize, n: i32, i: i32): bool {
  if (firstBrace == -2) firstBrace = find1(p, 0, n, 123);
  return firstBrace < i;
}

/** The name before the '[' at b is a variable ("$arr[", "$_GET["): word units back to a '$' (at most 64). */
function variableBefore(p: usize, b: i32): bool {
  let s = b;
  while (s > 0 && b - s < 64 && (isAlnum(at(p, s - 1)) || at(p, s - 1) == 95)) s--;
  return s > 0 && at(p, s - 1) == 36;
}

/** After a key's ':' at j (white space first): what a JavaScript value starts with. */
function jsValueAt(p: usize, n: i32, j: i32): bool {
  while (j < n && (at(p, j) == 32 || at(p, j) == 9)) j++;
  if (j >= n) return false;
  const c = at(p, j);
  if (c == 39 || c == 34 || c == 96 || c == 45 || c == 123 || c == 91 || c == 47 || c == 36 || (c >= 48 && c <= 57)) return true;
  const l = c | 32;
  if (l != 116 && l != 102 && l != 110) return false; // t f n
  return wordAt(p, n, j, 'true') || wordAt(p, n, j, 'false') || wordAt(p, n, j, 'null') || wordAt(p, n, j, 'this') ||
    wordAt(p, n, j, 'new') || wordAt(p, n, j, 'function');
}

/** The word w (lower case) at j, case-insensitively, not followed by a letter or digit. */
function wordAt(p: usize, n: i32, j: i32, w: string): bool {
  const e = j + w.length;
  return e <= n && lowerWordIs(p, j, w.length, w) && (e == n || !isAlnum(at(p, e)));
}

/**
 * The next '$' at or after i (i >= 1) that no letter or digit stands right before and a letter
 * follows (a key's name starts after white space, a quote or punctuation: "x$in:x$in:..." cost a
 * look at every '$'), or n; eight units a step.
 */
function nextKeyDollar(p: usize, i: i32, n: i32): i32 {
  const kDollar = splat16(36);
  const k0 = splat16(48);
  const k9 = splat16(9);
  const kA = splat16(97);
  const k25 = splat16(25);
  const k20 = splat16(32);
  while (i + 9 <= n) {
    const q = p + (<usize>i << 1);
    const v = v128.load(q);
    const vp = v128.load(q - 2);
    const vn = v128.load(q, 2);
    const alnum = v128.or(i16x8.le_u(i16x8.sub(vp, k0), k9), i16x8.le_u(i16x8.sub(v128.or(vp, k20), kA), k25));
    // (and a letter after it: a name follows, not "${", "$(", "$5")
    const letter = i16x8.le_u(i16x8.sub(v128.or(vn, k20), kA), k25);
    const m = i16x8.bitmask(v128.and(v128.andnot(i16x8.eq(v, kDollar), alnum), letter));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i < n && !(at(p, i) == 36 && !isAlnum(at(p, i - 1)) && i + 1 < n && isAlpha(at(p, i + 1)))) i++;
  return i;
}
