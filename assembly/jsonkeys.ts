// A quick look for listed object keys in a value that is JSON (operator and prototype keys, the
// rules of kind object-key): the bindings' JSON lexer (object-keys.ts) runs only on values where
// some quoted string is a listed key, holds an escape, or holds '[' or '.' (a segment may be
// listed). The answer can only be "no" or "maybe". Linear: each string is read once.

import { at, lower, findP, P_QUOTE } from './text';
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
