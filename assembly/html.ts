// XSS detection over an HTML tokenization of the decoded value (and, when decoding made a quote
// or '>', of the value as given and of the first decode pass's text: index.ts,
// markupBeforeDecoding): tags and their names, attributes with quoted/unquoted values, comments,
// and URL schemes with the characters browsers ignore inside them. Judges structure (which tag,
// which attribute, which scheme), never raw substrings of the whole value. Linear: every
// construct is consumed once, and the one rescan (of a construct left open at the end of input)
// happens at most once per text read (at most three texts per value).

import {
  at, lower, lowerLiteralIs, lowerWordIs, isAlpha, isAlnum, isDigit, isSpace, isHex, hexVal, isUniSpace, jsSpace, jsEscapeIn, escVal, escLen, find1, find4, findP,
  countOf, punctValid, punctWord, splat8, P_LT, P_QUOTE, P_COLON, P_SQL,
} from './text';
import {
  K_HTML_TAG, K_HTML_EVENT_ATTR, K_HTML_ATTR_NAME, K_URL_SCHEME, K_DATA_URL, K_CSS_EXPR,
  K_ATTR_BREAKOUT, K_JS_BREAKOUT, firstRule, nextRule, ruleEnabled, paramCount,
  paramPtr, paramLen, ruleWithWord, kindActive, mayStartWith, kindFirstMask, kindLenMask, kindWordFilter, filterMayHave, enabledRule,
} from './rules';
import { emit, fired } from './findings';
import { arenaMark, arenaAlloc, arenaRelease } from './mem';
import { stripMode, addSpan } from './spans';
import { C_LT, C_COLON, C_SQ, C_DQ, C_BQ, C_EQ, C_LP, C_SLASH, C_STAR, C_BSLASH, C_NUL, C_NONASCII, plusIsSpaceIn } from './classes';

// Scratch for a URL scheme with ignored characters removed (at most 32 units).
const schemeBuf = memory.data(64);
let schemeLen = 0;
let schemeEnd = 0; // index just after the ':'

// Which rule (if any) a tag name hit, and whether it was a script element.
const T_NONE = 0;
const T_SCRIPT = 1;
const T_STYLE = 2;

let txt: usize = 0;
let len = 0;
let xssMask: u32 = 0; // the classes of the text scanXss reads
let plusSpace = false; // the value was form-encoded: '+' is a space

/** White space between HTML tokens ('+' too in a form-encoded value). */
@inline function sp(c: u32): bool {
  return isSpace(c) || (c == 43 && plusSpace);
}

// The tag loops' units by table, one read per unit: white space (TC_SP; '+' also, TC_PLUS, in a
// form-encoded value: spBits holds both then), '/', '>', '=', '<'. Non-ASCII is none of them.
const TC_SP: u32 = 1;
const TC_PLUS: u32 = 2;
const TC_SLASH: u32 = 4;
const TC_GT: u32 = 8;
const TC_EQ: u32 = 16;
const TC_LT: u32 = 32;
const TAG_CLS = memory.data(128);
let spBits: u32 = TC_SP; // what sp() accepts, in TC_ bits

/** Fills the tag loops' table (init). */
export function initHtmlTables(): void {
  for (let c: u32 = 0; c < 128; c++) {
    let m: u32 = 0;
    if (isSpace(c)) m |= TC_SP;
    if (c == 43) m |= TC_PLUS;
    if (c == 47) m |= TC_SLASH;
    if (c == 62) m |= TC_GT;
    if (c == 61) m |= TC_EQ;
    if (c == 60) m |= TC_LT;
    store<u8>(TAG_CLS + c, <u8>m);
  }
}

/** The TC_ bits of unit c. */
@inline function tc(c: u32): u32 {
  return c < 128 ? <u32>load<u8>(TAG_CLS + c) : 0;
}
let closeCacheScript = -2; // cached index of the next "</script" at or after closeFromScript
let closeFromScript = 0;

// A literal JavaScript escape (\xHH, \uHHHH, \u{H...}, \0) at i: its value in escVal, its length in escLen.
@inline function jsEscapeAt(i: i32, end: i32): bool {
  return jsEscapeIn(txt, i, end, false);
}

/**
 * Reads a URL scheme starting at i. Skipped as a browser (or a JavaScript string the value
 * lands in) would: leading C0 controls, spaces and Unicode spaces; tab, CR and LF inside the
 * scheme; and literal JavaScript escapes (\x09, \u2028, \x3a, and inside the scheme \t, \n, \r)
 * of such characters or of the scheme's own letters.
 */
function readScheme(i: i32, end: i32): bool {
  // leading junk: browsers strip any amount of it (each value is read once, so this stays linear)
  while (i < end) {
    const c = at(txt, i);
    if (c <= 32 || isUniSpace(c)) { i++; continue; }
    if (c == 92 && jsEscapeAt(i, end) && (escVal <= 32 || escVal >= 0x80)) { i += escLen; continue; }
    break;
  }
  schemeLen = 0;
  while (i < end) {
    let c = at(txt, i);
    let w = 1;
    if (c == 92) {
      if (jsEscapeAt(i, end)) { c = escVal; w = escLen; }
      // "java\tscript:" in a JavaScript string: \t, \n and \r are a tab and line breaks (an
      // upper-case letter too: a filter that folds case may have made it one)
      else if (i + 1 < end && (lower(at(txt, i + 1)) == 116 || lower(at(txt, i + 1)) == 110 || lower(at(txt, i + 1)) == 114)) { c = 9; w = 2; }
    }
    if (c == 9 || c == 10 || c == 13 || (w > 1 && (c < 32 || c >= 0x80))) { i += w; continue; }
    if (c == 58) {
      schemeEnd = i + w;
      return schemeLen > 0;
    }
    if (!(isAlnum(c) || c == 43 || c == 45 || c == 46) || schemeLen >= 32) return false;
    store<u16>(schemeBuf + (<usize>schemeLen << 1), <u16>lower(c));
    schemeLen++;
    i += w;
  }
  return false;
}

/** Rule of kind K_URL_SCHEME naming the scheme just read, or -1. */
function schemeRule(): i32 {
  return ruleWithWord(K_URL_SCHEME, schemeBuf, 0, schemeLen);
}

/** Rule of kind K_DATA_URL whose mime prefix follows "data:" at schemeEnd, or -1. */
function dataRule(end: i32): i32 {
  if (schemeLen != 4 || load<u64>(schemeBuf) != 0x0061007400610064) return -1; // "data"
  let i = schemeEnd;
  while (i < end && sp(at(txt, i))) i++;
  let r = firstRule(K_DATA_URL);
  while (r >= 0) {
    if (ruleEnabled(r)) {
      const n = paramCount(r);
      for (let k = 0; k < n; k++) {
        const w = paramPtr(r, k);
        const wl = paramLen(r, k);
        if (i + wl <= end && lowerLiteralIs(txt, i, w, wl)) return r;
      }
    }
    r = nextRule(r);
  }
  return -1;
}

// The distinct pairs of first two characters (lower case) of the parameters of one CSS rule, for
// the vector search below (first characters in cssFirst, second ones in cssSecond);
// CSS_FIRST_NONE when the rule has more than 8 pairs or a parameter under two characters (then
// every unit is read).
const CSS_FIRST_NONE = 9;
const cssFirst = memory.data(8 * 2); // (slots past the count repeat the first pair)
const cssSecond = memory.data(8 * 2);
let cssFirstRule = -1;
let cssFirstCount = 0;

/** Forget the pairs noted (a new rule blob was loaded). */
export function resetCssCache(): void {
  cssFirstRule = -1;
  schemeLastReady = false;
}

// The letters a listed scheme can end with right before its ':' (bit c & 31): the last letter of
// each url-scheme param, 'a' of "data", and a-f, where a literal escape (\xHH, \uHHHH) ends. A ':'
// after any other letter ends no listed scheme ("php:", "https:", "Summary:"). Built once per rule
// blob, every url-scheme rule counted, on or off.
let schemeLastMask: u32 = 0;
let schemeLastReady = false;

function schemeLastLetters(): u32 {
  if (!schemeLastReady) {
    let m: u32 = 0x7e; // a-f
    m |= 1 << (97 & 31); // "data"
    let r = firstRule(K_URL_SCHEME);
    while (r >= 0) {
      const n = paramCount(r);
      for (let k = 0; k < n; k++) {
        const l = paramLen(r, k);
        if (l > 0) m |= <u32>1 << (<u32>load<u8>(paramPtr(r, k) + <usize>(l - 1)) & 31);
      }
      r = nextRule(r);
    }
    schemeLastMask = m;
    schemeLastReady = true;
  }
  return schemeLastMask;
}

function noteCssFirsts(r: i32): void {
  cssFirstRule = r;
  cssFirstCount = 0;
  const n = paramCount(r);
  for (let k = 0; k < n; k++) {
    if (paramLen(r, k) < 2) { cssFirstCount = CSS_FIRST_NONE; return; }
    const w = paramPtr(r, k);
    const c = <u16>load<u8>(w);
    const d = <u16>load<u8>(w, 1);
    let seen = false;
    for (let j = 0; j < cssFirstCount; j++) {
      if (load<u16>(cssFirst + (<usize>j << 1)) == c && load<u16>(cssSecond + (<usize>j << 1)) == d) seen = true;
    }
    if (seen) continue;
    if (cssFirstCount == 8) { cssFirstCount = CSS_FIRST_NONE; return; }
    store<u16>(cssFirst + (<usize>cssFirstCount << 1), c);
    store<u16>(cssSecond + (<usize>cssFirstCount << 1), d);
    cssFirstCount++;
  }
  // unused slots repeat the first pair, so the search compares all eight
  for (let j = cssFirstCount; j > 0 && j < 8; j++) {
    store<u16>(cssFirst + (<usize>j << 1), load<u16>(cssFirst));
    store<u16>(cssSecond + (<usize>j << 1), load<u16>(cssSecond));
  }
}

/**
 * A parameter of rule r starts at i and ends by e (case-insensitive; parameters are lower case),
 * with any white space CSS allows before a '(' or ':' of it ("expression (", "behavior :url(").
 */
function cssParamAt(r: i32, i: i32, e: i32): bool {
  const c = lower(at(txt, i));
  if (!mayStartWith(r, c)) return false;
  const n = paramCount(r);
  for (let k = 0; k < n; k++) {
    const w = paramPtr(r, k);
    if (<u32>load<u8>(w) != c) continue;
    const wl = paramLen(r, k);
    if (cssParamIs(i, e, w, wl)) return true;
  }
  return false;
}

/**
 * The parameter w (wl units) at i, white space allowed before its '(' or ':' ("expression (print())"):
 * the white space after one run of the parameter's letters is read for that run alone.
 */
@inline function cssParamIs(i: i32, e: i32, w: usize, wl: i32): bool {
  let k = i;
  for (let j = 0; j < wl; j++) {
    const pc = <u32>load<u8>(w + <usize>j);
    if ((pc == 40 || pc == 58) && j > 0) while (k < e && isSpace(at(txt, k))) k++;
    if (k >= e || lower(at(txt, k)) != pc) return false;
    k++;
  }
  return true;
}

/**
 * A parameter of rule r in [s, e): candidates found eight units at a time, as the units whose
 * lower-case form and the next one's are a noted pair (the last eight units one at a time). A
 * style element left open reads the rest of the value as CSS: unit by unit, every unit cost a
 * few ns.
 */
function cssFind(r: i32, s: i32, e: i32): bool {
  const k = cssFirstCount;
  if (k == 0) return false;
  // (noteCssFirsts filled the unused slots with the first pair)
  const f0 = i16x8.splat(load<u16>(cssFirst, 0));
  const f1 = i16x8.splat(load<u16>(cssFirst, 2));
  const f2 = i16x8.splat(load<u16>(cssFirst, 4));
  const f3 = i16x8.splat(load<u16>(cssFirst, 6));
  const f4 = i16x8.splat(load<u16>(cssFirst, 8));
  const f5 = i16x8.splat(load<u16>(cssFirst, 10));
  const f6 = i16x8.splat(load<u16>(cssFirst, 12));
  const f7 = i16x8.splat(load<u16>(cssFirst, 14));
  const g0 = i16x8.splat(load<u16>(cssSecond, 0));
  const g1 = i16x8.splat(load<u16>(cssSecond, 2));
  const g2 = i16x8.splat(load<u16>(cssSecond, 4));
  const g3 = i16x8.splat(load<u16>(cssSecond, 6));
  const g4 = i16x8.splat(load<u16>(cssSecond, 8));
  const g5 = i16x8.splat(load<u16>(cssSecond, 10));
  const g6 = i16x8.splat(load<u16>(cssSecond, 12));
  const g7 = i16x8.splat(load<u16>(cssSecond, 14));
  const kA = i16x8.splat(65);
  const k25 = i16x8.splat(25);
  const k20 = i16x8.splat(32);
  let i = s;
  while (i + 9 <= e) {
    const q = txt + (<usize>i << 1);
    const v = v128.load(q);
    const u = v128.load(q, 2);
    // lower() by lanes: 'A'-'Z' get 0x20
    const a = v128.or(v, v128.and(i16x8.le_u(i16x8.sub(v, kA), k25), k20));
    const b = v128.or(u, v128.and(i16x8.le_u(i16x8.sub(u, kA), k25), k20));
    let m = i16x8.bitmask(v128.or(
      v128.or(v128.or(v128.and(i16x8.eq(a, f0), i16x8.eq(b, g0)), v128.and(i16x8.eq(a, f1), i16x8.eq(b, g1))),
        v128.or(v128.and(i16x8.eq(a, f2), i16x8.eq(b, g2)), v128.and(i16x8.eq(a, f3), i16x8.eq(b, g3)))),
      v128.or(v128.or(v128.and(i16x8.eq(a, f4), i16x8.eq(b, g4)), v128.and(i16x8.eq(a, f5), i16x8.eq(b, g5))),
        v128.or(v128.and(i16x8.eq(a, f6), i16x8.eq(b, g6)), v128.and(i16x8.eq(a, f7), i16x8.eq(b, g7))))));
    while (m != 0) {
      if (cssParamAt(r, i + <i32>ctz(m), e)) return true;
      m &= m - 1;
    }
    i += 8;
  }
  for (; i < e; i++) if (cssParamAt(r, i, e)) return true;
  return false;
}

/** First enabled K_CSS_EXPR rule with a parameter occurring in [s, e) (case-insensitive). */
function cssRule(s: i32, e: i32): i32 {
  let r = firstRule(K_CSS_EXPR);
  while (r >= 0) {
    if (ruleEnabled(r)) {
      if (cssFirstRule != r) noteCssFirsts(r);
      if (cssFirstCount != CSS_FIRST_NONE) {
        if (cssFind(r, s, e)) return r;
      } else {
        for (let i = s; i < e; i++) if (cssParamAt(r, i, e)) return r;
      }
    }
    r = nextRule(r);
  }
  return -1;
}

/**
 * The CSS value [s, e) holds what cssDecodedRule undoes: '\\', a comment's "/*", NUL or U+FFFD.
 * Searched eight units at a time, so that an ordinary style value ("color:red",
 * "background:url(/a.png)") is not copied.
 */
function cssMayHide(s: i32, e: i32): bool {
  let k = find4(txt, s, e, 92, 47, 0, 0xfffd);
  while (k < e) {
    if (at(txt, k) != 47 || (k + 1 < e && at(txt, k + 1) == 42)) return true;
    k = find4(txt, k + 1, e, 92, 47, 0, 0xfffd);
  }
  return false;
}

/**
 * cssRule over the CSS value [s, e) as a CSS parser (and old IE's, for expression()) reads it:
 * comments removed ("expr/**\/ession("), escapes undone ("\\65 xpression", "exp\\ression",
 * "expression\\28", "-moz-b\\69nding"), NUL and U+FFFD dropped (IE skipped NUL: "ex&#00;pression").
 * Written to scratch memory in one pass (each unit read once); -1 when nothing changed or no rule
 * matched. (White space before '(' or ':' is cssParamAt's: "expression (", "behavior :url(".)
 */
function cssDecodedRule(s: i32, e: i32): i32 {
  if (!kindActive(K_CSS_EXPR) || !cssMayHide(s, e)) return -1;
  const mark = arenaMark();
  const out = arenaAlloc((<usize>(e - s) + 16) << 1);
  let n = 0;
  let changed = false;
  let i = s;
  while (i < e) {
    let c = at(txt, i);
    if (c == 47 && i + 1 < e && at(txt, i + 1) == 42) {
      // a comment, to its "*\/" or the end
      i += 2;
      while (i < e && !(at(txt, i) == 42 && i + 1 < e && at(txt, i + 1) == 47)) i++;
      i = i < e ? i + 2 : e;
      changed = true;
      continue;
    }
    if (c == 92) {
      changed = true;
      i++;
      if (i >= e) break;
      c = at(txt, i);
      if (isHex(c)) {
        let v: u32 = 0;
        const hs = i;
        while (i < e && i - hs < 6 && isHex(at(txt, i))) { v = (v << 4) | hexVal(at(txt, i)); i++; }
        // one white space after the digits ends the escape (CR LF counts as one)
        if (i < e && isSpace(at(txt, i))) {
          if (at(txt, i) == 13 && i + 1 < e && at(txt, i + 1) == 10) i++;
          i++;
        }
        c = v == 0 || v > 0xffff ? 0xfffd : v;
      } else {
        i++;
        if (c == 10 || c == 12 || c == 13) continue; // an escaped line break is removed
      }
    } else {
      i++;
    }
    if (c == 0 || c == 0xfffd) { changed = true; continue; }
    store<u16>(out + (<usize>n << 1), <u16>c);
    n++;
  }
  let r = -1;
  if (changed && n > 0) {
    // (cssRule reads txt: pointed at the decoded text for the search)
    const t = txt;
    txt = out;
    r = cssRule(0, n);
    txt = t;
  }
  arenaRelease(mark);
  return r;
}

function hit(r: i32, s: i32, e: i32): void {
  if (r < 0) return;
  if (stripMode) addSpan(s, e);
  else emit(r, s, e);
}

/**
 * Tag-name rule: the name equals a parameter, or starts with one followed by a character that
 * cannot continue a real name (`<script\x0c>` written out literally is still a script tag to us).
 */
// The last tag name looked up in this value and its rule: repeated tags are looked up once.
let lastTagS = -1;
let lastTagL = 0;
let lastTagRule = -1;

function tagRule(s: i32, e: i32): i32 {
  const l = e - s;
  if (lastTagS >= 0 && l == lastTagL) {
    let j = 0;
    while (j < l && at(txt, s + j) == at(txt, lastTagS + j)) j++;
    if (j == l) return lastTagRule;
  }
  const r = tagRuleLookup(s, e);
  lastTagS = s;
  lastTagL = l;
  lastTagRule = r;
  return r;
}

function tagRuleLookup(s: i32, e: i32): i32 {
  let r = ruleWithWord(K_HTML_TAG, txt, s, e - s);
  if (r >= 0) return r;
  // prefix form
  let k = s;
  while (k < e && isAlnum(at(txt, k))) k++;
  if (k < e && k > s) {
    const c = at(txt, k);
    // '-', '_', ':' and '.' continue real (custom) element names: <script-x> is not a script
    if (c != 45 && c != 95 && c != 58 && c != 46) r = ruleWithWord(K_HTML_TAG, txt, s, k - s);
  }
  return r;
}

@inline function isScriptName(s: i32, e: i32): bool {
  return e - s >= 6 && (lower(at(txt, s)) == 115) && (lower(at(txt, s + 1)) == 99) && (lower(at(txt, s + 2)) == 114) &&
    (lower(at(txt, s + 3)) == 105) && (lower(at(txt, s + 4)) == 112) && (lower(at(txt, s + 5)) == 116) &&
    (e - s == 6 || !isAlnum(at(txt, s + 6)));
}

@inline function isStyleName(s: i32, e: i32): bool {
  return e - s == 5 && (lower(at(txt, s)) == 115) && (lower(at(txt, s + 1)) == 116) && (lower(at(txt, s + 2)) == 121) &&
    (lower(at(txt, s + 3)) == 108) && (lower(at(txt, s + 4)) == 101);
}

// The last search for a '>': from gtFrom, the first '>' is at gtAt (len: none). Every <script>
// before one unclosed "</script" asks from there; a search that starts in [gtFrom, gtAt] has
// the same answer, so each unit is searched at most once.
let gtFrom: i32 = -1;
let gtAt: i32 = 0;

/** The first '>' at or after i, or len. */
function gtAfter(i: i32): i32 {
  if (gtFrom >= 0 && i >= gtFrom && i <= gtAt) return gtAt;
  const k = find1(txt, i, len, 62);
  gtFrom = i;
  gtAt = k;
  return k;
}

/** Index of the next "</script" at or after `from`, or n; cached so repeated asks stay linear. */
function nextScriptClose(from: i32): i32 {
  if (closeCacheScript != -2 && from >= closeFromScript && (closeCacheScript >= from || closeCacheScript == len)) return closeCacheScript;
  let i = from;
  while (i + 8 <= len) {
    if (at(txt, i) == 60 && at(txt, i + 1) == 47 && isScriptName(i + 2, i + 8 <= len ? i + 8 : len)) break;
    i++;
  }
  if (i + 8 > len) i = len;
  closeFromScript = from;
  closeCacheScript = i;
  return i;
}

/** Judges one attribute: name [ns, ne), value [vs, ve) (vs == -1 when absent). */
// First characters an attribute name must start with to matter without a value (event
// handlers, listed names), from the enabled rules; set per value by scanXss.
let attrFirst: u32 = 0;

/** A name no rule can start with, and no value: nothing to judge ("<a <a <a ..." is all such names). */
@inline function attrMatters(ns: i32, vs: i32): bool {
  return vs >= 0 || (attrFirst & (1 << (lower(at(txt, ns)) & 31))) != 0;
}

let attrNameFilter: usize = 0; // kindWordFilter(K_HTML_ATTR_NAME), set by scanXss

/** The attribute name at ns (nl units) is x-on:..., v-on:... or hx-on followed by ':' or '-' (data-hx-on too). */
function frameworkEvent(ns: i32, nl: i32): bool {
  // (htmx also reads its attributes with a "data-" prefix: data-hx-on:click)
  if (nl > 5 && lowerLiteralAt(ns, 'data-')) { ns += 5; nl -= 5; }
  if (nl < 6) return false;
  const a = lower(at(txt, ns));
  if ((a == 120 || a == 118) && at(txt, ns + 1) == 45 && lower(at(txt, ns + 2)) == 111 && lower(at(txt, ns + 3)) == 110 && at(txt, ns + 4) == 58) return true;
  if (a == 104 && lower(at(txt, ns + 1)) == 120 && at(txt, ns + 2) == 45 && lower(at(txt, ns + 3)) == 111 && lower(at(txt, ns + 4)) == 110) {
    const c = at(txt, ns + 5);
    return c == 58 || c == 45;
  }
  return false;
}

/**
 * htmx runs two attribute values as code: a filter in brackets in hx-trigger ("load[import(...)]",
 * a call inside the brackets) and an hx-vals or hx-headers value that starts with "js:" or
 * "javascript:".
 */
function htmxScript(ns: i32, nl: i32, vs: i32, ve: i32): bool {
  if (nl > 5 && lowerLiteralAt(ns, 'data-')) { ns += 5; nl -= 5; }
  if (nl < 7 || lower(at(txt, ns)) != 104 || lower(at(txt, ns + 1)) != 120 || at(txt, ns + 2) != 45) return false;
  if (nl == 10 && lowerLiteralAt(ns + 3, 'trigger')) {
    // a '[' and, inside the brackets, a '(' (the filter calls something)
    let open = false;
    for (let k = vs; k < ve; k++) {
      const c = at(txt, k);
      if (c == 91) open = true;
      else if (c == 93) open = false;
      else if (c == 40 && open) return true;
    }
    return false;
  }
  if ((nl == 7 && lowerLiteralAt(ns + 3, 'vals')) || (nl == 10 && lowerLiteralAt(ns + 3, 'headers'))) {
    let k = vs;
    while (k < ve && isSpace(at(txt, k))) k++;
    return (k + 3 <= ve && lowerLiteralAt(k, 'js:')) || (k + 11 <= ve && lowerLiteralAt(k, 'javascript:'));
  }
  return false;
}

// What a directive's name starts with (bit c & 31): ':', 'd' (data-), 'x', 'v', 'n' (ng), 'h' (hx-).
const DIRECTIVE_FIRST: u32 = (1 << (58 & 31)) | (1 << (100 & 31)) | (1 << (120 & 31)) | (1 << (118 & 31)) | (1 << (110 & 31)) | (1 << (104 & 31));

/**
 * A script framework's directive whose value runs as code on a page that loads the framework:
 * AngularJS's ng- directives (also written data-ng-, x-ng-, ng:, ng_), Alpine's x- and Vue's v-
 * directives and their ':' shorthand (":class"), and Knockout's data-bind, when the value calls
 * something ("$event.view.print()", "{a:print()}", "$on.constructor(name)()"); ng-bind-html
 * (markup from an expression) whatever its value; Knockout's html binding ("html: name"); and an
 * htmx request attribute (hx-get, hx-post, ...) to another origin, whose answer htmx puts into
 * the page, scripts included. "x-data=\"{open:false}\"" and "ng-show=\"done\"" call nothing.
 */
function directiveRunsCode(ns: i32, nl: i32, vs: i32, ve: i32): bool {
  const a = lower(at(txt, ns));
  // (the ':' shorthand with a quoted value only: "<a :b=c(5)" is as likely text split at a ':')
  if (a == 58) return nl > 1 && isAlpha(at(txt, ns + 1)) && vs > 0 && (at(txt, vs - 1) == 34 || at(txt, vs - 1) == 39) && valueCalls(vs, ve);
  let s = ns;
  let l = nl;
  if (a == 100) {
    // data-: data-ng-..., data-bind, data-hx-...
    if (l < 7 || !lowerLiteralAt(s, 'data-')) return false;
    s += 5;
    l -= 5;
    if (l == 4 && lowerLiteralAt(s, 'bind')) return valueCalls(vs, ve) || knockoutHtml(vs, ve);
  } else if (a == 120 || a == 118) {
    // x- (Alpine; also x-ng-) and v- (Vue)
    if (l < 3 || at(txt, s + 1) != 45) return false;
    if (!(a == 120 && l > 4 && lower(at(txt, s + 2)) == 110 && lower(at(txt, s + 3)) == 103 && ngDelimiter(at(txt, s + 4)))) {
      return isAlpha(at(txt, s + 2)) && valueCalls(vs, ve);
    }
    s += 2;
    l -= 2;
  }
  const b = lower(at(txt, s));
  if (b == 110) {
    // ng + '-', ':' or '_' + the directive's name
    if (l < 4 || lower(at(txt, s + 1)) != 103 || !ngDelimiter(at(txt, s + 2))) return false;
    const d = s + 3;
    const dl = l - 3;
    if (dl >= 9 && lowerLiteralAt(d, 'bind') && ngDelimiter(at(txt, d + 4)) && lowerLiteralAt(d + 5, 'html') &&
      (dl == 9 || ngDelimiter(at(txt, d + 9)))) return true;
    return valueCalls(vs, ve);
  }
  if (b == 104 && l >= 6 && lower(at(txt, s + 1)) == 120 && at(txt, s + 2) == 45) {
    const m = s + 3;
    const ml = l - 3;
    if ((ml == 3 && (lowerLiteralAt(m, 'get') || lowerLiteralAt(m, 'put'))) || (ml == 4 && lowerLiteralAt(m, 'post')) ||
      (ml == 5 && lowerLiteralAt(m, 'patch')) || (ml == 6 && lowerLiteralAt(m, 'delete'))) return otherOrigin(vs, ve);
  }
  return false;
}

/** AngularJS reads '-', ':' and '_' alike between the parts of a directive's name. */
@inline function ngDelimiter(c: u32): bool {
  return c == 45 || c == 58 || c == 95;
}

/**
 * [vs, ve) calls something: a name, ')' or ']' directly followed by '(' or '`' ("print()",
 * "constructor(name)()", "view['x'](1)", "tag`1`"). One read of the value.
 */
function valueCalls(vs: i32, ve: i32): bool {
  if ((xssMask & (C_LP | C_BQ)) == 0) return false; // (no '(' or '`' in the whole text)
  for (let k = vs + 1; k < ve; k++) {
    const c = at(txt, k);
    if (c != 40 && c != 96) continue;
    const p = at(txt, k - 1);
    if (isWordUnit(p) || p == 41 || p == 93) return true;
  }
  return false;
}

/** A Knockout binding list [vs, ve) holds the html binding: "html:" at its start or after ','. */
function knockoutHtml(vs: i32, ve: i32): bool {
  let k = vs;
  while (k < ve) {
    while (k < ve && (isSpace(at(txt, k)) || at(txt, k) == 123)) k++;
    if (k + 4 <= ve && lowerLiteralAt(k, 'html')) {
      let m = k + 4;
      while (m < ve && isSpace(at(txt, m))) m++;
      if (m < ve && at(txt, m) == 58) return true;
    }
    // on to the next ',' (a binding's value may hold brackets and strings: a ',' inside one starts
    // a look that finds no "html:" there, at no more cost)
    while (k < ve && at(txt, k) != 44) k++;
    k++;
  }
  return false;
}

/** The URL [vs, ve) names another origin: "//host", "http://", "https://" (after white space). */
function otherOrigin(vs: i32, ve: i32): bool {
  let k = vs;
  while (k < ve && isSpace(at(txt, k))) k++;
  if (k + 2 <= ve && at(txt, k) == 47 && at(txt, k + 1) == 47) return true;
  if (k + 7 <= ve && lowerLiteralAt(k, 'http://')) return true;
  return k + 8 <= ve && lowerLiteralAt(k, 'https://');
}

/** txt at k holds the lower-case ASCII word w, case-insensitively (the caller checked the length). */
@inline function lowerLiteralAt(k: i32, w: string): bool {
  return lowerWordIs(txt, k, w.length, w);
}

function judgeAttr(ns: i32, ne: i32, vs: i32, ve: i32, spanEnd: i32): void {
  const nl = ne - ns;
  // event handlers: on + letters
  if (nl > 2 && lower(at(txt, ns)) == 111 && lower(at(txt, ns + 1)) == 110 && isAlpha(at(txt, ns + 2))) {
    const r = ruleWithWord(K_HTML_EVENT_ATTR, txt, ns, 2);
    if (r >= 0) { hit(r, ns, spanEnd); return; }
  }
  // script frameworks' event bindings, which run their value as code on pages that load the
  // framework: Alpine's and Vue's @click, x-on:click, v-on:click, htmx's hx-on:click and hx-on-click,
  // and htmx's script in hx-trigger, hx-vals and hx-headers (with a value; after '@' a listed event
  // or petite-vue's @vue:mounted: "<Jane @jane>", "<team @ops=yes>" name no handler)
  if (vs >= 0 && nl > 1 && ((at(txt, ns) == 64 && (listedEventAt(ns + 1, ne) || (nl > 5 && lowerLiteralAt(ns + 1, 'vue:')))) ||
    frameworkEvent(ns, nl) || htmxScript(ns, nl, vs, ve))) {
    const r = enabledRule(K_HTML_EVENT_ATTR);
    if (r >= 0) { hit(r, ns, spanEnd); return; }
  }
  const an = filterMayHave(attrNameFilter, txt, ns, nl) ? ruleWithWord(K_HTML_ATTR_NAME, txt, ns, nl) : -1;
  if (an >= 0) { hit(an, ns, spanEnd); return; }
  if (vs < 0) return;
  if (((DIRECTIVE_FIRST >> (lower(at(txt, ns)) & 31)) & 1) != 0 && directiveRunsCode(ns, nl, vs, ve)) {
    const r = enabledRule(K_HTML_ATTR_NAME);
    if (r >= 0) { hit(r, ns, spanEnd); return; }
  }
  if (readScheme(vs, ve)) {
    const r = schemeRule();
    if (r >= 0) { hit(r, ns, spanEnd); return; }
    const d = dataRule(ve);
    if (d >= 0) { hit(d, ns, spanEnd); return; }
  }
  // style attribute values and url-bearing CSS, as written and with comments and escapes undone
  if (nl == 5 && isStyleName(ns, ne)) {
    let r = cssRule(vs, ve);
    // (only where the text holds what the decoding undoes: '\\', NUL, non-ASCII, or '/' and '*')
    if (r < 0 && ((xssMask & (C_BSLASH | C_NUL | C_NONASCII)) != 0 || (xssMask & (C_SLASH | C_STAR)) == (C_SLASH | C_STAR))) {
      r = cssDecodedRule(vs, ve);
    }
    if (r >= 0) { hit(r, ns, spanEnd); return; }
  }
}

/**
 * Parses the start tag whose name begins at ns (just after '<'); returns the index after it.
 * `swallowed` is set when a quoted value ran to the end of input.
 */
let swallowedAt = -1;
let rescanned = false;
let cssDoneTo = -1; // style content up to here has been searched for CSS rules
function startTag(lt: i32, ns: i32): i32 {
  let i = ns;
  const nameStop = spBits | TC_SLASH | TC_GT;
  const attrStop = nameStop | TC_EQ;
  while (i < len) {
    if ((tc(at(txt, i)) & nameStop) != 0) break;
    i++;
  }
  const ne = i;
  let tagKind = T_NONE;
  const tr = tagRule(ns, ne);
  if (isScriptName(ns, ne)) tagKind = T_SCRIPT;
  else if (isStyleName(ns, ne)) tagKind = T_STYLE;
  // attributes
  while (i < len) {
    const t = tc(at(txt, i));
    if ((t & (spBits | TC_SLASH)) != 0) { i++; continue; }
    if ((t & TC_GT) != 0) { i++; break; }
    const as = i;
    i++; // first char of a name may be '='
    while (i < len) {
      if ((tc(at(txt, i)) & attrStop) != 0) break;
      i++;
    }
    const ae = i;
    let j = i;
    while (j < len && (tc(at(txt, j)) & spBits) != 0) j++;
    let vs = -1;
    let ve = -1;
    if (j < len && at(txt, j) == 61) {
      j++;
      while (j < len && sp(at(txt, j))) j++;
      if (j < len && (at(txt, j) == 34 || at(txt, j) == 39)) {
        const q = at(txt, j);
        vs = j + 1;
        let k = vs;
        while (k < len && at(txt, k) != q) k++;
        ve = k;
        if (k >= len) { if (!rescanned && swallowedAt < 0) swallowedAt = vs; i = len; }
        else i = k + 1;
      } else {
        vs = j;
        let k = j;
        while (k < len && !sp(at(txt, k)) && at(txt, k) != 62) k++;
        ve = k;
        i = k;
      }
    } else {
      i = ae;
    }
    if (attrMatters(as, vs)) judgeAttr(as, ae, vs, ve, i);
  }
  const te = i;
  if (tr >= 0) {
    if (tagKind == T_SCRIPT && stripMode) {
      // the whole element, content included, up to and including </script ...>
      let close = nextScriptClose(te);
      if (close < len) {
        const k = gtAfter(close + 8);
        close = k < len ? k + 1 : len;
      }
      hit(tr, lt, close);
    } else {
      hit(tr, lt, te);
    }
  }
  if (tagKind == T_STYLE && te > cssDoneTo) {
    // the rest of the value is style content; read once, however many <style> tags follow
    const from = te;
    cssDoneTo = len;
    const r = cssRule(from, len);
    if (r >= 0) hit(r, from, len);
  }
  return te;
}

/** End tag "</name ...>" at lt; returns the index after it. Script end tags are breakouts. */
function endTag(lt: i32, ns: i32): i32 {
  let i = ns;
  while (i < len && !sp(at(txt, i)) && at(txt, i) != 47 && at(txt, i) != 62) i++;
  const ne = i;
  while (i < len && at(txt, i) != 62) i++;
  const te = i < len ? i + 1 : len;
  if (isScriptName(ns, ne)) hit(tagRule(ns, ne), lt, te);
  return te;
}

let visitedLt = 0; // '<' the tag pass looked at (the others were inside values, comments, names)

function scanTags(from: i32): void {
  let i = from;
  while (i < len) {
    if (at(txt, i) != 60) i = findP(txt, i, len, P_LT, 60, 60, 60, 60); // next '<'
    if (i < len) visitedLt++;
    if (i + 1 >= len) return;
    const c = at(txt, i + 1);
    if (isAlpha(c)) {
      i = startTag(i, i + 1);
    } else if (c == 47 && i + 2 < len && isAlpha(at(txt, i + 2))) {
      i = endTag(i, i + 2);
    } else if (c == 33) {
      // <!-- comment --> or <!...> ; an unclosed one is rescanned as text
      let k = i + 2;
      if (k + 1 < len && at(txt, k) == 45 && at(txt, k + 1) == 45) {
        k += 2;
        // browsers close "<!-->" and "<!--->" at once, and accept "--!>" as an end
        if (k < len && at(txt, k) == 62) { i = k + 1; continue; }
        if (k + 1 < len && at(txt, k) == 45 && at(txt, k + 1) == 62) { i = k + 2; continue; }
        // the end is the first '>' after "--" or "--!" that starts at or after k: found by its
        // '>', eight units at a time (a comment holds few of them)
        const k0 = k;
        let m = k;
        while (true) {
          m = find1(txt, m, len, 62);
          if (m >= len) break;
          if (m - 2 >= k0 && at(txt, m - 1) == 45 && at(txt, m - 2) == 45) break;
          if (m - 3 >= k0 && at(txt, m - 1) == 33 && at(txt, m - 2) == 45 && at(txt, m - 3) == 45) break;
          m++;
        }
        if (m >= len) { if (!rescanned && swallowedAt < 0) swallowedAt = i + 4; return; }
        i = m + 1;
      } else {
        k = find1(txt, k, len, 62);
        if (k >= len) { if (!rescanned && swallowedAt < 0) swallowedAt = i + 2; return; }
        i = k + 1;
      }
    } else {
      i++;
    }
  }
}

/**
 * Quote-agnostic second look: a tag may start at every '<' followed by a letter, even inside
 * another tag's quoted value, a comment or a tag name, because the context the value lands in
 * is unknown (`<img alt="<script>...`, `<scr<script>ipt>`). Here a tag ends at '>' or at the
 * next '<', and quoted values end at their quote or at '<' / '>', so each character is read at
 * most once by this pass.
 */
function scanNested(): void {
  let i = 0;
  while (i < len) {
    if (at(txt, i) != 60) i = findP(txt, i, len, P_LT, 60, 60, 60, 60);
    if (i + 1 >= len) return;
    let ns = i + 1;
    const end = at(txt, ns) == 47;
    if (end) ns++;
    if (ns >= len || !isAlpha(at(txt, ns))) { i++; continue; }
    const nameStop = spBits | TC_SLASH | TC_GT | TC_LT;
    let k = ns;
    while (k < len) {
      if ((tc(at(txt, k)) & nameStop) != 0) break;
      k++;
    }
    const ne = k;
    const tr = tagRule(ns, ne);
    if (tr >= 0 && (!end || isScriptName(ns, ne))) hit(tr, i, ne);
    if (end) { i = ne; continue; }
    while (k < len) {
      const t = tc(at(txt, k));
      if ((t & (TC_GT | TC_LT)) != 0) break;
      if ((t & (spBits | TC_SLASH)) != 0) { k++; continue; }
      const as = k;
      k++;
      while (k < len) {
        if ((tc(at(txt, k)) & (nameStop | TC_EQ)) != 0) break;
        k++;
      }
      const ae = k;
      let vs = -1;
      let ve = -1;
      if (k < len && at(txt, k) == 61) {
        k++;
        if (k < len && (at(txt, k) == 34 || at(txt, k) == 39 || at(txt, k) == 96)) {
          const q = at(txt, k);
          vs = k + 1;
          k = vs;
          while (k < len && at(txt, k) != q && at(txt, k) != 60 && at(txt, k) != 62) k++;
          ve = k;
          if (k < len && at(txt, k) == q) k++;
        } else {
          vs = k;
          while (k < len && !sp(at(txt, k)) && at(txt, k) != 62 && at(txt, k) != 60) k++;
          ve = k;
        }
      }
      if (attrMatters(as, vs)) judgeAttr(as, ae, vs, ve, k);
    }
    i = k;
  }
}

// A gap from its first comment on is read for at most this many units: a comment holds quotes,
// so in a chain of comments ('/*'+a/**/ /*'+a/**/ ...') every quote would read the rest of the
// chain again. A longer gap is taken as hiding a call (gapCapped).
const GAP_MAX = 512;
let gapCapped = false;

/** Past white space and /* comments *\/ from i (JavaScript allows both before a call's '('). */
function skipGap(i: i32): i32 {
  gapCapped = false;
  let budget = -1; // units left to read, once a comment has started
  while (i < len) {
    const c = at(txt, i);
    if (sp(c) || jsSpace(c)) {
      i++;
      if (budget >= 0 && --budget < 0) { gapCapped = true; return i; }
      continue;
    }
    if (c == 47 && i + 1 < len && at(txt, i + 1) == 42) {
      if (budget < 0) budget = GAP_MAX;
      // every unit from the first '/*' on counts, the delimiters too (a chain of empty comments)
      i += 2;
      budget -= 2;
      while (i + 1 < len && !(at(txt, i) == 42 && at(txt, i + 1) == 47)) {
        i++;
        if (--budget < 0) { gapCapped = true; return i; }
      }
      i += 2;
      budget -= 2;
      if (budget < 0 && i < len) { gapCapped = true; return i; }
      continue;
    }
    break;
  }
  return i;
}


// ; , + - * / | & ) } ] ? : ^ % < > = as bits of two words (character codes below 64, and 64-127)
const JS_OP_LO: u64 = (<u64>1 << 59) | (<u64>1 << 44) | (<u64>1 << 43) | (<u64>1 << 45) | (<u64>1 << 42) | (<u64>1 << 47) |
  (<u64>1 << 38) | (<u64>1 << 41) | (<u64>1 << 63) | (<u64>1 << 58) | (<u64>1 << 37) | (<u64>1 << 60) | (<u64>1 << 62) | (<u64>1 << 61);
const JS_OP_HI: u64 = (<u64>1 << (124 - 64)) | (<u64>1 << (125 - 64)) | (<u64>1 << (93 - 64)) | (<u64>1 << (94 - 64));

/** An operator that can follow a quote that closed a JavaScript string. */
@inline function jsOperator(c: u32): bool {
  return c < 64 ? ((JS_OP_LO >> <u64>c) & 1) != 0 : c < 128 && ((JS_OP_HI >> <u64>(c - 64)) & 1) != 0;
}

/** Quote, optional spaces or '/', then on<letters> and '=': breaking out of an attribute value. */
function scanBreakouts(): void {
  const rAttr = kindActive(K_ATTR_BREAKOUT) ? firstRule(K_ATTR_BREAKOUT) : -1;
  const rJs = kindActive(K_JS_BREAKOUT);
  if (rAttr < 0 && !rJs) return;
  sinkFrom = len;
  sinkPos = len;
  denseUntil = 0;
  if (punctValid(txt, len)) {
    // every quote, in order, from the literal pass's bitmap: one load per 64 units; each look
    // is told where the next quote is (nextQuote)
    const blocks = (len + 63) >> 6;
    let i = -1;
    for (let blk = 0; blk < blocks; blk++) {
      let w = punctWord(blk, P_QUOTE);
      while (w != 0) {
        const q = (blk << 6) + <i32>ctz(w);
        if (i >= 0) breakoutAt(i, q, rAttr, rJs);
        i = q;
        w &= w - 1;
      }
    }
    if (i >= 0) breakoutAt(i, len, rAttr, rJs);
    return;
  }
  let i = find4(txt, 0, len, 34, 39, 96, 96);
  while (i < len) {
    const q = find4(txt, i + 1, len, 34, 39, 96, 96);
    breakoutAt(i, q, rAttr, rJs);
    i = q;
  }
}

/** A breakout that starts at the quote at i; the next quote is at nq (len: none). */
@inline function breakoutAt(i: i32, nq: i32, rAttr: i32, rJs: bool): void {
  // a quote right before another quote starts nothing (neither "on..." nor an operator follows)
  const q = i + 1 < len ? at(txt, i + 1) : 0;
  if (q == 34 || q == 39 || q == 96) return;
  // a letter or digit right after the quote: no white space, '/' or operator, so only "on..."
  // can follow (the common case in text: "don't", "it's", {"a":...)
  if (isAlnum(q) && (q | 32) != 111) return;
  // neither white space, '/' nor "on" after the quote: only an operator directly, then one of
  // what the operator run, an identifier (or its escape), an array, a gap or another operator
  // starts with, or an object after an operator other than ':' and ',' ("');import(...)",
  // "'});fetch(...)", "'),x", "'-{x:alert}.x(1)"; JSON's '{"a":{' and '["a",{' end here)
  // (JavaScript's white space beyond ASCII, U+1680, and its line terminators U+2028 and U+2029,
  // which end the statement as ';' would, go on to the JavaScript look)
  if (!(sp(q) || q == 47 || (q | 32) == 111)) {
    if (jsOperator(q)) {
      const c = i + 2 < len ? at(txt, i + 2) : 0;
      if (!(isAlnum(c) || c == 95 || c == 36 || c == q || sp(c) || c == 40 || c == 126 || c == 33 || c == 47 || c == 91 || c == 92 || jsOperator(c) ||
        (c == 123 && q != 58 && q != 44) || (c >= 0x1680 && jsSpace(c)))) return;
    } else if (!(q >= 0x1680 && jsSpace(q))) return;
  }
  // "on..." after white space or '/', or at once
  if (rAttr >= 0 && (sp(q) || q == 47 || (q | 32) == 111)) attrBreakoutAt(i);
  if (rJs) {
    // (the answer kept from the last search, read here: most quotes need no call; where the last
    // search found a candidate at once, the next 256 units go without searching: the look itself
    // costs what the search would, "'+top/*'+top/*...")
    const x = i + 1;
    if (x >= sinkFrom && x <= sinkPos) {
      if (sinkPos < nq) breakoutJs(i);
    } else if (x < denseUntil) {
      breakoutJs(i);
    } else {
      sinkFrom = x;
      sinkPos = sinkCandidate(x);
      if (sinkPos - x < 16) denseUntil = x + 256;
      if (sinkPos < nq) breakoutJs(i);
    }
  }
}

// The js-breakout look after a quote ends at the next quote at the latest, and reports only at a
// word that may name a sink (the kind's word filter) or at an escape ('\'): sinkCandidate finds
// the first such unit at or after a position, reading each unit of the value at most once over
// all the quotes of one scan (they come in order), so that a quote with no candidate before the
// next quote costs a comparison ("'+a/*'+a/*...": every look was a walk of its own).
// [sinkFrom, sinkPos) holds no candidate; sinkPos is one (or len).
let sinkFrom = 0;
let sinkPos = 0;
let denseUntil = 0; // before this unit, quotes skip the search (its last answer was near)

/** The first unit at or after x (which is no word unit's second or later unit) that starts a word the filter passes, or a '\\'. */
function sinkCandidate(x: i32): i32 {
  let k = x;
  // sixteen units a step: the word units and the '\\' of the step as bits, then each word that
  // starts in it (one that runs past the step is read on unit by unit); k is never inside a word
  const cap = i16x8.extend_low_i8x16_u(splat8(0xff));
  const k24 = splat8(36);
  const k30 = splat8(48);
  const k09 = splat8(9);
  const k20 = splat8(32);
  const k61 = splat8(97);
  const k19 = splat8(25);
  const k5c = splat8(92);
  const k5f = splat8(95);
  while (k + 16 <= len) {
    const q = txt + (<usize>k << 1);
    const v = i8x16.narrow_i16x8_u(i16x8.min_u(v128.load(q), cap), i16x8.min_u(v128.load(q, 16), cap));
    const w = <u32>i8x16.bitmask(v128.or(v128.or(i8x16.le_u(i8x16.sub(v128.or(v, k20), k61), k19), i8x16.le_u(i8x16.sub(v, k30), k09)),
      v128.or(i8x16.eq(v, k24), i8x16.eq(v, k5f))));
    const bs = <u32>i8x16.bitmask(i8x16.eq(v, k5c));
    const stop = bs != 0 ? <i32>ctz(bs) : 16; // the first '\\', a candidate itself
    let starts = w & ~(w << 1);
    let past = -1; // where a word that went on past the step ended
    while (starts != 0) {
      const t = <i32>ctz(starts);
      if (t > stop) break;
      starts &= starts - 1;
      const l = <i32>ctz(((~w) | 0x10000) >> <u32>t); // the word's units in this step
      if (t + l >= 16) {
        // the word goes on past the step
        let e = k + 16;
        while (e < len && isWordUnit(at(txt, e))) e++;
        if ((e < len && at(txt, e) == 92) || filterMayHave(jsBreakoutFilter, txt, k + t, e - (k + t))) return k + t;
        past = e;
        break;
      }
      if (t + l == stop || filterMayHave(jsBreakoutFilter, txt, k + t, l)) return k + t;
    }
    if (past >= 0) { k = past; continue; }
    if (stop < 16) return k + stop;
    k += 16;
  }
  // the last units, one at a time
  while (k < len) {
    const c = at(txt, k);
    if (c == 92) break;
    if (!isWordUnit(c)) { k++; continue; }
    let e = k + 1;
    while (e < len && isWordUnit(at(txt, e))) e++;
    if ((e < len && at(txt, e) == 92) || filterMayHave(jsBreakoutFilter, txt, k, e - k)) break;
    k = e;
  }
  return k;
}

let jsBreakoutFilter: usize = 0; // kindWordFilter(K_JS_BREAKOUT), set by scanXss
let attrBreakoutFilter: usize = 0; // kindWordFilter(K_ATTR_BREAKOUT), set by scanXss

/** An event-handler attribute after the quote at i: '" onmouseover=', "'/onload=". */
function attrBreakoutAt(i: i32): void {
  let j = i + 1;
  while (j < len && (sp(at(txt, j)) || at(txt, j) == 47)) j++;
  if (!(j + 3 < len && lower(at(txt, j)) == 111 && lower(at(txt, j + 1)) == 110 && isAlpha(at(txt, j + 2)))) return;
  let k = j + 2;
  while (k < len && isAlpha(at(txt, k))) k++;
  const ne = k;
  while (k < len && sp(at(txt, k))) k++;
  if (k >= len || at(txt, k) != 61) return;
  // the whole name must be a listed event handler: '"ok" online=true' names no event
  if (filterMayHave(attrBreakoutFilter, txt, j, ne - j)) {
    const r = ruleWithWord(K_ATTR_BREAKOUT, txt, j, ne - j);
    if (r >= 0) { hit(r, i, k + 1); return; }
  }
  // an event the list lacks ('" onmove="print()', '" onpointerlockchange=...': browsers add
  // events, old ones linger): "on" and three letters or more, and a value that is a call; not a
  // word that starts with "on" ('"hi" online=true()')
  if (ne - j >= 5 && !onWord(j, ne - j)) {
    const e = callValueAt(k + 1);
    if (e >= 0) {
      const r = enabledRule(K_ATTR_BREAKOUT);
      if (r >= 0) hit(r, i, e + 1);
    }
  }
}

// Words that start with "on" and name no event (no event is called "line", "set", ...).
const ON_WORDS: string[] = ['online', 'onset', 'onward', 'onwards', 'ongoing', 'onion', 'onions', 'onboard', 'onsite',
  'onscreen', 'onshore', 'onstage', 'onlooker', 'onlookers', 'onerous', 'onetime', 'oneself'];

/** txt[j, j + l) is one of ON_WORDS, case-insensitively. */
function onWord(j: i32, l: i32): bool {
  for (let k = 0; k < ON_WORDS.length; k++) if (lowerWordIs(txt, j, l, ON_WORDS[k])) return true;
  return false;
}

/**
 * An attribute value from k (after its '=') that calls something: after optional white space and
 * a quote, within its first 64 units (up to that quote, or white space or '>' when unquoted), a
 * '(' or '`' right after a word unit, ')' or ']' ("print()", "top.print()", "0;print()",
 * "(alert)(1)", "\u0061lert`1`"). The index of the '(' or '`', or -1. "true", "done", "(pending)"
 * and "see the docs (p. 3)" call nothing.
 */
function callValueAt(k: i32): i32 {
  while (k < len && sp(at(txt, k))) k++;
  let q: u32 = 0;
  if (k < len && (at(txt, k) == 34 || at(txt, k) == 39)) { q = at(txt, k); k++; }
  const s = k;
  while (k < len && k - s < 64) {
    const c = at(txt, k);
    if (q != 0 ? c == q : (sp(c) || c == 62)) return -1;
    if ((c == 40 || c == 96) && k > s) {
      const p = at(txt, k - 1);
      if (isWordUnit(p) || p == 41 || p == 93) return k;
    }
    k++;
  }
  return -1;
}

// The identifier jsIdent read: it ends at idE; its name has idLen units, and when it held an
// escape ("\u0061lert" is "alert" to JavaScript) the decoded name is in idBuf (first 32 units).
const idBuf = memory.data(64);
let idE = 0;
let idLen = 0;
let idEscaped = false;

/** A JavaScript identifier escape at j ("\u0061", "\u{61}"): its value in escVal, its length in escLen. */
function identEscapeAt(j: i32): bool {
  return j + 2 < len && (at(txt, j + 1) | 32) == 117 && jsEscapeIn(txt, j, len, false);
}

/** Reads the identifier at j: word characters and escapes of them. False when none starts there. */
@inline function jsIdent(j: i32): bool {
  // the common case first: word characters only
  const s = j;
  while (j < len && isWordUnit(at(txt, j))) j++;
  if (j < len && at(txt, j) == 92) return jsIdentEscaped(s);
  idE = j;
  idLen = j - s;
  idEscaped = false;
  return j > s;
}

/** A word character: ASCII letter, digit, '_' or '$'. */
@inline function isWordUnit(c: u32): bool {
  return isAlnum(c) || c == 95 || c == 36;
}

/** jsIdent where an escape may follow: the name is decoded into idBuf. */
function jsIdentEscaped(j: i32): bool {
  idLen = 0;
  idEscaped = false;
  while (j < len) {
    let c = at(txt, j);
    let w = 1;
    if (c == 92) {
      if (!identEscapeAt(j)) break;
      c = escVal;
      w = escLen;
      idEscaped = true;
    }
    if (!(isAlnum(c) || c == 95 || c == 36)) break;
    if (idLen < 32) store<u16>(idBuf + (<usize>idLen << 1), <u16>c);
    idLen++;
    j += w;
  }
  idE = j;
  return idLen > 0;
}

/** The listed sink (rule) the identifier at [s, idE) names, or -1. */
@inline function sinkRule(s: i32): i32 {
  if (idEscaped) {
    if (idLen > 32 || !filterMayHave(jsBreakoutFilter, idBuf, 0, idLen)) return -1;
    return ruleWithWord(K_JS_BREAKOUT, idBuf, 0, idLen);
  }
  if (!filterMayHave(jsBreakoutFilter, txt, s, idLen)) return -1;
  return ruleWithWord(K_JS_BREAKOUT, txt, s, idLen);
}

/** The identifier at s, read by jsIdent, is "new" (an escape in it is rare enough to ignore). */
@inline function isNewWord(s: i32): bool {
  return idLen == 3 && !idEscaped && lower(at(txt, s)) == 110 && lower(at(txt, s + 1)) == 101 && lower(at(txt, s + 2)) == 119;
}

/** A member's name starts at k (after a '.'): "document.cookie", not "$.50". */
@inline function memberAt(k: i32): bool {
  if (k >= len) return false;
  const c = at(txt, k);
  return (c | 32) - 97 < 26 || c == 95 || c == 36 || c == 92;
}

/** [s, e) holds an ASCII capital letter. */
function hasCapital(s: i32, e: i32): bool {
  for (let k = s; k < e; k++) if (at(txt, k) - 65 < 26) return true;
  return false;
}

/** White space from k on: the first other unit's index. */
@inline function pastSpace(k: i32): i32 {
  while (k < len && isSpace(at(txt, k))) k++;
  return k;
}

/**
 * A quote, spaces, an operator, then the JavaScript that follows: read up to the next quote,
 * where that quote's own look starts, or a line break (every unit is read by one look; a gap of comments after
 * a sink excepted, as bounded by skipGap). Where code, not prose, uses a listed sink:
 * - after punctuation other than '.', directly followed by ( ` . [ or =, or by '(' after a gap:
 *   "';alert(1)//", "';d=document.cookie", "';onload=alert//", "';\u0061lert(1)//";
 * - as a value in brackets that is then called, or handed to a call: "'-(alert)(1)-'",
 *   "(0,alert)(1)", "';[1].find(alert)//", "Reflect.apply(alert,0,[1])";
 * - "new" and a name with a capital, then ( ) or `: "(new Image).src=", "new WebSocket('wss:...')".
 * Words after a space are prose ("'hi', then open the door"), and so are members ("x.open(").
 * ('+' is an operator here even in a form-encoded value: '+eval(...)+'.)
 */
function breakoutJs(i: i32): void {
  let j = i + 1;
  while (j < len && (isSpace(at(txt, j)) || at(txt, j) == 0x1680)) j++;
  if (j >= len) return;
  const op = at(txt, j);
  let broken = false; // a line break in the operator run: only the first word is judged
  if (op == 0x2028 || op == 0x2029) broken = true; // "'\u2028import(...)": the string's statement ends
  else if (!jsOperator(op)) return;
  j++;
  while (j < len) {
    const c = at(txt, j);
    if (!(c == op || c == 40 || c == 126 || c == 33)) {
      if (!(sp(c) || jsSpace(c))) break;
      if (c == 10 || c == 13 || c == 0x2028 || c == 0x2029) broken = true;
    }
    j++;
  }
  const w0 = j; // where the first word starts
  // the common case at a cost of its own: one word that names no sink, then the next quote or
  // the end ("'=1'=1...", "'+x'+x...")
  if (j < len && isWordUnit(at(txt, j))) {
    let k = j + 1;
    while (k < len && isWordUnit(at(txt, k))) k++;
    if ((k >= len || at(txt, k) != 92) && !filterMayHave(jsBreakoutFilter, txt, j, k - j)) {
      // no sink: the walk goes on after it (only when the operator run kept to one line), over
      // punctuation to the next word first ("'+a/*'+a/*...": the quote, nothing more, ends it)
      if (broken) return;
      while (k < len) {
        const c = at(txt, k);
        if (c == 34 || c == 39 || c == 96 || c == 10 || c == 13) return;
        if (isWordUnit(c) || c == 92) break;
        k++;
      }
      if (k >= len) return;
      j = k;
    }
  }
  // Units are only stepped over until a word names a sink (the filter, then the rule): what came
  // before it is looked at then, back over white space.
  while (j < len) {
    const c = at(txt, j);
    if (!(isWordUnit(c) || c == 92)) {
      // a payload keeps to one line; code across lines is a program's text ("')\n  x = self.y")
      if (c == 34 || c == 39 || c == 96 || c == 10 || c == 13) return;
      j++;
      continue;
    }
    if (!jsIdent(j)) { j++; continue; }
    const s = j;
    const e = idE;
    j = e;
    // past the first word, a run that broke the line is a program's text ("')\n  x = self.y")
    if (broken && s != w0) return;
    // the word first: only a listed sink not yet reported is worth reading what follows it
    // (most words have a length, first and last letter no sink has: "'=1'=1...")
    const r = sinkRule(s);
    if (r < 0) continue;
    // a word after a word (prose; any non-ASCII unit is a letter here) or a member ("x.open(")
    // is no global sink
    let pAt = s - 1;
    while (pAt > i && (isSpace(at(txt, pAt)) || jsSpace(at(txt, pAt)))) pAt--;
    const pc = at(txt, pAt);
    if (isAlnum(pc) || pc == 95 || pc == 36 || pc == 46 || pc >= 0x80) continue;
    if (fired(r)) return;
    // "$" (jQuery) counts only before a member ("$.getScript("): "$(" is a shell's command
    // substitution far more often
    if (e - s == 1 && at(txt, s) == 36) {
      if (e < len && at(txt, e) == 46 && memberAt(e + 1)) { hit(r, i, e + 1); return; }
      continue;
    }
    let k = skipGap(e);
    if (gapCapped) {
      // a gap too long to read to its end: judged as if the call's '(' followed it
      hit(r, i, k);
      return;
    }
    if (k >= len) return;
    const nx = at(txt, k);
    if ((k == e && (nx == 40 || nx == 96 || nx == 91 || nx == 61 || (nx == 46 && memberAt(k + 1)))) || (k > e && nx == 40)) {
      hit(r, i, k + 1);
      return;
    }
    if (isNewWord(s) && isAlpha(nx) && jsIdent(k)) {
      // "new Image)", "new WebSocket(", "new Function`...`": a constructor's name, written with
      // a capital as constructors are, right before ( ) or ` ("'ok'; new Ideas (beta)" and "'hi',
      // new member(s)" are prose)
      const m = idE;
      if (m < len && (at(txt, m) == 40 || at(txt, m) == 41 || at(txt, m) == 96) && hasCapital(k, m)) { hit(r, i, m + 1); return; }
      continue;
    }
    if (pc == 40 || pc == 44) {
      // (k: past white space and comments after the sink, as JavaScript reads them)
      const m = k;
      const d = nx;
      // "(alert)(1)", "(0,alert)`1`": the bracketed value is called
      if (d == 41) {
        const m2 = pastSpace(m + 1);
        if (m2 < len && (at(txt, m2) == 40 || at(txt, m2) == 96)) { hit(r, i, m2 + 1); return; }
      }
      // "find(alert)", "apply(alert,0,[1])": handed to a call (the '(' follows a name or a bracket)
      if (pc == 40 && (d == 41 || d == 44) && pAt > i + 1) {
        const b = at(txt, pAt - 1);
        if (isAlnum(b) || b == 95 || b == 36 || b == 41 || b == 93) { hit(r, i, m + 1); return; }
      }
    }
    const z = heldThenCalled(pc, pAt, k);
    if (z >= 0) { hit(r, i, z); return; }
  }
}

/**
 * A sink held in a literal or an assignment and reached from it, where pc (at pAt, before the
 * sink) and the unit at k (after it and its gap) show which: "(x=alert)(1)" (an assignment in
 * brackets, called), "[alert][0](1)" (an array, indexed by a number, called), "{x:alert}.x(1)" (an
 * object, its member called) and "{toString:alert}" (an object JavaScript calls the member of when
 * it turns it into a string or a number: "'-{toString:alert}+'"). Where the match ends, or -1.
 * Reads at most a few units past k (an index of at most 3 digits, a member name of at most 32)
 * and at most 96 back from pAt (white space, the member's name, white space).
 */
function heldThenCalled(pc: u32, pAt: i32, k: i32): i32 {
  if (k >= len) return -1;
  const d = at(txt, k);
  if (pc == 61 && d == 41) {
    // (not "==", "<=", "!=", ">=": a comparison in brackets)
    const b = pAt > 0 ? at(txt, pAt - 1) : 0;
    if (b == 61 || b == 33 || b == 60 || b == 62) return -1;
    const m = pastSpace(k + 1);
    return m < len && (at(txt, m) == 40 || at(txt, m) == 96) ? m + 1 : -1;
  }
  if (pc == 91 && d == 93) {
    let m = k + 1;
    if (m >= len || at(txt, m) != 91) return -1;
    m++;
    const ds = m;
    while (m < len && m - ds < 3 && isDigit(at(txt, m))) m++;
    if (m == ds || m >= len || at(txt, m) != 93) return -1;
    m = pastSpace(m + 1);
    return m < len && (at(txt, m) == 40 || at(txt, m) == 96) ? m + 1 : -1;
  }
  if (pc == 58 && (d == 125 || d == 44)) {
    // the member's name before the ':', right after '{' or ','
    // (each walk back reads at most 32 units)
    let ke = pAt;
    while (ke > 0 && pAt - ke < 32 && isSpace(at(txt, ke - 1))) ke--;
    let ks = ke;
    while (ks > 0 && ke - ks < 32 && isWordUnit(at(txt, ks - 1))) ks--;
    if (ks == ke || ks == 0) return -1;
    let b = ks - 1;
    while (b > 0 && ks - b < 32 && isSpace(at(txt, b))) b--;
    const o = at(txt, b);
    if (o != 123 && o != 44) return -1;
    if (wordEq(ks, ke - ks, 'tostring') || wordEq(ks, ke - ks, 'valueof')) return k + 1;
    if (d != 125) return -1;
    // "{x:alert}.x(": the same name read as a member and called
    let m = k + 1;
    if (m >= len || at(txt, m) != 46) return -1;
    m++;
    const ms = m;
    while (m < len && m - ms < 32 && isWordUnit(at(txt, m))) m++;
    if (m - ms != ke - ks || !sameName(ks, ms, ke - ks)) return -1;
    return m < len && (at(txt, m) == 40 || at(txt, m) == 96) ? m + 1 : -1;
  }
  return -1;
}

/** txt[a, a + l) and txt[b, b + l) hold the same units, ASCII case aside (a filter may fold case). */
function sameName(a: i32, b: i32, l: i32): bool {
  for (let j = 0; j < l; j++) if (lower(at(txt, a + j)) != lower(at(txt, b + j))) return false;
  return true;
}

/** JavaScript keywords that take an operand: "void x", "new X", "throw x" run. */
function jsKeyword(s: i32, e: i32): bool {
  const l = e - s;
  if (l < 2 || l > 10) return false;
  const k = lower(at(txt, s));
  if (k != 118 && k != 110 && k != 116 && k != 100 && k != 97 && k != 121 && k != 114 && k != 99 && k != 105 && k != 111 && k != 108 && k != 101 && k != 102 && k != 115 && k != 119) return false;
  return wordEq(s, l, 'void') || wordEq(s, l, 'new') || wordEq(s, l, 'typeof') || wordEq(s, l, 'throw') || wordEq(s, l, 'delete') ||
    wordEq(s, l, 'await') || wordEq(s, l, 'yield') || wordEq(s, l, 'return') || wordEq(s, l, 'case') || wordEq(s, l, 'do') ||
    wordEq(s, l, 'in') || wordEq(s, l, 'instanceof') || wordEq(s, l, 'of') || wordEq(s, l, 'let') || wordEq(s, l, 'var') ||
    wordEq(s, l, 'const') || wordEq(s, l, 'else') || wordEq(s, l, 'function') || wordEq(s, l, 'async') || wordEq(s, l, 'static') ||
    wordEq(s, l, 'with') || wordEq(s, l, 'if') || wordEq(s, l, 'for') || wordEq(s, l, 'while') || wordEq(s, l, 'try') || wordEq(s, l, 'class') ||
    wordEq(s, l, 'import') || wordEq(s, l, 'super') || wordEq(s, l, 'this');
}

@inline function wordEq(s: i32, l: i32, w: string): bool {
  return lowerWordIs(txt, s, l, w);
}

/**
 * What follows a bare script scheme cannot run: a space, a word that is not a JavaScript
 * keyword, spaces (no line break), and a second word, which is a syntax error in JavaScript
 * ("JavaScript: The Good Parts"). Anything else, even one identifier ("javascript: name" renders
 * window.name), is treated as code.
 */
function proseAfterScheme(): bool {
  let i = schemeEnd;
  if (i >= len || !(at(txt, i) == 32 || at(txt, i) == 9)) return false;
  while (i < len && (at(txt, i) == 32 || at(txt, i) == 9)) i++;
  const s = i;
  while (i < len && isAlpha(at(txt, i))) i++;
  if (i == s || jsKeyword(s, i)) return false;
  if (i >= len || !(at(txt, i) == 32 || at(txt, i) == 9)) return false;
  while (i < len && (at(txt, i) == 32 || at(txt, i) == 9)) i++;
  const s2 = i;
  while (i < len && isAlpha(at(txt, i))) i++;
  // "top in import(name)", "x instanceof y": an operator word joins the two into an expression
  return i > s2 && !wordEq(s2, i - s2, 'in') && !wordEq(s2, i - s2, 'instanceof');
}

/** A literal escape of white space, a control or non-ASCII of exactly w units at k (after floor). */
function junkEscapeAt(k: i32, w: i32, floor: i32): bool {
  return k > floor && jsEscapeAt(k, len) && escLen == w && (escVal <= 32 || escVal >= 0x80);
}

/**
 * A javascript:-like scheme where a URL can start outside any tag: at the value start or after
 * = ( or a quote. Anchored on ':' and read backwards to where the scheme starts.
 */
function scanBareSchemes(): void {
  if (!kindActive(K_URL_SCHEME) && !kindActive(K_DATA_URL)) return;
  // the shortest listed scheme ("data" for data URLs): a scheme takes at least one unit a letter
  let minScheme = kindActive(K_DATA_URL) ? 4 : 31;
  const lens = kindActive(K_URL_SCHEME) ? kindLenMask(K_URL_SCHEME) : 0;
  if (lens != 0 && <i32>ctz(lens) < minScheme) minScheme = <i32>ctz(lens);
  prevColon = -1;
  lastLetters = schemeLastLetters();
  if (punctValid(txt, len)) {
    // every ':', in order, from the literal pass's bitmap
    const blocks = (len + 63) >> 6;
    for (let blk = 0; blk < blocks; blk++) {
      let w = punctWord(blk, P_COLON);
      while (w != 0) {
        const i = (blk << 6) + <i32>ctz(w);
        w &= w - 1;
        if (schemeEndsAt(i, minScheme) && schemeBefore(i, minScheme)) return;
      }
    }
    return;
  }
  let i = find1(txt, 0, len, 58);
  while (i < len) {
    if (schemeEndsAt(i, minScheme) && schemeBefore(i, minScheme)) return;
    i = find1(txt, i + 1, len, 58);
  }
}

/**
 * The quick "no" before schemeBefore, at the ':' at i (which it records as the previous ':'
 * when it answers no): a listed scheme needs at least minScheme units since the previous ':',
 * and its last unit right before the ':' (the units a scheme is written with: letters, digits,
 * + - . \ and the tabs and line breaks browsers drop; the white space and escapes schemeBefore
 * also walks over only come before them), a letter only one a listed scheme or an escape ends with.
 */
@inline function schemeEndsAt(i: i32, minScheme: i32): bool {
  if (i - prevColon - 1 < minScheme) { prevColon = i; return false; }
  const c = at(txt, i - 1);
  if ((isAlpha(c) && ((lastLetters >> (c & 31)) & 1) != 0) || isDigit(c) || c == 92 || c == 43 || c == 45 || c == 46 ||
    c == 9 || c == 10 || c == 13) return true;
  prevColon = i;
  return false;
}

let lastLetters: u32 = 0; // schemeLastLetters() for the value scanBareSchemes reads

// The ':' before the one schemeBefore looks at (-1: none): a scheme holds no ':', so the walk
// back from a ':' stops there and every unit is read back at most once.
let prevColon = -1;

/** A script scheme ends at the ':' at i: reported (true: the value is done). */
function schemeBefore(i: i32, minScheme: i32): bool {
  // back over scheme characters, leading white space, controls and literal escapes, no further
  // than the previous ':'
  // first the scheme (letters, digits, + - ., the tabs and line breaks browsers drop, literal
  // escapes), then the leading junk (white space, controls, escapes of them): prose before a
  // ':' stops the walk at the first space after a word
  let s = i;
  while (s > prevColon + 1) {
    const c = at(txt, s - 1);
    if (isAlnum(c) || c == 92 || c == 43 || c == 45 || c == 46 || c == 9 || c == 10 || c == 13) { s--; continue; }
    break;
  }
  while (s > prevColon + 1) {
    const c = at(txt, s - 1);
    if (c <= 32 || isUniSpace(c)) { s--; continue; }
    if (!isHex(c)) break; // an escape (\0, \xHH, \uHHHH) ends in a hex digit
    if (junkEscapeAt(s - 2, 2, prevColon)) { s -= 2; continue; }
    if (junkEscapeAt(s - 4, 4, prevColon)) { s -= 4; continue; }
    if (junkEscapeAt(s - 6, 6, prevColon)) { s -= 6; continue; }
    break;
  }
  prevColon = i;
  if (i - s < minScheme) return false; // too few units before the ':' for a listed scheme
  // a URL starts at the value start or right after '=', '(' or a quote; after '<' (markdown's
  // autolink, <javascript:...>), ']' (BBCode's [url]javascript:...[/url]), or "]:" and white space
  // (a markdown link reference definition, "[1]: javascript:...")
  const p = s > 0 ? at(txt, s - 1) : 0;
  if (!(s == 0 || p == 61 || p == 40 || p == 34 || p == 39 || p == 96 || p == 60 || p == 93 ||
    (p == 58 && s >= 2 && at(txt, s - 2) == 93))) return false;
  if (!readScheme(s, len) || schemeEnd != i + 1) return false;
  let r = schemeRule();
  if (r < 0) r = dataRule(len);
  // Detection spares a title ("JavaScript: The Good Parts": not code); the sanitizer's promise
  // is that no script URL is left at all, so it removes the scheme (and the spaces after it).
  if (r >= 0 && (stripMode || !proseAfterScheme())) {
    let e = schemeEnd;
    if (stripMode) { while (e < len && sp(at(txt, e))) e++; }
    hit(r, s, stripMode ? e : (len < schemeEnd + 40 ? len : schemeEnd + 40));
    return true;
  }
  return false;
}

/** Classes without which scanXss finds nothing when detecting (tags, bare schemes, quote breakouts). */
export const XSS_CLASSES = C_LT | C_COLON | C_SQ | C_DQ | C_BQ;

/**
 * scanXss has something to look at: one of XSS_CLASSES, or an '=' with a '(' or '`' (an event
 * handler whose value is a call or a template, with no quote or '<' in the value:
 * "x onmouseover=(alert)(1)").
 */
@inline export function xssWanted(mask: u32): bool {
  return (mask & XSS_CLASSES) != 0 || ((mask & C_EQ) != 0 && (mask & (C_LP | C_BQ)) != 0);
}

/**
 * An event handler with a script value where a tag's attribute list may go on, and no quote
 * right before its name: "x onmouseover=(alert)(1)" lands in <input value=x onmouseover=...>,
 * and '" autofocus onfocus=(alert)(1) x="' closes a quoted value and puts another attribute
 * first. Anchored on each '=': back over white space and a name of letters (at most 48), which
 * must follow white space or '/' and be a listed event handler (the attr-breakout params); the
 * value right after the '=' (a quote may open it) must hold '(', '`' or '=' before white space,
 * '>', '<' or a quote ends it: a call, a template or an assignment ("Set onclick = handler in
 * your code" and "onload = (see the docs)" are prose). Each unit is read back from one '=' at most (a name and the white space before an '='
 * hold no other '='), and forward once more as a value.
 */
function scanHandlerAttrs(): void {
  if (punctValid(txt, len)) {
    // every ';', '=' and '*', in order, from the literal pass's bitmap: one load per 64 units
    const blocks = (len + 63) >> 6;
    for (let blk = 0; blk < blocks; blk++) {
      let w = punctWord(blk, P_SQL);
      while (w != 0) {
        const q = (blk << 6) + <i32>ctz(w);
        w &= w - 1;
        if (at(txt, q) == 61 && handlerMayEndAt(q) && handlerAt(q)) return;
      }
    }
    return;
  }
  let q = find1(txt, 0, len, 61);
  while (q < len) {
    if (handlerMayEndAt(q) && handlerAt(q)) return;
    q = find1(txt, q + 1, len, 61);
  }
}

/** The quick "no" before handlerAt: a handler's name (four letters at least) or white space ends right before the '=' at q. */
@inline function handlerMayEndAt(q: i32): bool {
  if (q < 3) return false;
  const c = at(txt, q - 1);
  if (sp(c)) return true;
  if (!isAlnum(c)) return false;
  // four letters ("onload="), or a shorter run of letters and digits after a framework binding's
  // punctuation ("@cut=", "@keydown.esc=", ".500ms=")
  let k = q - 1;
  while (k > 0 && q - k < 4 && isAlnum(at(txt, k - 1))) k--;
  if (q - k >= 4) return true;
  // (no listed event has fewer than three letters: "@cut=", "@end=")
  if (k == 0 || q - k < 3) return false;
  const b = at(txt, k - 1);
  if (b == 64) return true; // "@cut="
  // "x-on:cut=", "hx-on-cut="
  if ((b == 58 || b == 45) && k >= 3 && lower(at(txt, k - 2)) == 110 && lower(at(txt, k - 3)) == 111) return true;
  if (b != 46) return false;
  // a modifier: "@keydown.esc=", "x-on:keyup.ctrl.c=" (back over the chain, at most 32 units, to its '@' or ':')
  let j = k - 1;
  while (j > 0 && q - j < 32) {
    const d = at(txt, j - 1);
    if (d == 64 || d == 58) return true;
    if (!(isAlnum(d) || d == 46 || d == 45)) return false;
    j--;
  }
  return false;
}

/**
 * The attribute name that ends at e (its last letters start at ls) is a script framework's
 * binding after white space or '/': "@click", "@click.prevent", "x-on:click", "v-on:click",
 * "hx-on:click" (the event a listed one: "on" and its name is an attr-breakout param), or a name
 * the html-attr-name rules list ("x-init", "x-html", "formaction"). Its start, or -1. Reads at most
 * 48 units back.
 */
const EVENT_BUF = memory.data(64 + 4); // "on" and an event name of at most 30 units

/** The letters from ev (before e) name a listed event: "on" and them is an attr-breakout param ("click", "keydown"). */
function listedEventAt(ev: i32, e: i32): bool {
  let ee = ev;
  while (ee < e && isAlpha(at(txt, ee))) ee++;
  const el = ee - ev;
  if (el < 2 || el > 30) return false;
  store<u16>(EVENT_BUF, 111);
  store<u16>(EVENT_BUF, 110, 2);
  for (let k = 0; k < el; k++) store<u16>(EVENT_BUF + 4 + (<usize>k << 1), <u16>at(txt, ev + k));
  if (!filterMayHave(attrBreakoutFilter, EVENT_BUF, 0, el + 2)) return false;
  return ruleWithWord(K_ATTR_BREAKOUT, EVENT_BUF, 0, el + 2) >= 0;
}
function frameworkNameBefore(ls: i32, e: i32): i32 {
  let s = ls;
  while (s > 0 && e - s < 48) {
    const c = at(txt, s - 1);
    if (isAlnum(c) || c == 45 || c == 58 || c == 46) { s--; continue; }
    break;
  }
  if (s > 0 && at(txt, s - 1) == 64) s--;
  if (s == 0 || s == ls) return -1;
  const b = at(txt, s - 1);
  if (!(sp(b) || b == 47)) return -1;
  const nl = e - s;
  // an event binding names a listed event ("@home=(soon)" names none): after '@' or the prefix,
  // up to a modifier ('.') or the end
  let ev = -1;
  if (at(txt, s) == 64) ev = s + 1;
  else if (frameworkEvent(s, nl)) {
    ev = s + (lowerLiteralAt(s, 'data-') ? 10 : 5);
    while (ev < e && (at(txt, ev) == 58 || at(txt, ev) == 45)) ev++;
  }
  if (ev >= 0) return listedEventAt(ev, e) ? s : -1;
  // an attribute whose value is script or markup (the dangerous-attribute params: x-init, x-html,
  // v-html, formaction, ...)
  return filterMayHave(attrNameFilter, txt, s, nl) && ruleWithWord(K_HTML_ATTR_NAME, txt, s, nl) >= 0 ? s : -1;
}

/** Some html-event-attr rule has reported this value. */
function handlerReported(): bool {
  let r = firstRule(K_HTML_EVENT_ATTR);
  while (r >= 0) {
    if (fired(r)) return true;
    r = nextRule(r);
  }
  return false;
}

/** The '=' at q ends a listed handler's name with a script value: reported (true: the rule is done). */
function handlerAt(q: i32): bool {
  let e = q;
  while (e > 0 && sp(at(txt, e - 1))) e--;
  let s = e;
  while (s > 0 && e - s < 48 && isAlpha(at(txt, s - 1))) s--;
  if (s == 0) return false;
  let r = -1;
  // a script framework's binding ("' x-data x-init=import(...) x='", "\" @click=fetch(...)",
  // "@cut=", "@click.debounce.500ms="): letters, digits, '-', ':', '.' and a leading '@' back from the '='
  const f = frameworkNameBefore(s, e);
  if (f < 0 && e - s < 4) return false;
  if (f >= 0) {
    r = firstRule(K_ATTR_BREAKOUT);
    while (r >= 0 && !ruleEnabled(r)) r = nextRule(r);
    if (r < 0) return false;
    s = f;
  } else {
    const b = at(txt, s - 1);
    if (!(sp(b) || b == 47)) return false;
    if (lower(at(txt, s)) != 111 || lower(at(txt, s + 1)) != 110) return false;
    if (!filterMayHave(attrBreakoutFilter, txt, s, e - s)) return false;
    r = ruleWithWord(K_ATTR_BREAKOUT, txt, s, e - s);
    if (r < 0) return false;
  }
  if (fired(r)) return true;
  // the value right after the '=' ("onload = (see the docs)" is prose)
  let k = q + 1;
  if (k < len && (at(txt, k) == 34 || at(txt, k) == 39)) k++;
  while (k < len) {
    const c = at(txt, k);
    if (c == 40 || c == 96 || c == 61) {
      hit(r, s, k + 1);
      return true;
    }
    if (sp(c) || c == 62 || c == 60 || c == 34 || c == 39) return false;
    k++;
  }
  return false;
}

/** Runs every XSS rule over text[0, n). In strip mode adds removal spans instead of findings. */
export function scanXss(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  xssMask = mask;
  gtFrom = -1;
  plusSpace = plusIsSpaceIn(p, n, mask);
  spBits = plusSpace ? TC_SP | TC_PLUS : TC_SP;
  // (set before any judge that reads them, whichever passes run)
  attrNameFilter = kindWordFilter(K_HTML_ATTR_NAME);
  jsBreakoutFilter = kindWordFilter(K_JS_BREAKOUT);
  attrBreakoutFilter = kindWordFilter(K_ATTR_BREAKOUT);
  lastTagS = -1;
  closeCacheScript = -2;
  closeFromScript = 0;
  swallowedAt = -1;
  rescanned = false;
  cssDoneTo = -1;
  visitedLt = 0;
  if ((mask & C_LT) != 0) {
    attrFirst = kindFirstMask(K_HTML_EVENT_ATTR) | kindFirstMask(K_HTML_ATTR_NAME);
    scanTags(0);
    if (swallowedAt >= 0) {
      // a construct left open at the end swallowed the rest: read it again as text, once
      const from = swallowedAt;
      rescanned = true;
      scanTags(from);
    }
    // the quote-blind pass, in strip mode too: a tag hidden in an attribute value or behind an
    // open comment may still run where the value lands. Needed only when some '<' was hidden.
    if (countOf(txt, len, 60) > visitedLt) scanNested();
  }
  if ((mask & C_COLON) != 0) scanBareSchemes();
  if (!stripMode && (mask & (C_SQ | C_DQ | C_BQ)) != 0) scanBreakouts();
  // (a handler the tag pass reported inside a tag is not reported twice)
  if (!stripMode && (mask & C_EQ) != 0 && kindActive(K_ATTR_BREAKOUT) && !handlerReported()) scanHandlerAttrs();
  // js-call rules are literals: literals.ts
}

