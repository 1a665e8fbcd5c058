// One pass finds every literal parameter of the literal-matching rule kinds (substring, js-call,
// path-wrapper, path-file, sql-phrase, sql-union, sql-call) with a filter on three-character
// windows: a table of the windows that start any literal, and per window a list of (rule,
// param) to verify. The verification applies each kind's boundary rules. Long values take it in
// two halves (literalFront: classes, punctuation bitmaps and the candidates whose window is in
// the table; literalVerify: the lists, once the value is final); short ones in one
// (everyPosition). Cost per candidate: one hash and one byte load.

import {
  at, lower, lowerWordIs, isAlnum, isUniSpace, jsSpace, find2, isSpace, initText, fileEntryEnds, cls, pathLiteralAt, punctSet, punctReset, P_SETS, splat8,
  P_QUOTE, P_SQL, P_COLON, P_DOT, P_LT, P_CMD, P_DEC,
} from './text';
import {
  K_SUBSTRING, K_JS_CALL, K_PATH_WRAPPER, K_PATH_FILE, K_SQL_PHRASE, K_SQL_UNION, K_SQL_CALL, K_SQL_CONDITIONAL, K_LDAP_FILTER, firstRule, nextRule,
  ruleEnabled, paramCount, paramPtr, paramLen,
} from './rules';
import { emit, fired } from './findings';
import { stripMode, addSpan } from './spans';
import { arenaAlloc } from './mem';
import { decodableIn } from './decode';
import { TABLE, classesInit, C_ALPHA, C_DIGIT, C_SPACE, C_NONASCII, C_UNDERSCORE, C_DOLLAR } from './classes';

// 65536 bytes, 1 where some literal starts with a window of that hash: a byte each rather than a
// bit (the test per candidate start is then one load; the bit test's shifts cost about 5% of a
// scan of prose, measured with bench/wasm-ab.mjs)
let windowTable: usize = 0;
let substringNeedsLetter = true; // every substring literal holds a letter
let heads: usize = 0; // 65536 x i32, -1 = none
let entries: usize = 0; // {i32 rule, i32 param, i32 next}
let entryCount = 0;

// The hash sees units folded as c | 0x20 (ASCII letters lower-cased; a few punctuation pairs
// share a value, which only costs a verification) and non-ASCII as 127: the eight-lane search
// computes the same fold with two vector operations. Verification compares exactly.
@inline function fold(c: u32): u32 {
  return c < 128 ? c | 32 : 127;
}

@inline function hash3(a: u32, b: u32, c: u32): u32 {
  return ((a << 9) ^ (b << 4) ^ c) & 0xffff;
}

function registered(kind: i32): bool {
  return kind == K_SUBSTRING || kind == K_JS_CALL || kind == K_PATH_WRAPPER || kind == K_PATH_FILE || kind == K_SQL_PHRASE ||
    kind == K_SQL_UNION || kind == K_SQL_CALL || kind == K_SQL_CONDITIONAL || kind == K_LDAP_FILTER;
}

/** Param w of a rule of `kind` is a literal the pass looks for: an ldap-filter rule's params are anchors only when they start with a parenthesis (the others are attribute names that ldap.ts compares). */
@inline function literalParam(kind: i32, w: usize): bool {
  return kind != K_LDAP_FILTER || load<u8>(w) == 41 || load<u8>(w) == 40;
}

// Positions of UNION and of listed SQL function names: anchors where sql.ts lexes a window.
export const MAX_SQL_ANCHORS = 64;
export const sqlAnchors = memory.data(MAX_SQL_ANCHORS * 4);
export let sqlAnchorCount = 0;
export let sqlAnchorsOverflow = false;
/** A listed SQL function name (kind sql-call) is among the noted positions (sql.ts judges calls only then). */
export let sqlCallNoted = false;
// Positions of "(select" (the union kind's param that starts with '('): where a scalar subquery may
// stand (subquery windows, sql.ts). A list of its own, for the same reason as CASE below; past the
// first SUBQUERY_ANCHORS nothing more is noted, nor compared: sql.ts judges only those.
export const SUBQUERY_ANCHORS = 16;
export const subqAnchors = memory.data(SUBQUERY_ANCHORS * 4);
export let subqAnchorCount = 0;
// Positions of the word CASE (conditional windows, sql.ts): a list of their own, so that a text
// full of "case" fills neither the list above nor turns every word into an anchor.
export const caseAnchors = memory.data(MAX_SQL_ANCHORS * 4);
export let caseAnchorCount = 0;
export let caseAnchorsOverflow = false;
// Positions of ")(" followed by '(', an operator, an attribute's first unit, ':' or a space, of
// ") (", and of "(&(", "(|(" and "(!(" (ldap-filter anchors): where ldap.ts judges a filter
// breakout or a whole filter. Past LDAP_ANCHORS, ldap.ts searches the rest itself.
export const LDAP_ANCHORS = 16;
export const ldapAnchors = memory.data(LDAP_ANCHORS * 4);
export let ldapAnchorCount = 0;
export let ldapAnchorsOverflow = false;
// Positions of IF( and IIF( (the other params of that kind), the same way.
export const ifAnchors = memory.data(MAX_SQL_ANCHORS * 4);
export let ifAnchorCount = 0;
export let ifAnchorsOverflow = false;

// Folded separators a phrase's space may stand for in the text: tab, LF, VT and '+', FF, CR, '/'.
const PHRASE_GAPS = memory.data<u8>([41, 42, 43, 44, 45, 47, 32]);

// An entry: {i32 rule, i32 param, i32 next, u32 gap, u32 sum4, u32 sum5, u64 pat, u64 mask, u64
// pat2, u64 mask2}. `pat` and `mask`: the param's first eight units folded (a byte each, the first
// unit lowest) and 0xff in each byte whose unit the text must hold folded the same way, 0 where
// that cannot be
// told by one unit: past the param's end, a phrase's space and every unit after it (the space may
// stand for more than one unit, and a phrase's '/' may start a comment), a byte above 0x7f; a '/'
// (which also matches '\\') holds SLASH_PAT under SLASH_MASK; `pat2` and
// `mask2` the same for the next eight units (the seven "document..." params all hold "document"
// and part at the ninth: "document " repeated would verify all seven at every word). `gap`: for a
// phrase whose first space is among those eight units with another unit after it, the space's
// index (bits 0-7) and the folded unit after it (bits 8-15): a text with a plain space there and
// then a unit that starts no separator must hold that unit (the common prose case, "from the"
// under "from program"); 0xff when there is none. `sum4` and `sum5`, read in a list's first entry
// only: bit (u & 31) of every fourth and fifth unit of the entries from there to the list's end
// (all bits where the unit is not known), so that a window whose fourth or fifth unit no entry
// has skips the list at once (the seven "document..." params under "doc", read for every
// "DOCTYPE"). The full comparison (verify) runs only for an entry whose units the text holds.
// `split` (read in a list's first entry only): for a list of more than SPLIT_MIN entries, the
// index of its eight sub-lists in subHeads, -1 for none (splitLists).
const ENTRY = 64;
const ANY: u32 = 0xff;

@inline function registerOrCount(h: u32, r: i32, k: i32, count: bool): void {
  if (count) store<i32>(heads + (<usize>h << 2), load<i32>(heads + (<usize>h << 2)) + 1);
  else register(h, r, k);
}

// A '/' of a param in pat and mask: 0x2f and 0x7c (folded '/' and '\\') agree on the bits of
// SLASH_MASK, where both hold SLASH_PAT (most other units do not: a space, a letter, ':').
const SLASH_PAT: u64 = 0x2c;
const SLASH_MASK: u64 = 0xac;

/** The summary bits of one unit of an entry (folded pat byte b, mask byte m): bit (u & 31) of each unit u it allows. */
function summaryBits(b: u32, m: u32): u32 {
  if (m == 0) return 0xffffffff;
  if (m == <u32>SLASH_MASK) return (<u32>1 << (0x2f & 31)) | (<u32>1 << (0x7c & 31));
  return <u32>1 << (b & 31);
}

/** Adds (rule, param) to the list of window hash h, once. */
function register(h: u32, r: i32, k: i32): void {
  let e = load<i32>(heads + (<usize>h << 2));
  while (e >= 0) {
    const ep = entries + <usize>e * ENTRY;
    if (load<i32>(ep) == r && load<i32>(ep + 4) == k) return;
    e = load<i32>(ep + 8);
  }
  store<u8>(windowTable + h, 1);
  const ep = entries + <usize>entryCount * ENTRY;
  const next = load<i32>(heads + (<usize>h << 2));
  // the first sixteen units, up to a phrase's or substring's first space
  const w = paramPtr(r, k);
  const wl = paramLen(r, k);
  const phrase = ruleKindOf(r) == K_SQL_PHRASE;
  // (a substring param's space matches a run of white space too: spacedSubstringEnd)
  const spaced = phrase || ruleKindOf(r) == K_SUBSTRING;
  let pat: u64 = 0;
  let mask: u64 = 0;
  let pat2: u64 = 0;
  let mask2: u64 = 0;
  let gap: u32 = ANY;
  for (let j = 0; j < 16 && j < wl; j++) {
    const c = <u32>load<u8>(w + j);
    if (spaced && c == 32) {
      if (j + 1 < 8 && j + 1 < wl && load<u8>(w + j + 1) != 32) gap = <u32>j | (fold(load<u8>(w + j + 1)) << 8);
      break;
    }
    if (c >= 128 || (c == 47 && phrase)) continue;
    const sh = <u64>(j & 7) << 3;
    // a '/' matches '/' and '\\' (folded 0x2f and 0x7c): the bits those two share (SLASH_MASK)
    const pb: u64 = c == 47 ? SLASH_PAT : <u64>fold(c);
    const mb: u64 = c == 47 ? SLASH_MASK : 0xff;
    if (j < 8) {
      pat |= pb << sh;
      mask |= mb << sh;
    } else {
      pat2 |= pb << sh;
      mask2 |= mb << sh;
    }
  }
  // the list's summary: the fourth and fifth units this entry needs (all where not known), and
  // those of the entries after it
  let sum4 = summaryBits(<u32>(pat >> 24) & 0xff, <u32>(mask >> 24) & 0xff);
  let sum5 = summaryBits(<u32>(pat >> 32) & 0xff, <u32>(mask >> 32) & 0xff);
  if (next >= 0) {
    const np = entries + <usize>next * ENTRY;
    sum4 |= load<u32>(np + 16);
    sum5 |= load<u32>(np + 20);
  }
  store<i32>(ep, r);
  store<i32>(ep + 4, k);
  store<i32>(ep + 8, next);
  store<u32>(ep + 12, gap);
  store<u32>(ep + 16, sum4);
  store<u32>(ep + 20, sum5);
  store<u64>(ep + 24, pat);
  store<u64>(ep + 32, mask);
  store<u64>(ep + 40, pat2);
  store<u64>(ep + 48, mask2);
  store<i32>(ep + 56, -1);
  store<i32>(heads + (<usize>h << 2), entryCount);
  entryCount++;
}

// A list of more than SPLIT_MIN entries is also kept as eight sub-lists, one per value of its
// fourth unit (folded, & 7): copies of the entries that need that fourth unit and of those that
// need none there, in the list's order. A window then walks the one sub-list its own fourth unit
// picks (the nineteen params under "sys" were compared one by one at every "sys_eval"). The
// entries of other fourth units cannot match it: their pattern holds that unit.
const SPLIT_MIN = 8;
let subHeads: usize = 0; // 8 x i32 per split list

/**
 * Walks each list of more than SPLIT_MIN entries and builds its sub-lists (after every register);
 * `maxSplits`: how many lists may be that long (buildLiterals' counts, which count an entry
 * registered twice twice, so never fewer).
 */
function splitLists(maxSplits: i32): void {
  if (maxSplits == 0) return;
  subHeads = arenaAlloc(<usize>maxSplits * 32);
  let split = 0;
  for (let h = 0; h < 65536; h++) {
    const first = load<i32>(heads + (<usize>h << 2));
    let e = first;
    let n = 0;
    while (e >= 0) { n++; e = load<i32>(entries + <usize>e * ENTRY + 8); }
    if (n <= SPLIT_MIN) continue;
    for (let sub = 0; sub < 8; sub++) {
      // copies in the list's order: each appended after the last one made
      let head = -1;
      let tail = -1;
      e = first;
      while (e >= 0) {
        const ep = entries + <usize>e * ENTRY;
        const m4 = <u32>(load<u64>(ep + 32) >> 24) & 0xff;
        const b4 = <i32>(load<u64>(ep + 24) >> 24) & 7;
        if (m4 == 0 || (m4 == <u32>SLASH_MASK ? sub == (0x2f & 7) || sub == (0x7c & 7) : b4 == sub)) {
          const cp = entries + <usize>entryCount * ENTRY;
          memory.copy(cp, ep, ENTRY);
          store<i32>(cp + 8, -1);
          store<i32>(cp + 56, -1);
          if (tail >= 0) store<i32>(entries + <usize>tail * ENTRY + 8, entryCount);
          else head = entryCount;
          tail = entryCount;
          entryCount++;
        }
        e = load<i32>(ep + 8);
      }
      store<i32>(subHeads + (<usize>(split * 8 + sub) << 2), head);
    }
    store<i32>(entries + <usize>first * ENTRY + 56, split);
    split++;
  }
}

/** Builds the tables for every literal of the loaded rules (disabled ones too: enabling is a flag). */
export function buildLiterals(): void {
  initText();
  let total = 0;
  for (let kind = 0; kind < 64; kind++) {
    if (!registered(kind)) continue;
    let r = firstRule(kind);
    while (r >= 0) {
      // a phrase with a space among its first three units takes one entry per separator (below)
      const np = paramCount(r);
      for (let k = 0; k < np; k++) {
        const w = paramPtr(r, k);
        total += kind == K_SQL_PHRASE && paramLen(r, k) >= 3 && (load<u8>(w + 1) == 32 || load<u8>(w + 2) == 32) ? 8 : 1;
      }
      r = nextRule(r);
    }
  }
  windowTable = arenaAlloc(65536);
  memory.fill(windowTable, 0, 65536);
  heads = arenaAlloc(65536 * 4);
  // the entries per window hash first (heads as counters; a param registered twice under one
  // hash counts twice): room for the copies splitLists makes, eight at most per entry of a long list
  memory.fill(heads, 0, 65536 * 4);
  registerAll(true);
  let copies = 0;
  let splits = 0;
  for (let h = 0; h < 65536; h++) {
    const n = load<i32>(heads + (<usize>h << 2));
    if (n > SPLIT_MIN) { copies += n * 8; splits++; }
  }
  memory.fill(heads, 0xff, 65536 * 4);
  entries = arenaAlloc(<usize>(total + copies + 1) * ENTRY);
  entryCount = 0;
  registerAll(false);
  splitLists(splits);
}

/** Registers every literal param (count: only counts the entries per window hash in heads). */
function registerAll(count: bool): void {
  substringNeedsLetter = true;
  for (let kind = 0; kind < 64; kind++) {
    if (!registered(kind)) continue;
    let r = firstRule(kind);
    while (r >= 0) {
      const np = paramCount(r);
      for (let k = 0; k < np; k++) {
        const w = paramPtr(r, k);
        const wl = paramLen(r, k);
        if (wl < 3 || load<u8>(w) == 94) continue; // anchored (^) path params are checked at the value start
        if (!literalParam(kind, w)) continue;
        if (kind == K_SUBSTRING) {
          let hasLetter = false;
          for (let j = 0; j < wl; j++) if ((<u32>load<u8>(w + j) | 32) - 97 < 26) hasLetter = true;
          if (!hasLetter) substringNeedsLetter = false;
        }
        const a = fold(load<u8>(w));
        const b = fold(load<u8>(w + 1));
        const c = fold(load<u8>(w + 2));
        registerOrCount(hash3(a, b, c), r, k, count);
        // a phrase's space matches any separator (white space, '+', a /* comment */): a space
        // inside the three-unit window is registered once per separator the text may hold
        // (and a substring param's space any white space, spacedSubstringEnd: not the '/' gap,
        // which is SQL's comments' and whose windows, "'//", "-o/", could share a hash with text
        // that is all '/' and make every unit of it a candidate)
        if ((kind == K_SQL_PHRASE || kind == K_SUBSTRING) && (b == 32 || c == 32)) {
          for (let v = 0; v < 7; v++) {
            const f = <u32>load<u8>(PHRASE_GAPS + v);
            if (f == 47 && kind == K_SUBSTRING) continue;
            registerOrCount(hash3(a, b == 32 ? f : b, c == 32 ? f : c), r, k, count);
          }
        }
      }
      r = nextRule(r);
    }
  }
}

let txt: usize = 0;
let len = 0;
/** Set by scanLiterals: the value holds "0x" (hex-literal bytes the path view maps). */
export let sawHexByte = false;

/** A character of an identifier; non-ASCII counts (as in JavaScript and SQL names, and as the candidate search sees it). */
// (non-ASCII counts as part of a JavaScript name, but for the Unicode spaces, JavaScript's line
// terminators and white space among them: "'\u2028alert(1)//" is a call; NFKC makes most of that
// white space a plain space, not U+1680, nor what an escape spells once undone: scriptEscapes)
@inline function isIdent(c: u32): bool {
  return isAlnum(c) || c == 95 || c == 36 || (c >= 0x80 && !isUniSpace(c));
}

@inline function isSep(c: u32): bool {
  return c == 47 || c == 92;
}

@inline function same(w: usize, wl: i32, i: i32): bool {
  return pathLiteralAt(txt, len, i, w, wl);
}

/**
 * A substring param at i, as same() compares it, but a space of the param matches a run of white
 * space: a shell and a script read "'; return", "';\treturn" and "';  return" alike (the window
 * hashes of such params are registered once per kind of white space). Where the match ends, or
 * -1. A run is read from the end of what the param matched before it, so once per param that
 * reaches it.
 */
function spacedSubstringEnd(w: usize, wl: i32, i: i32): i32 {
  let t = i;
  for (let q = 0; q < wl; q++) {
    const pc = <u32>load<u8>(w + q);
    if (t >= len) return -1;
    const c = at(txt, t);
    if (pc == 32) {
      if (!isSpace(c)) return -1;
      t++;
      while (t < len && isSpace(at(txt, t))) t++;
      continue;
    }
    const l = lower(c);
    if (pc == 47 ? l != 47 && l != 92 : pc != l) return -1;
    t++;
  }
  return t;
}

/** `name(` at i */
function callAt(i: i32, name: string): bool {
  const l = name.length;
  if (i + l >= len) return false;
  for (let j = 0; j < l; j++) if (lower(at(txt, i + j)) != <u32>name.charCodeAt(j)) return false;
  return at(txt, i + l) == 40;
}

/**
 * `name (arg` or `name/**\/(arg`: JavaScript allows a gap before a call's '('. Prose does too
 * ("alert (the manager)"), so the argument must start like code: a digit, a quote, a backtick,
 * ')' or '/', or a name directly followed by '.' '[' '(' or ','; a name directly followed by ')'
 * only when the gap held a comment ("Prompt (AI) engineering" is prose).
 */
// The last search for a comment's end: from closeFrom, the first "*\/" starts at closeAt (len - 1:
// none). Every listed call inside one unclosed comment ('alert/*alert/*...') asks from there; a
// search that starts in [closeFrom, closeAt] has the same answer, so each unit is read once.
let closeFrom: i32 = -1;
let closeAt: i32 = 0;

/** Where the first "*\/" at or after i starts, or len - 1 (none). */
function commentEnd(i: i32): i32 {
  if (closeFrom >= 0 && i >= closeFrom && i <= closeAt) return closeAt;
  let k = i;
  while (k + 1 < len && !(at(txt, k) == 42 && at(txt, k + 1) == 47)) k++;
  closeFrom = i;
  closeAt = k;
  return k;
}

function spacedCall(e: i32): bool {
  let j = e;
  let guard = 0;
  let commented = false;
  while (j < len && guard < 256) {
    const c = at(txt, j);
    if (isSpace(c) || jsSpace(c)) { j++; guard++; continue; }
    if (c == 47 && j + 1 < len && at(txt, j + 1) == 42) {
      commented = true;
      j += 2;
      // the comment's end, or where the guard stops the walk inside it
      const ce = commentEnd(j);
      const stop = j + (256 - guard);
      if (ce < stop) { guard += ce - j; j = ce; } else { j = stop < len - 1 ? stop : len - 1; guard = 256; }
      j += 2;
      continue;
    }
    break;
  }
  if (j == e || j >= len || at(txt, j) != 40) return false;
  // a lone name in brackets after white space is prose ("Prompt (AI) engineering", "alert
  // (urgent): server down"); after a comment it is code ("alert/**/(origin)")
  return codeArgAt(j + 1, commented);
}

/**
 * A call's argument from j (after its '(') starts like code: a digit, a quote, a backtick, ')', '/',
 * or a name directly followed by '.', '[', '(' or ',' (or by ')' when `loneName`: "(prompt)(completion)",
 * "mode(s)" are prose).
 */
function codeArgAt(j: i32, loneName: bool): bool {
  while (j < len && isSpace(at(txt, j))) j++;
  if (j >= len) return false;
  const a = at(txt, j);
  if ((a >= 48 && a <= 57) || a == 34 || a == 39 || a == 96 || a == 41 || a == 47) return true;
  if (!isIdent(a)) return false;
  while (j < len && isIdent(at(txt, j))) j++;
  if (j >= len) return false;
  const b = at(txt, j);
  if (b == 41) return loneName;
  return b == 46 || b == 91 || b == 40 || b == 44;
}

/**
 * `Name(word)` or `name(word/word)` right after a sink's name is prose: "Alert(s) enabled",
 * "Confirm(ed)", "Please confirm(yes/no)". A capitalised name (upper-case first letter, the
 * rest lower case) calls nothing, JavaScript having no "Alert" or "Confirm" (an attacker writes
 * the name in lower case, or all in upper case where a filter is case-blind: "ALERT(1)" stays a
 * call, as does "Alert(1)", whose argument is code). Words joined by '/' divide two names, which
 * gives an attacker nothing a digit would not. `e` is the index of the '('.
 */
function proseCall(i: i32, e: i32): bool {
  let k = e + 1;
  const ws = k;
  while (k < len && (at(txt, k) | 32) - 97 < 26) k++;
  if (k == ws) return false;
  let slashed = false;
  while (k + 1 < len && at(txt, k) == 47 && (at(txt, k + 1) | 32) - 97 < 26) {
    k++;
    while (k < len && (at(txt, k) | 32) - 97 < 26) k++;
    slashed = true;
  }
  if (k >= len || at(txt, k) != 41) return false;
  if (slashed) return true;
  if (at(txt, i) - 65 >= 26) return false;
  for (let j = i + 1; j < e; j++) if (at(txt, j) - 97 >= 26) return false;
  return true;
}

// When the literal pass runs over the path view (path.ts), offsets map back to the value.
let litMap: usize = 0; // i32 value offset of each view unit, or 0
let litMapEnd = 0; // the value's length

export function setLiteralMap(map: usize, valueLen: i32): void {
  litMap = map;
  litMapEnd = valueLen;
}

function emitLit(r: i32, s: i32, e: i32): void {
  if (litMap == 0) { emit(r, s, e); return; }
  const os = load<i32>(litMap + (<usize>s << 2));
  const oe = e > s ? (e < len ? load<i32>(litMap + (<usize>e << 2)) : litMapEnd) : os;
  emit(r, os, oe);
}

// End of the last verified match.
let matchEnd = 0;

// Units of a phrase's separator from its first comment on, past which the phrase counts as found.
const SEPARATOR_MAX = 514;
// The last phrase match phraseAt made at once at SEPARATOR_MAX, and (sanitizing) the span it
// removed: the words inside that span start no phrase of their own (each would read the same
// chain of comments again).
let phraseCapped = false;
let capFrom = -1;
let capTo = -1;

/**
 * SQL phrase: its words in order, separated by white space, '+' or /* comments *\/; before a
 * character that is not a word character (a quote) the separator may be missing.
 */
// Where phraseAt last stopped at a unit the text does not hold: the start, the param, its index
// there and the text's position. Params listed under one window often share their first words
// ("from program '", "from program e'", "from program $$"): the next one at the same start,
// whose units up to that index are the same, goes on from there instead of reading them again.
let pfI = -1;
let pfW: usize = 0;
let pfQ = 0;
let pfT = 0;

function phraseAt(w: usize, wl: i32, i: i32): bool {
  phraseCapped = false;
  let q = 0;
  let t = i;
  // (not right after a space of the param: the walk over that space read the unit after it,
  // the first one the two params need not share)
  if (i == pfI && pfQ < wl && (pfQ == 0 || load<u8>(w + pfQ - 1) != 32) && sameBytes(w, pfW, pfQ)) {
    q = pfQ;
    t = pfT;
  }
  while (q < wl) {
    const pc = <u32>load<u8>(w + q);
    if (pc == 32) {
      // at least one separator in the text: white space (read once per word before it, so
      // unbounded) or /* comments */. From the first comment on the separator is bounded: a
      // comment holds words, so a chain of comments ('/*into/**/ /*into/**/ ...') would be read
      // again from every word in it; a separator this long between two SQL words hides them, and
      // counts as the phrase (guard: units from the first '/*'; 514 is a comment of 512)
      const t0 = t;
      let guard = 0;
      while (t < len) {
        const c = at(txt, t);
        if (isSpace(c) || c == 43) {
          t++;
          if (guard > 0 && ++guard >= SEPARATOR_MAX) { matchEnd = t; phraseCapped = true; return true; }
          continue;
        }
        if (c == 47 && t + 1 < len && at(txt, t + 1) == 42) {
          t += 2;
          guard += 2;
          while (t + 1 < len && !(at(txt, t) == 42 && at(txt, t + 1) == 47) && guard < SEPARATOR_MAX) { t++; guard++; }
          if (guard >= SEPARATOR_MAX) { matchEnd = t; phraseCapped = true; return true; }
          t += 2;
          guard += 2;
          continue;
        }
        break;
      }
      // words need a separator between them; a quote or other punctuation may follow at once
      if (t > len || (t == t0 && q + 1 < wl && isIdent(<u32>load<u8>(w + q + 1)))) return false;
      q++;
      continue;
    }
    if (t >= len || lower(at(txt, t)) != pc) {
      pfI = i;
      pfW = w;
      pfQ = q;
      pfT = t;
      return false;
    }
    q++;
    t++;
  }
  if (t < len && isIdent(at(txt, t)) && isAlnum(<u32>load<u8>(w + wl - 1))) return false;
  matchEnd = t;
  return true;
}

@inline function sameBytes(a: usize, b: usize, n: i32): bool {
  for (let j = 0; j < n; j++) if (load<u8>(a + <usize>j) != load<u8>(b + <usize>j)) return false;
  return true;
}

/**
 * A number ends right before i: digits and '.', an exponent ('1e0'), from the value's start or
 * after a unit that is no identifier unit ("x=1union", not "abc1union" or "v2union"). Reads at most
 * 32 units back.
 */
function numberBefore(i: i32): bool {
  let k = i;
  const stop = i > 32 ? i - 32 : 0;
  let digits = false;
  while (k > stop) {
    const c = at(txt, k - 1);
    if ((c >= 48 && c <= 57) || c == 46) { if (c != 46) digits = true; k--; continue; }
    // an exponent: 'e' with a digit before it
    if ((c | 32) == 101 && digits && k - 2 >= stop && at(txt, k - 2) >= 48 && at(txt, k - 2) <= 57) { k--; continue; }
    break;
  }
  if (!digits || k == i) return false;
  if (k == stop && stop > 0) return false;
  return k == 0 || !isIdent(at(txt, k - 1));
}

function verify(r: i32, k: i32, i: i32): bool {
  const w = paramPtr(r, k);
  const wl = paramLen(r, k);
  const kind = kindOf(r);
  const prev: u32 = i > 0 ? at(txt, i - 1) : 32;
  const first = <u32>load<u8>(w);
  if (kind == K_LDAP_FILTER) {
    // a breakout's or a filter's position for ldap.ts (which judges it and reports)
    if (ldapAnchorsOverflow || !same(w, wl, i)) return false;
    if (ldapAnchorCount > 0 && load<i32>(ldapAnchors + (<usize>(ldapAnchorCount - 1) << 2)) == i) return false;
    if (ldapAnchorCount >= LDAP_ANCHORS) { ldapAnchorsOverflow = true; return false; }
    store<i32>(ldapAnchors + (<usize>ldapAnchorCount << 2), i);
    ldapAnchorCount++;
    return false;
  }
  if (kind == K_SQL_UNION || kind == K_SQL_CALL || kind == K_SQL_CONDITIONAL) {
    // (a full list of CASE or IF( positions: sql.ts searches the text past it itself)
    if (kind == K_SQL_CONDITIONAL && (load<u8>(w + wl - 1) == 40 ? ifAnchorsOverflow : caseAnchorsOverflow)) return false;
    // (and of "(select": sql.ts judges the first SUBQUERY_ANCHORS only)
    if (first == 40 && subqAnchorCount >= SUBQUERY_ANCHORS) return false;
    // a word (or the last part of a dotted name): note it for the SQL judges; UNION also right
    // after a number ("1union select", "1e0union select": the number ends at the letter)
    if ((isIdent(prev) && !(kind == K_SQL_UNION && numberBefore(i))) || !same(w, wl, i)) return false;
    // (a param that ends in '(' ends there: "if(1=1")
    if (i + wl < len && isIdent(at(txt, i + wl)) && load<u8>(w + wl - 1) != 40) return false;
    if (kind == K_SQL_CONDITIONAL) {
      // CASE, or IF( and IIF(: lists of their own
      if (load<u8>(w + wl - 1) != 40) {
        if (caseAnchorCount > 0 && load<i32>(caseAnchors + (<usize>(caseAnchorCount - 1) << 2)) == i) return false;
        if (caseAnchorCount >= MAX_SQL_ANCHORS) { caseAnchorsOverflow = true; return false; }
        store<i32>(caseAnchors + (<usize>caseAnchorCount << 2), i);
        caseAnchorCount++;
      } else {
        if (ifAnchorCount > 0 && load<i32>(ifAnchors + (<usize>(ifAnchorCount - 1) << 2)) >= i - 1) return false;
        if (ifAnchorCount >= MAX_SQL_ANCHORS) { ifAnchorsOverflow = true; return false; }
        store<i32>(ifAnchors + (<usize>ifAnchorCount << 2), i);
        ifAnchorCount++;
      }
      return false;
    }
    if (first == 40) {
      if (!(subqAnchorCount > 0 && load<i32>(subqAnchors + (<usize>(subqAnchorCount - 1) << 2)) == i)) {
        store<i32>(subqAnchors + (<usize>subqAnchorCount << 2), i);
        subqAnchorCount++;
      }
      return false;
    }
    if (sqlAnchorCount > 0 && load<i32>(sqlAnchors + (<usize>(sqlAnchorCount - 1) << 2)) == i) return false;
    if (sqlAnchorCount >= MAX_SQL_ANCHORS) { sqlAnchorsOverflow = true; return false; }
    store<i32>(sqlAnchors + (<usize>sqlAnchorCount << 2), i);
    sqlAnchorCount++;
    if (kind == K_SQL_CALL) sqlCallNoted = true;
    return false;
  }
  // detection reports a rule once per value: a rule that fired needs no second look (dense
  // input: every 'alert' of 'alert/*alert/*...' would read the comment after it)
  if (!stripMode && fired(r)) return false;
  if (kind == K_SQL_PHRASE) {
    if (isIdent(prev) || prev == 46) return false;
    // sanitizing: inside a span that a separator cut short at SEPARATOR_MAX already removed, no
    // second walk over that separator
    if (stripMode && i > capFrom && i < capTo) return false;
    if (!phraseAt(w, wl, i)) return false;
    if (stripMode) {
      addSpan(i, matchEnd);
      if (phraseCapped) { capFrom = i; capTo = matchEnd; }
    } else {
      emitLit(r, i, matchEnd);
    }
    return true;
  }
  // the kinds' boundary before the literal, checked before its letters
  if (kind == K_PATH_WRAPPER && isAlnum(prev)) return false;
  if (kind == K_PATH_FILE && i > 0 && !isSep(prev)) return false;
  // an option starts a word: "-exec /" inside "co-exec /path" is a hyphenated word
  if (kind == K_SUBSTRING && first == 45 && (isAlnum(prev) || prev == 95)) return false;
  if (kind == K_JS_CALL && isAlnum(first) && isIdent(prev)) return false;
  if (kind == K_SUBSTRING) {
    const end = spacedSubstringEnd(w, wl, i);
    if (end < 0) return false;
    emitLit(r, i, end);
    return true;
  }
  if (!same(w, wl, i)) return false;
  const e = i + wl;
  const last = <u32>load<u8>(w + wl - 1);
  if (kind == K_PATH_WRAPPER) {
    emitLit(r, i, e);
    return true;
  }
  if (kind == K_PATH_FILE) {
    if (!fileEntryEnds(txt, len, e, w, wl)) return false;
    emitLit(r, i, e);
    return true;
  }
  // K_JS_CALL
  if (e < len && isAlnum(last) && isIdent(at(txt, e))) return false;
  if (first == 46) {
    // a member (.innerHTML): written (= or +=, not ==) or called
    let j = e;
    while (j < len && isSpace(at(txt, j))) j++;
    if (j >= len) return false;
    const d = at(txt, j);
    const d1: u32 = j + 1 < len ? at(txt, j + 1) : 0;
    if (!((d == 61 && d1 != 61) || (d == 43 && d1 == 61) || d == 40 || d == 96)) return false;
    emitLit(r, i, d == 43 ? j + 2 : j + 1);
    return true;
  }
  let dotted = false;
  for (let j = 1; j < wl; j++) {
    const pc = <u32>load<u8>(w + j);
    if (pc == 46 || pc == 91 || pc == 61) { dotted = true; break; }
  }
  if (!dotted) {
    const d: u32 = e < len ? at(txt, e) : 0;
    if (!(d == 40 || d == 96 || (d == 63 && e + 2 < len && at(txt, e + 1) == 46 && at(txt, e + 2) == 40) ||
      (d == 46 && (callAt(e + 1, 'call') || callAt(e + 1, 'apply') || callAt(e + 1, 'bind'))) || spacedCall(e))) {
      // not called where it stands: a sink handed on to something that calls it
      if (!isAlnum(first) || !aliasCall(i, e)) return false;
      emitLit(r, i, e);
      return true;
    }
    if (d == 40 && proseCall(i, e)) return false;
  }
  emitLit(r, i, e + 1 <= len ? e + 1 : len);
  return true;
}

// Methods that call the function they are given first: [1].find(alert), Reflect.apply(alert,...).
// Names are compared without regard to case, as the sinks are (a case-blind filter downstream).
const CALLBACK_METHODS: string[] = ['find', 'findindex', 'findlast', 'findlastindex', 'filter', 'map', 'flatmap', 'foreach',
  'some', 'every', 'reduce', 'reduceright', 'sort', 'then', 'catch', 'finally', 'apply', 'call', 'bind', 'replace', 'replaceall'];

// Where the word "throw" first stands in the text (-1: nowhere), and the first '(' or '`' (len:
// none); -2: not looked for yet in this text.
let throwAt = -2;
let callCharAt = -2;

/**
 * The listed sink at [i, e), not called where it stands, is handed to something that calls it:
 * - `(alert)(1)`, `(alert)\`1\``: in brackets that are called (with a code-like argument: codeArgAt);
 * - `[1].find(alert)`, `Reflect.apply(alert,null,[1])`: the first argument of a member call whose
 *   method calls it (CALLBACK_METHODS; more arguments after it only for apply, call and bind);
 * - `a=alert,a(1)`, `x = eval; x(location.hash)`: assigned to a name that the next statement calls
 *   (with a template or a code-like argument);
 * - `onerror=alert;throw 1`, `{onerror=eval}throw'...'`: made the window's error handler, which
 *   a `throw` with an operand anywhere in the value calls (thrownAt).
 * Prose has none of these shapes ("(alert)" alone, "level=alert;" without the call).
 */
function aliasCall(i: i32, e: i32): bool {
  const prev: u32 = i > 0 ? at(txt, i - 1) : 0;
  const next: u32 = e < len ? at(txt, e) : 0;
  if (prev == 40) {
    if (next == 41) {
      // called with a template, or with an argument that starts like code ("(prompt)(completion)"
      // and "(Confirm)(Cancel)" are prose)
      const d: u32 = e + 1 < len ? at(txt, e + 1) : 0;
      if (d == 96 || (d == 40 && codeArgAt(e + 2, false))) return true;
    }
    if (next == 41 || next == 44) {
      // ".method(" right before; after the sink another argument only for the methods that take
      // the function first and arguments after it (Reflect.apply(alert,null,[1]))
      let ms = i - 1;
      while (ms > 0 && i - 1 - ms < 16 && isIdent(at(txt, ms - 1))) ms--;
      if (ms > 0 && ms < i - 1 && at(txt, ms - 1) == 46) {
        const ml = i - 1 - ms;
        if (next == 44) return lowerWordIs(txt, ms, ml, 'apply') || lowerWordIs(txt, ms, ml, 'call') || lowerWordIs(txt, ms, ml, 'bind');
        for (let k = 0; k < CALLBACK_METHODS.length; k++) {
          const m = CALLBACK_METHODS[k];
          if (lowerWordIs(txt, ms, ml, m)) return true;
        }
      }
    }
    return false;
  }
  // an assignment: '=' (not part of ==, !=, <=, >=, =>); the cheap tests first (dense text
  // such as "x=alert;" repeated meets this at every sink)
  if (callCharAt == -2) callCharAt = find2(txt, 0, len, 40, 96);
  let k = i;
  while (k > 0 && isSpace(at(txt, k - 1))) k--;
  if (k == 0 || at(txt, k - 1) != 61) return false;
  k--;
  if (k > 0) {
    const c = at(txt, k - 1);
    if (c == 61 || c == 33 || c == 60 || c == 62) return false;
  }
  // no call in the value: only the error handler's name can be assigned
  if (callCharAt >= len) {
    let ne = k;
    while (ne > 0 && isSpace(at(txt, ne - 1))) ne--;
    if (ne < 7 || !lowerWordIs(txt, ne - 7, 7, 'onerror') || !throwIn()) return false;
  }
  // the statement ends after the sink
  let t = e;
  while (t < len && (at(txt, t) == 32 || at(txt, t) == 9)) t++;
  const end: u32 = t < len ? at(txt, t) : 0;
  if (t < len && !(end == 59 || end == 44 || end == 125 || end == 41 || end == 10 || end == 13)) return false;
  // the next statement calls a name: `name(` or `name\`` (spaces allowed)
  let cs = -1;
  let ce = -1;
  if (callCharAt < len && t < len && (end == 59 || end == 44 || end == 10 || end == 13)) {
    let j = t + 1;
    while (j < len && (at(txt, j) == 32 || at(txt, j) == 9)) j++;
    let je = j;
    while (je < len && je - j < 32 && isIdent(at(txt, je))) je++;
    if (je > j && je < len && (at(txt, je) == 96 || (at(txt, je) == 40 && codeArgAt(je + 1, false)))) { cs = j; ce = je; }
  }
  // the name assigned
  while (k > 0 && isSpace(at(txt, k - 1))) k--;
  const ne = k;
  while (k > 0 && ne - k < 32 && isIdent(at(txt, k - 1))) k--;
  const ns = k;
  if (ns == ne || (ns > 0 && isIdent(at(txt, ns - 1)))) return false;
  if (cs >= 0 && ce - cs == ne - ns) {
    let same = true;
    for (let q = 0; q < ne - ns && same; q++) same = lower(at(txt, cs + q)) == lower(at(txt, ns + q));
    if (same) return true;
  }
  // the window's error handler: called by a throw anywhere in the value
  return lowerWordIs(txt, ns, ne - ns, 'onerror') && throwIn();
}

/**
 * After "throw" at j: an operand that starts like code, a literal, a bracket, an object or a name
 * that ends the expression or continues it (`throw 1`, `throw'x'`, `throw/0/+name`, `throw e;`,
 * `throw onerror=eval,...`);
 * "THROW the switch" is prose. Reads at most 32 units of a name.
 */
function thrownAt(j: i32): bool {
  while (j < len && (at(txt, j) == 32 || at(txt, j) == 9)) j++;
  if (j >= len) return false;
  const c = at(txt, j);
  if ((c >= 48 && c <= 57) || c == 34 || c == 39 || c == 96 || c == 47 || c == 123 || c == 91 || c == 40) return true;
  if (!isIdent(c)) return false;
  let k = j;
  while (k < len && k - j < 32 && isIdent(at(txt, k))) k++;
  if (k >= len) return true;
  const d = at(txt, k);
  return d == 59 || d == 44 || d == 41 || d == 125 || d == 46 || d == 40 || d == 43 || d == 61 || d == 10 || d == 13;
}

/** The value holds the word "throw" (looked for once per text, by its 'w': rarer than 't'). */
function throwIn(): bool {
  if (throwAt == -2) {
    throwAt = -1;
    let j = find2(txt, 4, len, 119, 87);
    while (j < len) {
      const s = j - 4;
      if (lowerWordIs(txt, s, 5, 'throw') && (s == 0 || !isIdent(at(txt, s - 1))) && (j + 1 >= len || !isIdent(at(txt, j + 1))) && thrownAt(j + 1)) { throwAt = s; break; }
      j = find2(txt, j + 1, len, 119, 87);
    }
  }
  return throwAt >= 0;
}

// kind of each rule, cached from the rule table for the verifier
import { ruleKindOf } from './rules';
@inline function kindOf(r: i32): i32 {
  return ruleKindOf(r);
}

/** Verifies every literal of window hash h at i. */
function checkBucket(h: u32, i: i32, onlyKind: i32): void {
  let e = load<i32>(heads + (<usize>h << 2));
  if (e < 0) return;
  // the text's first eight units from i, folded (0xfe past the end: no param unit folds to it);
  // from the folded copy when literalFront made one of this text
  const hp = entries + <usize>e * ENTRY;
  let tw: u64 = 0;
  if (frontLen == len && i + 8 <= len) tw = load<u64>(frontFolded + <usize>i);
  else {
    // a short value (no folded copy) or the value's last units: the summary's two units first
    // (most windows of a short value stop there), then the eight
    const s4: u32 = i + 3 < len ? fold(at(txt, i + 3)) : 0xfe;
    const s5: u32 = i + 4 < len ? fold(at(txt, i + 4)) : 0xfe;
    if (((load<u32>(hp + 16) >> (s4 & 31)) & (load<u32>(hp + 20) >> (s5 & 31)) & 1) == 0) return;
    for (let j = 0; j < 8; j++) tw |= <u64>(i + j < len ? fold(at(txt, i + j)) : 0xfe) << (<u64>j << 3);
  }
  const t4 = <u32>(tw >> 24) & 0xff;
  const t5 = <u32>(tw >> 32) & 0xff;
  // no entry of the list has these units (the first entry holds the list's summary)
  if (((load<u32>(hp + 16) >> (t4 & 31)) & (load<u32>(hp + 20) >> (t5 & 31)) & 1) == 0) return;
  // a long list: the sub-list of this fourth unit
  const split = load<i32>(hp + 56);
  if (split >= 0) e = load<i32>(subHeads + (<usize>((split << 3) + <i32>(t4 & 7)) << 2));
  let tw2: u64 = 0; // the next eight units, read when an entry asks
  let tw2Read = false;
  while (e >= 0) {
    const ep = entries + <usize>e * ENTRY;
    e = load<i32>(ep + 8);
    if ((tw & load<u64>(ep + 32)) != load<u64>(ep + 24)) continue;
    const mask2 = load<u64>(ep + 48);
    if (mask2 != 0) {
      if (!tw2Read) {
        tw2Read = true;
        const i8 = i + 8;
        if (frontLen == len && i8 + 8 <= len) tw2 = load<u64>(frontFolded + <usize>i8);
        else for (let j = 0; j < 8; j++) tw2 |= <u64>(i8 + j < len ? fold(at(txt, i8 + j)) : 0xfe) << (<u64>j << 3);
      }
      if ((tw2 & mask2) != load<u64>(ep + 40)) continue;
    }
    const gap = load<u32>(ep + 12);
    if (gap != ANY) {
      // a plain space, then a unit that neither continues the separator (white space, '+', a
      // comment's '/') nor is the phrase's next unit: phraseAt would stop there
      const g = <u64>(gap & 0xff) << 3;
      const b = <u32>(tw >> (g + 8)) & 0xff;
      if ((<u32>(tw >> g) & 0xff) == 32 && b != gap >> 8 && !(b == 32 || b - 41 < 5 || b == 47)) continue;
    }
    const r = load<i32>(ep);
    const kd = kindOf(r);
    if (ruleEnabled(r) && (onlyKind < 0 || kd == onlyKind || kd == K_SQL_UNION || kd == K_SQL_CALL || kd == K_SQL_CONDITIONAL)) verify(r, load<i32>(ep + 4), i);
  }
}

// The shortest run of word characters searched inside for encoded literals (base64 of
// "<svg" is 6 units and starts after the run's first unit at the earliest).
const MIN_INNER_RUN = 7;

/**
 * Every literal rule over p[0, n); `onlyKind` >= 0 limits it to one kind (the sanitizer's SQL
 * phrases). Every kind's boundary rule makes a literal start at a word start or at a character
 * that is neither a word character nor white space, so only those positions are looked at,
 * found eight units at a time. The one exception, literals of kind "substring" (base64 of
 * markup or paths), can start anywhere inside a run of word characters: runs that look encoded
 * (an upper-case letter after the first unit, or a digit) are searched inside as well.
 */
export function scanLiterals(p: usize, n: i32, onlyKind: i32): void {
  pfI = -1;
  throwAt = -2;
  callCharAt = -2;
  punctReset();
  frontLen = -1;
  sawHexByte = false;
  sqlAnchorCount = 0;
  sqlAnchorsOverflow = false;
  sqlCallNoted = false;
  caseAnchorCount = 0;
  caseAnchorsOverflow = false;
  subqAnchorCount = 0;
  ifAnchorCount = 0;
  ifAnchorsOverflow = false;
  ldapAnchorCount = 0;
  ldapAnchorsOverflow = false;
  if (n < 3) return;
  txt = p;
  capTo = -1;
  closeFrom = -1;
  len = n;
  // short values: a plain pass costs less than setting up the vector search
  if (n < VECTOR_MIN) everyPosition(p, n, onlyKind);
  else {
    literalFront(p, n, false);
    literalVerify(onlyKind);
  }
}

/** Values this long take the vector search (literalFront); shorter ones a plain pass. */
export const VECTOR_MIN = 24;

/**
 * Searches the inside of the word run [s, e) for substring literals when it looks encoded: an
 * upper-case letter or a digit after its first unit, and a letter when every substring literal
 * holds one (a run of digits then holds none). The window hash rolls: one unit read per position.
 */
function innerRun(s: i32, e: i32): void {
  if (e - s < MIN_INNER_RUN) return;
  let encoded = false;
  let letter = false;
  for (let k = s + 1; k < e; k++) {
    const c = at(txt, k);
    if (c - 65 < 26 || c - 48 < 10) encoded = true;
    if ((c | 32) - 97 < 26) letter = true;
    if (encoded && letter) break;
  }
  if (!encoded || (substringNeedsLetter && !(letter || (at(txt, s) | 32) - 97 < 26))) return;
  const last = e - 2 < len - 2 ? e - 2 : len - 2;
  if (s + 1 >= last) return;
  let a = fold(at(txt, s + 1));
  let b = fold(at(txt, s + 2));
  for (let j = s + 1; j < last; j++) {
    const c = fold(at(txt, j + 2));
    hashHit(hash3(a, b, c), j, K_SUBSTRING);
    a = b;
    b = c;
  }
}

// The window hashes of one 64-unit block, one u16 per start position (computed eight lanes at a time).
const HASHES = memory.data(64 * 2);

// The last, partial block of a value, padded to 64 units (literalFront).
const TAIL = memory.data(64 * 2);

// The masks of one 64-unit block, a u64 each: each sixteen-unit group stores its sixteen bits
// (one u16 store at a constant offset), and the block reads the u64 once; assembling them with
// shifts and ORs cost more (measured).
const M_WORD = 0;
const M_SPACE = 8;
const M_ENC = 16;
const M_SET = 24; // P_SETS u64, one per punctuation set
const M_DU = M_SET + 8 * P_SETS; // 'u' right after a digit: UNION may start there ("x=1union select")
const MASKS = memory.data(M_DU + 8);

// What literalFront leaves for literalVerify: the folded units, and per 64-unit block the
// candidate starts whose window hash is in the table and the lanes inside word runs that look encoded.
let frontLen = -1; // the length of the text literalFront read, -1 when its tables are stale
let frontFolded: usize = 0;
let frontHits: usize = 0; // u64 per block
let frontInner: usize = 0; // u64 per block
let frontWord: usize = 0; // u64 per block: the word units (those of classes.ts, and U+00A0)
/** literalFront stopped at an escape that decodes: the value will change, nothing was kept. */
export let frontStopped = false;

/**
 * The candidate-start search over the whole value (at least VECTOR_MIN units), 64 units a
 * block: the units are narrowed to bytes (anything above 0xff becomes 0xff), classed with byte
 * compares sixteen at a time, and stored folded; the three-unit window hash of every position is
 * computed eight lanes at a time, so each candidate start costs two loads (its hash, and its byte
 * in the window table). Also sets the punctuation bitmaps and sawHexByte, and returns the
 * value's character classes (classes.ts), so the caller need not classify it again. Nothing is verified or reported
 * before literalVerify: the caller may first decode the value (and then call this again).
 */
export function literalFront(p: usize, n: i32, stopAtEscape: bool): u32 {
  punctReset();
  frontStopped = false;
  frontLen = -1; // set again when the whole value has been read
  sawHexByte = false;
  txt = p;
  capTo = -1;
  closeFrom = -1;
  len = n;
  classesInit();
  const blocks = (n + 63) >> 6;
  frontHits = arenaAlloc(<usize>blocks << 3);
  frontInner = arenaAlloc(<usize>blocks << 3);
  frontWord = arenaAlloc(<usize>blocks << 3);
  let mask: u32 = 0;
  let anyAlpha = i8x16.splat(0);
  let anyDigit = i8x16.splat(0);
  let anySpace = i8x16.splat(0);
  let anyHigh = i8x16.splat(0);
  let anyUnder = i8x16.splat(0);
  let anyDollar = i8x16.splat(0);
  const folded = arenaAlloc(<usize>n + 72);
  frontFolded = folded;
  const punct = arenaAlloc(<usize>blocks * P_SETS * 8);
  const last = n - 2; // a literal needs three units
  let prevWord: u64 = 0;
  // the loop's vector constants (splat8: made once, not at every use)
  const cap = i16x8.extend_low_i8x16_u(splat8(0xff));
  const k00 = splat8(0);
  const k09 = splat8(9);
  const k0a = splat8(10);
  const k19 = splat8(25);
  const k20 = splat8(0x20);
  const k22 = splat8(34);
  const k24 = splat8(36);
  const k25 = splat8(37);
  const k26 = splat8(38);
  const k27 = splat8(39);
  const k2a = splat8(42);
  const k2e = splat8(46);
  const k30 = splat8(48);
  const k3a = splat8(58);
  const k3b = splat8(59);
  const k3c = splat8(60);
  const k3d = splat8(61);
  const k41 = splat8(65);
  const k5f = splat8(95);
  const k60 = splat8(96);
  const k61 = splat8(97);
  const k78 = splat8(120);
  const k7c = splat8(124);
  const k7f = splat8(0x7f);
  const k75 = splat8(117);
  let hexAcc = k00; // lanes where "0x" ends
  let bPrev = k00; // the previous sixteen units (narrowed)
  let i = 0;
  while (i < n) {
    let word: u64 = 0;
    let space: u64 = 0;
    let enc: u64 = 0;
    let s0: u64 = 0, s1: u64 = 0, s2: u64 = 0, s3: u64 = 0, s4: u64 = 0, s5: u64 = 0, s6: u64 = 0; // the punctuation sets
    const lanes = n - i < 64 ? n - i : 64;
    let src = p + (<usize>i << 1);
    if (lanes < 64) {
      // the last, partial block: its units are copied into a block padded with U+0000, so that
      // the vector steps read nothing past the value; the padding lanes are masked off below
      // (plain loops: V8 runs memory.copy and memory.fill outside the wasm code, a call that
      // costs more than these few stores)
      const zero = i16x8.splat(0);
      for (let k: usize = 0; k < 128; k += 16) v128.store(TAIL + k, zero);
      let k = 0;
      for (; k + 8 <= lanes; k += 8) v128.store(TAIL + (<usize>k << 1), v128.load(src + (<usize>k << 1)));
      for (; k < lanes; k++) store<u16>(TAIL + (<usize>k << 1), load<u16>(src + (<usize>k << 1)));
      src = TAIL;
    }
    // groups without punctuation store no sets: theirs stay zero
    for (let k = 0; k < P_SETS; k++) store<u64>(MASKS + <usize>(k << 3), 0, M_SET);
    for (let g = 0; g < 64; g += 16) {
      const q = src + (<usize>g << 1);
      const b = i8x16.narrow_i16x8_u(i16x8.min_u(v128.load(q), cap), i16x8.min_u(v128.load(q, 16), cap));
      const fv = i8x16.min_u(v128.or(b, k20), k7f);
      v128.store(folded + <usize>(i + g), fv);
      const isDigit = i8x16.le_u(i8x16.sub(b, k30), k09);
      const isAlpha = i8x16.le_u(i8x16.sub(fv, k61), k19);
      const isHigh = i8x16.lt_s(b, k00);
      const isUnder = i8x16.eq(b, k5f);
      const isDollar = i8x16.eq(b, k24);
      const isWordV = v128.or(v128.or(isDigit, isAlpha), v128.or(v128.or(isUnder, isDollar), isHigh));
      // only ' ' counts as space here: other white space (a line break among it, so that the
      // command separators are in the sets below) is punctuation, where no literal starts
      const isSpaceV = i8x16.eq(b, k20);
      // the character classes: letters, digits, ' ', '_', '$' and non-ASCII by vector, the rest
      // (the punctuation lanes) by table
      anyAlpha = v128.or(anyAlpha, isAlpha);
      anyDigit = v128.or(anyDigit, isDigit);
      anySpace = v128.or(anySpace, isSpaceV);
      anyHigh = v128.or(anyHigh, isHigh);
      anyUnder = v128.or(anyUnder, isUnder);
      anyDollar = v128.or(anyDollar, isDollar);
      // this group's sixteen bits of each mask (MASKS: the block's masks, sixteen lanes a part)
      const m = MASKS + <usize>(g >> 3);
      const mw = <u32>i8x16.bitmask(isWordV);
      const ms = <u32>i8x16.bitmask(isSpaceV);
      store<u16>(m, <u16>mw, M_WORD);
      store<u16>(m, <u16>ms, M_SPACE);
      store<u16>(m, <u16>i8x16.bitmask(v128.or(isDigit, i8x16.le_u(i8x16.sub(b, k41), k19))), M_ENC);
      // the punctuation sets the detectors search for, when these units hold punctuation at all
      if ((mw | ms) != 0xffff) {
        store<u16>(m, <u16>i8x16.bitmask(v128.or(v128.or(i8x16.eq(b, k22), i8x16.eq(b, k27)), i8x16.eq(b, k60))), M_SET + 8 * P_QUOTE);
        store<u16>(m, <u16>i8x16.bitmask(v128.or(v128.or(i8x16.eq(b, k3b), i8x16.eq(b, k3d)), i8x16.eq(b, k2a))), M_SET + 8 * P_SQL);
        store<u16>(m, <u16>i8x16.bitmask(i8x16.eq(b, k3a)), M_SET + 8 * P_COLON);
        store<u16>(m, <u16>i8x16.bitmask(i8x16.eq(b, k2e)), M_SET + 8 * P_DOT);
        store<u16>(m, <u16>i8x16.bitmask(i8x16.eq(b, k3c)), M_SET + 8 * P_LT);
        store<u16>(m, <u16>i8x16.bitmask(v128.or(v128.or(i8x16.eq(b, k3b), i8x16.eq(b, k26)),
          v128.or(i8x16.eq(b, k7c), i8x16.eq(b, k0a)))), M_SET + 8 * P_CMD);
        store<u16>(m, <u16>i8x16.bitmask(v128.or(i8x16.eq(b, k25), i8x16.eq(b, k26))), M_SET + 8 * P_DEC);
      }
      // each lane's previous unit (the previous step's last lane first): "0x" (hex-literal bytes
      // for the path view), and 'u' after a digit, where UNION starts inside a word run
      // ("x=1union select": a number ends at the letter; verify's numberBefore judges it)
      const pb8 = i8x16.shuffle(bPrev, b, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
      hexAcc = v128.or(hexAcc, v128.and(i8x16.eq(pb8, k30), i8x16.eq(fv, k78)));
      store<u16>(m, <u16>i8x16.bitmask(v128.and(i8x16.le_u(i8x16.sub(pb8, k30), k09), i8x16.eq(fv, k75))), M_DU);
      bPrev = b;
    }
    word = load<u64>(MASKS, M_WORD);
    space = load<u64>(MASKS, M_SPACE);
    enc = load<u64>(MASKS, M_ENC);
    s0 = load<u64>(MASKS, M_SET + 8 * P_QUOTE);
    s1 = load<u64>(MASKS, M_SET + 8 * P_SQL);
    s2 = load<u64>(MASKS, M_SET + 8 * P_COLON);
    s3 = load<u64>(MASKS, M_SET + 8 * P_DOT);
    s4 = load<u64>(MASKS, M_SET + 8 * P_LT);
    s5 = load<u64>(MASKS, M_SET + 8 * P_CMD);
    s6 = load<u64>(MASKS, M_SET + 8 * P_DEC);
    // the classes of the punctuation lanes, by table (one loop per block: fewer mispredicted exits)
    let other = ~(word | space) & (lanes == 64 ? <u64>-1 : (<u64>1 << <u64>lanes) - 1);
    // a block of mostly punctuation (dense input: "\n#;" repeated): a lane whose unit one of the
    // six before it holds adds no class (that one did, or one before it), so only the others
    // are read by table (not in the first block, nor the last, partial one: no units before or
    // the padded copy)
    if (i >= 64 && lanes == 64 && popcnt(other) > 24) {
      let dup: u64 = 0;
      for (let k = 0; k < 64; k += 8) {
        const q = src + (<usize>k << 1);
        const v = v128.load(q);
        const d = v128.or(v128.or(v128.or(i16x8.eq(v, v128.load(q - 2)), i16x8.eq(v, v128.load(q - 4))),
          v128.or(i16x8.eq(v, v128.load(q - 6)), i16x8.eq(v, v128.load(q - 8)))),
          v128.or(i16x8.eq(v, v128.load(q - 10)), i16x8.eq(v, v128.load(q - 12))));
        dup |= <u64>i16x8.bitmask(d) << <u64>k;
      }
      other &= ~dup;
    }
    while (other != 0) {
      mask |= load<u32>(TABLE + (<usize>load<u16>(src + (<usize>ctz(other) << 1)) << 2));
      other &= other - 1;
    }
    // the windows of this block may reach two units into the next: fold those first
    if (i + 64 < n) store<u8>(folded + <usize>(i + 64), fold(at(p, i + 64)));
    if (i + 65 < n) store<u8>(folded + <usize>(i + 65), fold(at(p, i + 65)));
    for (let k = 0; k < 64; k += 8) {
      const f0 = folded + <usize>(i + k);
      const h = v128.xor(v128.xor(i16x8.shl(v128.load8x8_u(f0), 9), i16x8.shl(v128.load8x8_u(f0, 1), 4)), v128.load8x8_u(f0, 2));
      v128.store(HASHES + (<usize>k << 1), h);
    }
    const full: u64 = lanes == 64 ? <u64>-1 : (<u64>1 << <u64>lanes) - 1;
    const after = (word << 1) | prevWord; // lanes that follow a word unit
    // an upper-case letter or a digit inside a word run (not its first unit): the run may be
    // encoded (base64), so its inside is searched for substring literals (literalVerify)
    const blk = <usize>(i >> 6);
    store<u64>(frontInner + (blk << 3), enc & word & after & full);
    store<u64>(frontWord + (blk << 3), word & full);
    const pb = punct + blk * P_SETS * 8;
    store<u64>(pb, s0);
    store<u64>(pb, s1, 8);
    store<u64>(pb, s2, 16);
    store<u64>(pb, s3, 24);
    store<u64>(pb, s4, 32);
    store<u64>(pb, s5, 40);
    store<u64>(pb, s6, 48);
    // the caller decodes a value that holds an escape, and then reads the result again: what
    // this pass would find here is not needed
    if (stopAtEscape && s6 != 0 && decodableIn(p, n, i, s6)) {
      frontStopped = true;
      return mask;
    }
    let starts = ((word & ~after) | (~word & ~space) | load<u64>(MASKS, M_DU)) & full;
    prevWord = (word >> 63) & 1;
    const base = i;
    i += lanes;
    // windows need three units: no start at or after `last`
    if (last - base < 64) starts &= last <= base ? 0 : (<u64>1 << <u64>(last - base)) - 1;
    // the table's byte for every start (no branch per start): the few hits are verified later
    let hits: u64 = 0;
    let m = starts;
    const table = windowTable; // (a global is read from memory at every use)
    while (m != 0) {
      const l = ctz(m);
      m &= m - 1;
      hits |= <u64>load<u8>(table + <usize>load<u16>(HASHES + (<usize>l << 1))) << l;
    }
    store<u64>(frontHits + (blk << 3), hits);
  }
  sawHexByte = v128.any_true(hexAcc);
  punctSet(punct, p, n);
  frontLen = n;
  if (v128.any_true(anyAlpha)) mask |= C_ALPHA;
  if (v128.any_true(anyDigit)) mask |= C_DIGIT;
  if (v128.any_true(anySpace)) mask |= C_SPACE;
  if (v128.any_true(anyHigh)) mask |= C_NONASCII;
  if (v128.any_true(anyUnder)) mask |= C_UNDERSCORE;
  if (v128.any_true(anyDollar)) mask |= C_DOLLAR;
  return mask;
}

/**
 * Verifies the candidates literalFront found (it must have read the current text last): the
 * inside of encoded-looking word runs, then the hits of each block, in text order.
 */
export function literalVerify(onlyKind: i32): void {
  pfI = -1;
  throwAt = -2;
  callCharAt = -2;
  sqlAnchorCount = 0;
  sqlAnchorsOverflow = false;
  sqlCallNoted = false;
  caseAnchorCount = 0;
  caseAnchorsOverflow = false;
  subqAnchorCount = 0;
  ifAnchorCount = 0;
  ifAnchorsOverflow = false;
  ldapAnchorCount = 0;
  ldapAnchorsOverflow = false;
  const n = frontLen;
  if (n < 0 || n != len) return;
  const p = txt;
  const folded = frontFolded;
  let innerDoneTo = -1;
  const blocks = (n + 63) >> 6;
  for (let blk = 0; blk < blocks; blk++) {
    const base = blk << 6;
    let inner = load<u64>(frontInner + (<usize>blk << 3));
    while (inner != 0) {
      const x = base + <i32>ctz(inner);
      inner &= inner - 1;
      if (x < innerDoneTo) continue;
      // the run's length from the blocks' word bits (which also count U+00A0, so never shorter
      // than the run below): most are numbers and short words, under MIN_INNER_RUN
      if (!wordRunAtLeast(blk, x & 63, blocks, MIN_INNER_RUN)) continue;
      let rs = x;
      while (rs > 0 && (cls(at(p, rs - 1)) & 2) != 0) rs--;
      let re = x;
      while (re < n && (cls(at(p, re)) & 2) != 0) re++;
      innerRun(rs, re);
      innerDoneTo = re;
    }
    let hits = load<u64>(frontHits + (<usize>blk << 3));
    while (hits != 0) {
      const j = base + <i32>ctz(hits);
      hits &= hits - 1;
      const f = folded + <usize>j;
      checkBucket(hash3(load<u8>(f), load<u8>(f, 1), load<u8>(f, 2)), j, onlyKind);
    }
  }
}

/**
 * The word run around unit `off` of block `blk` (a word unit) holds at least `min` units (at most
 * 64), by the word bits literalFront stored: this block's and its neighbours'.
 */
function wordRunAtLeast(blk: i32, off: i32, blocks: i32, min: i32): bool {
  const w = load<u64>(frontWord + (<usize>blk << 3));
  // word units from off on, and before off, inside this block
  let fwd = <i32>ctz(~(w >> <u64>off));
  if (fwd >= 64 - off) {
    fwd = 64 - off;
    if (blk + 1 < blocks) fwd += <i32>ctz(~load<u64>(frontWord + (<usize>(blk + 1) << 3)));
  }
  let back = off == 0 ? 0 : <i32>clz(~(w << <u64>(64 - off)));
  if (back >= off) {
    back = off;
    if (blk > 0) back += <i32>clz(~load<u64>(frontWord + (<usize>(blk - 1) << 3)));
  }
  return fwd + back >= min;
}

/** The window at i has hash h: verified when the table holds h. */
@inline function hashHit(h: u32, i: i32, onlyKind: i32): void {
  if (load<u8>(windowTable + h) != 0) checkBucket(h, i, onlyKind);
}

function everyPosition(p: usize, n: i32, onlyKind: i32): void {
  sqlAnchorCount = 0;
  sqlAnchorsOverflow = false;
  sqlCallNoted = false;
  caseAnchorCount = 0;
  caseAnchorsOverflow = false;
  subqAnchorCount = 0;
  ifAnchorCount = 0;
  ifAnchorsOverflow = false;
  ldapAnchorCount = 0;
  ldapAnchorsOverflow = false;
  // eight window hashes at a time (units folded in 16-bit lanes: c < 128 ? c | 32 : 127)
  const x20 = i16x8.splat(0x20);
  const x7f = i16x8.splat(0x7f);
  let hexV = i16x8.splat(0);
  let i = 0;
  for (; i + 10 <= n; i += 8) {
    const q = p + (<usize>i << 1);
    const f0 = i16x8.min_u(v128.or(v128.load(q), x20), x7f);
    const f1 = i16x8.min_u(v128.or(v128.load(q, 2), x20), x7f);
    const f2 = i16x8.min_u(v128.or(v128.load(q, 4), x20), x7f);
    hexV = v128.or(hexV, v128.and(i16x8.eq(f0, i16x8.splat(48)), i16x8.eq(f1, i16x8.splat(120))));
    // lanes read by constant index: a load right after a vector store of the same bytes would
    // wait for the store (measured: most of this function's time)
    const h = v128.xor(v128.xor(i16x8.shl(f0, 9), i16x8.shl(f1, 4)), f2);
    hashHit(i16x8.extract_lane_u(h, 0), i, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 1), i + 1, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 2), i + 2, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 3), i + 3, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 4), i + 4, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 5), i + 5, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 6), i + 6, onlyKind);
    hashHit(i16x8.extract_lane_u(h, 7), i + 7, onlyKind);
  }
  let hex = v128.any_true(hexV);
  if (i + 2 < n) {
    let a = fold(at(p, i));
    let b = fold(at(p, i + 1));
    for (; i + 2 < n; i++) {
      const c = fold(at(p, i + 2));
      hex = hex || (a == 48 && b == 120);
      hashHit(hash3(a, b, c), i, onlyKind);
      a = b;
      b = c;
    }
  }
  sawHexByte = hex;
}
