// Server-side template injection: template expressions ({{ }}, ${ }, <% %>, #{ }, ... as rule
// params) judged by what they hold, and Python dunder names that walk from any object to the
// interpreter's internals. A placeholder ("Hello {{name}}", "[[Page-Name]]", "${HOME}") is not
// code; arithmetic between literals, a call, an index, a dunder or a name of the template
// engine's internals is. Some template code has no delimiter pair and is judged by its shape:
// Velocity's #set, Log4j's ${jndi:...} lookups, Smarty's single-brace tags, FreeMarker's <#...>
// directives and the reflection shapes of OGNL, Razor, Spring EL and Velocity. Linear: each
// delimiter pair is searched left to right once, and a missing closer ends the search for that
// pair; each shape's pass reads every unit a bounded number of times.

import { at, lower, lowerLiteralIs, isAlpha, isAlnum, isSpace, isDigit, find1, find1Near, lastOf } from './text';
import {
  K_TEMPLATE_EXPR, K_TEMPLATE_NAME, K_SSTI_DUNDER, firstRule, nextRule, ruleEnabled, paramCount,
  paramPtr, paramLen, ruleWithWord, enabledRule,
} from './rules';
import { emit } from './findings';
import { stripMode, addSpan } from './spans';
import { TABLE as CLASS_TABLE, classesInit, C_UNDERSCORE, C_ALPHA, C_HASH, C_DOLLAR, C_EQ, C_COLON, C_AT, C_DOT, C_LBRACE, C_LBRACK, C_LT, C_LP, C_RP } from './classes';

let txt: usize = 0;
let len = 0;

// The last index of each closer's first character in the value (pairs share closers: } ] ) %)
const LAST = memory.data(8 * 8);
let lastCount = 0;

/** Last index of c in the value, or -1: searched once per value and character. */
function lastUnit(c: u32): i32 {
  for (let k = 0; k < lastCount; k++) {
    if (load<u32>(LAST + (<usize>k << 3)) == c) return load<i32>(LAST + (<usize>k << 3), 4);
  }
  const last = lastOf(txt, len, c);
  if (lastCount < 8) {
    store<u32>(LAST + (<usize>lastCount << 3), c);
    store<i32>(LAST + (<usize>lastCount << 3), last, 4);
    lastCount++;
  }
  return last;
}

function hit(r: i32, s: i32, e: i32): void {
  if (r < 0) return;
  if (stripMode) addSpan(s, e);
  else emit(r, s, e);
}

/** The word w (ASCII, lower case) at txt[i, e) in any letter case, no name character after it. */
function wordAt(i: i32, e: i32, w: string): bool {
  const n = w.length;
  if (i + n > e) return false;
  for (let j = 0; j < n; j++) if (lower(at(txt, i + j)) != <u32>w.charCodeAt(j)) return false;
  const c = i + n < e ? at(txt, i + n) : 0;
  return !(isAlnum(c) || c == 95 || c == 36);
}

@inline function isIdentStart(c: u32): bool {
  return isAlpha(c) || c == 95 || c == 36;
}

@inline function isIdentPart(c: u32): bool {
  return isAlnum(c) || c == 95 || c == 36;
}

@inline function isQuote(c: u32): bool {
  return c == 39 || c == 34 || c == 96;
}

/** The nearest non-space unit before i (at or after `from`), or 0. */
function before(i: i32, from: i32): u32 {
  let k = i - 1;
  while (k >= from && isSpace(at(txt, k))) k--;
  return k >= from ? at(txt, k) : 0;
}

/** The nearest non-space unit at or after i (before `to`), or 0. */
function after(i: i32, to: i32): u32 {
  let k = i;
  while (k < to && isSpace(at(txt, k))) k++;
  return k < to ? at(txt, k) : 0;
}

/**
 * Whether the expression text [s, e) is code: arithmetic with a number, a string or a bracket
 * on both sides (7*7, 7*'7', (1)+2; not Page-Name), a name directly followed by '(' or '['
 * (range(10), x[0], mro()[1]), or, when `spaced`, by white space and '(' (Jinja, EL and OGNL
 * call that way too: "lipsum|attr (...)", "T (java.lang.Runtime)"; not in a wiki link, "[[Mercury
 * (planet)]]"), or white space and '[' ("config ['SECRET_KEY']"), "__" or its escape "\x5f" (a dunder spelled in a string), or a pair of
 * backticks (ERB's and Ruby's shell call: <%= `id` %>); with `mustache` ({{ }}) "constructor" as a
 * member or a quoted name, with `dollar` (${ }, #{ }, *{ }) a member chain through ".class.". Else,
 * when it is a bare name or a member chain, filters after it allowed (config, request.application,
 * config|pprint), the rule of kind template-name that lists its first name (with `dollar`, a
 * FreeMarker special variable is looked up with its dot: ".data_model").
 */
// judge() met a letter in the expression (operands() and statementIsCode() look for names only)
let judgedLetter = false;

function judge(s: i32, e: i32, spaced: bool, ruby: bool, mustache: bool, dollar: bool): i32 {
  let onlyChain = true; // letters, digits, '_', '$', '.', white space
  let backticks = 0;
  judgedLetter = false;
  for (let i = s; i < e; i++) {
    const c = at(txt, i);
    if (isAlpha(c)) judgedLetter = true;
    // {{ }}: "constructor" as a member or as a quoted name, Handlebars' and Angular's way from any
    // object to Function ({{#with "constructor"}}, {{lookup this "constructor"}}, {{x.constructor}})
    if (mustache && (c == 46 || ((c == 34 || c == 39) && i + 12 < e && at(txt, i + 12) == c)) && wordAt(i + 1, e, "constructor")) return -2;
    // ${ }, #{ }, *{ }: a member chain through an object's class (${x.class.protectionDomain},
    // ${x.class.classLoader}: Java's reflection; ${item.class} alone is a CSS class in a JavaScript template)
    if (dollar && c == 46 && wordAt(i + 1, e, "class") && i + 7 < e && at(txt, i + 6) == 46 && isAlpha(at(txt, i + 7))) return -2;
    // ERB (<% %>): Ruby calls need no brackets, a name then white space then a string is a call
    // (<%= system "id" %>, <%= File.read 'config/master.key' %>; not <%= "a" %> or <% x == "y" %>)
    if (ruby && (c == 34 || c == 39) && i > s && isSpace(at(txt, i - 1))) {
      let k = i - 1;
      while (k > s && isSpace(at(txt, k - 1))) k--;
      if (k > s && isIdentPart(at(txt, k - 1))) return -2;
    }
    if ((c == 40 || c == 91) && spaced && i > s && isSpace(at(txt, i - 1))) {
      // (each run of white space is read back once: by the '(' right after it)
      let k = i - 1;
      while (k > s && isSpace(at(txt, k - 1))) k--;
      if (k > s && (isIdentPart(at(txt, k - 1)) || at(txt, k - 1) == 41)) return -2;
    }
    if (c == 92 && i + 3 < e && lower(at(txt, i + 1)) == 120 && at(txt, i + 2) == 53 && lower(at(txt, i + 3)) == 102) return -2;
    if (c == 96 && ++backticks == 2) return -2;
    if (c == 42 || c == 47 || c == 37 || c == 43 || c == 45) {
      const l = before(i, s);
      const r = after(i + 1, e);
      if ((isDigit(l) || l == 41 || l == 93 || isQuote(l)) && (isDigit(r) || r == 40 || isQuote(r))) return -2;
    }
    if ((c == 40 || c == 91) && i > s && (isIdentPart(at(txt, i - 1)) || at(txt, i - 1) == 41 || at(txt, i - 1) == 93)) return -2;
    if (c == 95 && i + 1 < e && at(txt, i + 1) == 95) return -2;
    // (a filter after the name: "config|pprint" is config's contents)
    if (!(isIdentPart(c) || c == 46 || isSpace(c) || c == 124)) onlyChain = false;
  }
  if (!onlyChain) {
    // a bare name or member chain in brackets ("{{ (config) }}", "{{ ((config.items)) }}"): the
    // brackets are read off, at most 8 on each side, and the inside must be a chain
    let a = s;
    let b = e;
    let depth = 0;
    while (depth < 8) {
      while (a < b && isSpace(at(txt, a))) a++;
      while (b > a && isSpace(at(txt, b - 1))) b--;
      if (b - a < 2 || at(txt, a) != 40 || at(txt, b - 1) != 41) break;
      a++;
      b--;
      depth++;
    }
    if (depth == 0) return -1;
    for (let k = a; k < b; k++) {
      const c = at(txt, k);
      if (!(isIdentPart(c) || c == 46 || isSpace(c) || c == 124)) return -1;
    }
    s = a;
    e = b;
  }
  // a bare name or member chain: its first name; in ${ } also FreeMarker's special variables, a
  // name after a '.', looked up with the dot (${.data_model}, ${.globals})
  let i = s;
  while (i < e && isSpace(at(txt, i))) i++;
  const special = dollar && i + 1 < e && at(txt, i) == 46 && isAlpha(at(txt, i + 1));
  if (i >= e || !(isIdentStart(at(txt, i)) || special)) return -1;
  let k = i + 1;
  while (k < e && isIdentPart(at(txt, k))) k++;
  return ruleWithWord(K_TEMPLATE_NAME, txt, i, k - i);
}

/** p[i, k) as lower-case ASCII bytes, first letter lowest; 0 when longer than 8 units or not ASCII. */
function packWord(i: i32, k: i32): u64 {
  if (k - i > 8) return 0;
  let w: u64 = 0;
  for (let j = i; j < k; j++) {
    const c = at(txt, j);
    if (c >= 128) return 0;
    w |= <u64>lower(c) << (<u64>(j - i) << 3);
  }
  return w;
}

const W_AND: u64 = 0x646e61;
const W_OR: u64 = 0x726f;
const W_IN: u64 = 0x6e69;
const W_PRINT: u64 = 0x746e697270;
const W_IF: u64 = 0x6669;
const W_ELSE: u64 = 0x65736c65;
const W_ELIF: u64 = 0x66696c65;
const W_ELSEIF: u64 = 0x666965736c65;
const W_UNLESS: u64 = 0x7373656c6e75;
const W_WHILE: u64 = 0x656c696877;
const W_CLASS: u64 = 0x7373616c63;
const W_DEBUG: u64 = 0x6775626564;
const W_IMPORT: u64 = 0x74726f706d69;
const W_FROM: u64 = 0x6d6f7266;
const W_GETCLASS: u64 = 0x7373616c63746567;

/**
 * In a Jinja, Twig or Django expression or statement ({{ }}, {% %}) that judge() did not report:
 * a name listed by a template-name rule standing alone as an operand whose value is printed or
 * kept: after the start, '(', '[', ',', '~', '{', a single '=', "and", "or", "in" or a leading
 * "print", and before the end, ')', ']', ',', '~', '|', '}', "and", "or", "if" or "else"
 * ({{ ''~config }}, {{[config]}}, {{ (config,1) }}, {{ 1 and config }}, {% set x = config %},
 * {% for k,v in config|dictsort %}, {% print config %}). A member chain counts only after the
 * leading "print" ({% print config.SECRET_KEY %} is {{ config.SECRET_KEY }}): after "in" or "="
 * it is the loop over, or the copy of, the app's data ({% for item in session.cart %}). Not in
 * a condition ({% if env == "prod" %}, {% if user and session %}), nor in a Handlebars block
 * ({{#if session}}: '#' lets nothing out) or a comparison ({{ env === 'prod' }}). Strings are
 * skipped. Returns the rule, or -1. Linear: each unit is read once, and once more after a name.
 */
function operands(s: i32, e: i32): i32 {
  let leak = true; // the last token lets the next operand's value out
  let printed = false; // the last token is a leading "print"
  let first = true;
  let i = s;
  while (i < e) {
    const c = at(txt, i);
    if (isSpace(c)) { i++; continue; }
    if (c == 39 || c == 34) {
      i = find1(txt, i + 1, e, c) + 1;
      leak = false; printed = false; first = false;
      continue;
    }
    if (isIdentStart(c) || isDigit(c)) {
      let k = i + 1;
      while (k < e && isIdentPart(at(txt, k))) k++;
      const w = packWord(i, k);
      if (first && (w == W_IF || w == W_ELIF || w == W_ELSEIF || w == W_UNLESS || w == W_WHILE)) return -1;
      if (leak && !isDigit(c) && !(i > s && at(txt, i - 1) == 46)) {
        let j = k;
        while (j < e && isSpace(at(txt, j))) j++;
        const rc = j < e ? at(txt, j) : 0;
        let out = rc == 0 || rc == 41 || rc == 93 || rc == 44 || rc == 126 || rc == 124 || rc == 125 || (rc == 46 && printed);
        if (!out && isAlpha(rc)) {
          let q = j + 1;
          while (q < e && isIdentPart(at(txt, q))) q++;
          const nw = packWord(j, q);
          out = nw == W_AND || nw == W_OR || nw == W_IF || nw == W_ELSE;
        }
        if (out) {
          const r = ruleWithWord(K_TEMPLATE_NAME, txt, i, k - i);
          if (r >= 0) return r;
        }
      }
      printed = first && w == W_PRINT;
      leak = printed || w == W_AND || w == W_OR || w == W_IN;
      first = false;
      i = k;
      continue;
    }
    // a single '=' (not ==, !=, <=, >=, =>)
    leak = c == 40 || c == 91 || c == 44 || c == 126 || c == 123 ||
      (c == 61 && !(i > s && (at(txt, i - 1) == 61 || at(txt, i - 1) == 33 || at(txt, i - 1) == 60 || at(txt, i - 1) == 62)) &&
        !(i + 1 < e && (at(txt, i + 1) == 61 || at(txt, i + 1) == 62)));
    printed = false;
    first = false;
    i++;
  }
  return -1;
}

/**
 * A {% %} statement that is code by its keyword: Tornado's Python import of a module ({% import os %},
 * {% from os import popen %}; Jinja and Twig import templates by a quoted name, or Twig's _self),
 * or Django's {% debug %}, which prints the whole context and the loaded modules.
 */
function statementIsCode(s: i32, e: i32): bool {
  let i = s;
  while (i < e && isSpace(at(txt, i))) i++;
  let k = i;
  while (k < e && isNamePart(at(txt, k))) k++;
  const w = packWord(i, k);
  let j = k;
  while (j < e && isSpace(at(txt, j))) j++;
  if (w == W_DEBUG) return j == e;
  // a module's name: a letter, not a quote or Twig's _self
  return (w == W_IMPORT || w == W_FROM) && j > k && j < e && isAlpha(at(txt, j));
}

/** Classes (classes.ts bits) every character of the opener needs in the value: a quick "no". */
function openerClasses(w: usize, n: i32): u32 {
  classesInit();
  let m: u32 = 0;
  for (let k = 0; k < n; k++) {
    const c = <u32>load<u8>(w + k);
    if (c < 128) m |= load<u32>(CLASS_TABLE + (<usize>c << 2));
  }
  return m;
}

/** The opener w[0, ol) at i, case-insensitively. */
function openerAt(w: usize, ol: i32, i: i32): bool {
  return i + ol <= len && lowerLiteralIs(txt, i, w, ol);
}

// Per delimiter pair, the classes its characters need (a value lacking one cannot hold the
// pair), computed once per rule set: NEED[slot] for the first MAX_CACHED pairs in rule order.
const MAX_CACHED = 64;
const NEED = memory.data(MAX_CACHED * 4);
let cachedPairs = -1; // -1: not computed for the loaded rules

/** Forgets the cached pair classes (new rules were loaded). */
export function resetSstiCache(): void {
  cachedPairs = -1;
}

function pairNeed(w: usize, wl: i32): u32 {
  let sp = 0;
  while (sp < wl && load<u8>(w + sp) != 32) sp++;
  return openerClasses(w, sp) | (sp < wl ? openerClasses(w + <usize>sp + 1, wl - sp - 1) : 0);
}

// One class bit of every cached pair, OR-ed: a value holding none of them holds no pair. Each
// pair's bit is its rarest in ordinary values (gateBit): '{' before '@' ("@{ }" gated by '@' sent
// every e-mail address to the look).
let gateAny: u32 = 0;

/** The class bit of `need` that gates a pair: '{', '[', '<', ')', '(' first, else its lowest bit. */
function gateBit(need: u32): u32 {
  if (need == 0) return 0xffffffff; // no class needed: always
  if ((need & C_LBRACE) != 0) return C_LBRACE;
  if ((need & C_LBRACK) != 0) return C_LBRACK;
  if ((need & C_LT) != 0) return C_LT;
  if ((need & C_RP) != 0) return C_RP;
  if ((need & C_LP) != 0) return C_LP;
  return need & (~need + 1);
}

function buildCache(): void {
  let slot = 0;
  gateAny = 0;
  let r = firstRule(K_TEMPLATE_EXPR);
  while (r >= 0) {
    const np = paramCount(r);
    for (let k = 0; k < np && slot < MAX_CACHED; k++) {
      const need = pairNeed(paramPtr(r, k), paramLen(r, k));
      store<u32>(NEED + (<usize>slot << 2), need);
      gateAny |= gateBit(need);
      slot++;
    }
    r = nextRule(r);
  }
  cachedPairs = slot;
}

/** Every expression of one delimiter pair (param "open close") of rule r; `need`: its classes. */
function pairs(r: i32, w: usize, wl: i32, mask: u32, need: u32): void {
  if ((mask & need) != need) return;
  // "open close": split at the one space
  let sp = 0;
  while (sp < wl && load<u8>(w + sp) != 32) sp++;
  if (sp == 0 || sp >= wl - 1) return;
  const ol = sp;
  const cw = w + <usize>sp + 1;
  const cl = wl - sp - 1;
  const first = <u32>load<u8>(w);
  const cfirst = <u32>load<u8>(cw);
  // an opener from the last closer on has no closer after it: openers are looked for before it
  // only (none at all in '{"a":{"a":...', where every '{' would be read once per pair)
  const lim = lastUnit(cfirst);
  let i = 0;
  while (i < lim) {
    i = find1Near(txt, i, lim, first);
    if (i >= lim) return;
    if (!openerAt(w, ol, i)) { i++; continue; }
    const cs = i + ol;
    // the closer after the opener
    let j = cs;
    let found = -1;
    while (j < len) {
      j = find1Near(txt, j, len, cfirst);
      if (j >= len) break;
      if (openerAt(cw, cl, j)) { found = j; break; }
      j++;
    }
    if (found < 0) return; // no closer after this opener: none after any later one either
    // (ERB's and JSP's comments, <%# ... %> and <%-- ... --%>, call nothing)
    const erbPair = first == 60 && ol == 2 && load<u8>(w + 1) == 37;
    const jspComment = cs + 1 < found && at(txt, cs) == 45 && at(txt, cs + 1) == 45;
    const erb = erbPair && !(cs < found && (at(txt, cs) == 35 || jspComment));
    // Jinja's and Twig's white-space control ({{- x -}}, {%~ x ~%}, {{+ x }}), ERB's and EJS's
    // output and trim marks (<%= x %>, <%== x %>, <%- x -%>, <%_ x _%>): no part of the expression
    const jinja = first == 123 && ol == 2 && (load<u8>(w + 1) == 123 || load<u8>(w + 1) == 37);
    let s = cs;
    let e = found;
    if (jinja) {
      if (s < e && (at(txt, s) == 45 || at(txt, s) == 126 || at(txt, s) == 43)) s++;
      if (e > s && (at(txt, e - 1) == 45 || at(txt, e - 1) == 126)) e--;
    } else if (erb) {
      let m = 0;
      while (m < 2 && s < e && (at(txt, s) == 61 || at(txt, s) == 45 || at(txt, s) == 95)) { s++; m++; }
      if (e > s && (at(txt, e - 1) == 45 || at(txt, e - 1) == 95)) e--;
    }
    const mustache = jinja && load<u8>(w + 1) == 123;
    const dollar = ol == 2 && load<u8>(w + 1) == 123 && (first == 36 || first == 35 || first == 42);
    const v = judge(s, e, first != 91, erb, mustache, dollar);
    if (v == -2) hit(r, i, found + cl);
    else if (v >= 0) hit(v, i, found + cl);
    else if (jinja && judgedLetter) {
      // (no letter, no name: "{{1}}" repeated read each expression twice)
      const o = operands(s, e);
      if (o >= 0) hit(o, i, found + cl);
      else if (!mustache && statementIsCode(s, e)) hit(r, i, found + cl);
    }
    i = found + cl;
  }
}

/**
 * Velocity's assignment directive: "#set" (or "#{set}"), white space, '(', white space, '$', a name
 * or a property ($a.b), white space, '=' ("#set($x = $class.inspect(...))"): template code with no
 * delimiter pair, judged by the directive's shape.
 * Each '#' is read once; the sanitizer removes the directive through the ')' that closes it.
 */
function velocitySet(r: i32): void {
  let i = 0;
  while (i + 6 < len) {
    i = find1(txt, i, len, 35);
    if (i + 6 >= len) return;
    // "#set", or "#{set}" (Velocity's braced directive), then white space and '('
    let k = i + 1;
    const braced = at(txt, k) == 123;
    if (braced) k++;
    if (!(k + 3 < len && lower(at(txt, k)) == 115 && lower(at(txt, k + 1)) == 101 && lower(at(txt, k + 2)) == 116)) { i++; continue; }
    k += 3;
    if (braced) {
      if (k >= len || at(txt, k) != 125) { i++; continue; }
      k++;
    }
    while (k < len && k - i < 24 && isSpace(at(txt, k))) k++;
    if (k >= len || at(txt, k) != 40) { i++; continue; }
    const open = k; // the directive's '('
    k++;
    while (k < len && k - i < 48 && isSpace(at(txt, k))) k++;
    if (k + 1 < len && at(txt, k) == 36) {
      k++;
      if (k < len && at(txt, k) == 123) k++; // ${x}
      if (k < len && isIdentStart(at(txt, k))) {
        // a name, or a property ($a.b), with the closing '}' of ${x}
        while (k < len && k - i < 128 && (isIdentPart(at(txt, k)) || at(txt, k) == 125 || at(txt, k) == 46)) k++;
        while (k < len && k - i < 64 && isSpace(at(txt, k))) k++;
        if (k < len && at(txt, k) == 61) {
          if (!stripMode) { hit(r, i, k + 1); return; }
          // sanitizing: the directive up to the ')' that closes its '(' (or the value's end)
          let depth = 1;
          let q = open + 1;
          while (q < len && depth > 0) {
            const c = at(txt, q);
            if (c == 40) depth++;
            else if (c == 41) depth--;
            q++;
          }
          hit(r, i, q);
          i = q;
          continue;
        }
      }
    }
    i = open + 1;
  }
}

// Log4j's lookups: per open "${" (at most LK_DEPTH tracked; deeper ones only counted), its mode
const LK_DEPTH = 16;
const LK_MODE = memory.data(LK_DEPTH);
const LK_NAME = memory.data(LK_DEPTH * 8); // the lookup's name so far, 8 lower-case letters at most
const M_NAME: u8 = 0; // reading "prefix:key" (what it yields is unknown: nothing is passed on)
const M_KEY: u8 = 1; // after the prefix's ':', waiting for the ":-" of a default
const M_OUT: u8 = 2; // the default after ":-", or the text of ${lower:...} / ${upper:...}: passed on
const M_DATE: u8 = 3; // ${date:'j'}: the quoted letters are passed on
const JNDI: u64 = 0x3a69646e6a; // "jndi:", first letter lowest

/** A unit as one byte for those names: ASCII lower-cased, anything else (and NUL) 0xff, which no name holds. */
@inline function unitByte(c: u32): u32 {
  return c - 1 < 127 ? lower(c) : 0xff;
}

/**
 * Log4j 2's lookups (CVE-2021-44228): a "${" ... "}" whose text, as Log4j resolves it, starts with
 * "jndi:" in any letter case. Nested lookups that Log4j replaces by a default or by their own
 * letters are read as such: "${::-j}", "${env:NOPE:-j}", "${lower:J}", "${upper:j}", "${date:'j'}"
 * ("${j${::-n}di:rmi://...}", "${${env:X:-j}ndi${env:X:-:}..."); any other nested lookup yields
 * nothing known. Like Log4j, an outer "${" without its "}" resolves nothing. One pass, each unit
 * read once; the reported span is the outer lookup.
 */
function log4jLookups(r: i32): void {
  let depth = 0; // open "${" lookups
  let silent = 0; // open nested lookups whose text is not passed on (modes M_NAME and M_KEY)
  let start = 0;
  let got: u64 = 0; // the outer lookup's first resolved units, 8 bits each
  let gotLen = 0;
  let quoted = false; // inside ${date:'...'}
  let i = 0;
  while (i < len) {
    if (depth == 0) {
      i = find1(txt, i, len, 36);
      if (i + 1 >= len) return;
    }
    const c = at(txt, i);
    if (c == 36 && i + 1 < len && at(txt, i + 1) == 123) {
      if (depth == 0) { start = i; got = 0; gotLen = 0; }
      else {
        silent++;
        if (depth <= LK_DEPTH) {
          store<u8>(LK_MODE + <usize>(depth - 1), M_NAME);
          store<u64>(LK_NAME + (<usize>(depth - 1) << 3), 0);
        }
      }
      depth++;
      i += 2;
      continue;
    }
    if (depth == 0) { i++; continue; }
    if (c == 125) {
      depth--;
      if (depth == 0) {
        if (gotLen == 5 && got == JNDI) { hit(r, start, i + 1); if (!stripMode) return; }
      } else if (depth <= LK_DEPTH) {
        const m = load<u8>(LK_MODE + <usize>(depth - 1));
        if (m == M_NAME || m == M_KEY) silent--;
        quoted = false;
      } else silent--;
      i++;
      continue;
    }
    // the unit at the innermost open lookup: level 0 is the outer one, 1.. nested
    const level = depth - 1;
    let pass = level == 0;
    if (level > 0 && level <= LK_DEPTH) {
      const m = load<u8>(LK_MODE + <usize>(level - 1));
      if (m == M_NAME || m == M_KEY) {
        if (c == 58 && i + 1 < len && at(txt, i + 1) == 45) {
          // ":-": the default follows
          store<u8>(LK_MODE + <usize>(level - 1), M_OUT);
          silent--;
          i += 2;
          continue;
        }
        if (m == M_NAME) {
          const a = LK_NAME + (<usize>(level - 1) << 3);
          const nm = load<u64>(a);
          if (c == 58) {
            // "lower", "upper", "date" (little-endian letters)
            if (nm == 0x7265776f6c || nm == 0x7265707075) { store<u8>(LK_MODE + <usize>(level - 1), M_OUT); silent--; }
            else if (nm == 0x65746164) { store<u8>(LK_MODE + <usize>(level - 1), M_DATE); silent--; quoted = false; }
            else store<u8>(LK_MODE + <usize>(level - 1), M_KEY);
          } else if ((nm >> 56) == 0) {
            // the name's letters, at most 8 (a longer name is no listed one: its top byte stays set)
            let k = 0;
            while (k < 8 && ((nm >> (<u64>k << 3)) & 0xff) != 0) k++;
            store<u64>(a, nm | (<u64>unitByte(c) << (<u64>k << 3)));
          }
        }
        i++;
        continue;
      }
      if (m == M_DATE) {
        if (c == 39) { quoted = !quoted; i++; continue; }
        pass = quoted;
      } else pass = true;
    }
    if (pass && silent == 0 && gotLen < 5) {
      got |= <u64>unitByte(c) << (<u64>gotLen << 3);
      gotLen++;
    }
    i++;
  }
}

@inline function isNamePart(c: u32): bool {
  return isAlnum(c) || c == 95;
}

/** txt[i, k) is one of the names (ASCII, lower case), in any letter case. */
function nameIn(names: string[], i: i32, k: i32): bool {
  const n = k - i;
  for (let w = 0; w < names.length; w++) {
    const name = unchecked(names[w]);
    if (name.length != n) continue;
    let j = 0;
    while (j < n && lower(at(txt, i + j)) == <u32>name.charCodeAt(j)) j++;
    if (j == n) return true;
  }
  return false;
}

// The first part of a class's full name in the reflection shapes: the JDK's, the big vendors' and
// the template engines' packages (an e-mail address or a handle, john.doe@host, starts otherwise)
const PACKAGE_ROOTS: string[] = [
  'java', 'javax', 'jakarta', 'jdk', 'sun', 'com', 'org', 'net', 'io', 'ognl', 'freemarker', 'groovy', 'kotlin', 'system',
];

/**
 * The end of a dotted Java-style name at k (a.b.C): sets dotsSeen and rootSeen (its first part is
 * one of PACKAGE_ROOTS). Letter case is not judged: the mutation suite's case mutants of a payload
 * must still be found, though Java would not resolve them.
 */
let dotsSeen = 0;
let rootSeen = false;
function dottedName(k: i32): i32 {
  dotsSeen = 0;
  rootSeen = false;
  const start = k;
  while (k < len && isAlpha(at(txt, k))) {
    while (k < len && (isNamePart(at(txt, k)) || at(txt, k) == 36)) k++;
    if (dotsSeen == 0) rootSeen = nameIn(PACKAGE_ROOTS, start, k);
    if (k + 1 < len && at(txt, k) == 46 && isAlpha(at(txt, k + 1))) { dotsSeen++; k++; }
    else break;
  }
  return k;
}

/**
 * Java expression languages' reflection shapes that need no delimiter pair, reported by rule r:
 * OGNL's static member "@pkg.Class@member" (@java.lang.Runtime@getRuntime(),
 * @ognl.OgnlContext@DEFAULT_MEMBER_ACCESS: a dotted name starting with a package root, between two
 * '@'; not an e-mail address or a handle, first.last@host), Razor's call into .NET's System
 * namespace (@System.Diagnostics.Process.Start(...), @System.IO.File.ReadAllText(...)), Spring EL's
 * type reference "T(pkg.Class)" (T(java.lang.System).getenv(): the routing-expression form; not
 * T(n) or T(n.log) in prose), and a Velocity reference walking to a class and calling on it
 * ($x.class.forName(...), $x.getClass().forName(...)). Each '@', '(' and '$' is read once; the
 * names read after it stop at the next one.
 */
const SPEL_SCAN = 1024;
function javaShapes(r: i32, mask: u32): void {
  // (with a '(' in the value: a reflection call; an e-mail address, most values with '@' and
  // '.', is not read, and "@ognl.OgnlContext@DEFAULT_MEMBER_ACCESS" alone reaches nothing)
  if ((mask & (C_AT | C_DOT | C_LP)) == (C_AT | C_DOT | C_LP)) {
    let i = 0;
    while (i + 4 < len) {
      i = find1(txt, i, len, 64);
      if (i + 4 >= len) break;
      if (i > 0 && (isNamePart(at(txt, i - 1)) || at(txt, i - 1) == 46)) { i++; continue; }
      const k = dottedName(i + 1);
      if (k + 1 < len && at(txt, k) == 64 && dotsSeen > 0 && rootSeen && (isAlpha(at(txt, k + 1)) || at(txt, k + 1) == 95)) {
        let q = k + 1;
        while (q < len && isNamePart(at(txt, q))) q++;
        hit(r, i, q);
        if (!stripMode) return;
        i = q;
        continue;
      }
      // Razor: "@System." then a member chain, then '('
      if (k < len && at(txt, k) == 40 && dotsSeen > 0 && wordAt(i + 1, k, "system")) {
        hit(r, i, k + 1);
        if (!stripMode) return;
      }
      i = k > i + 1 ? k : i + 1;
    }
  }
  if ((mask & (C_LP | C_RP | C_DOT)) == (C_LP | C_RP | C_DOT)) {
    // Spring EL: 'T', white space, '(', a dotted class name, ')'. Every '(' of a value of up to
    // SPEL_SCAN units; in a longer one only the value's first (a routing expression is the whole
    // value: a search of every '(' of long prose cost more than this detector's other passes)
    let i = 1;
    let stop = len;
    if (len > SPEL_SCAN) {
      let t = 0;
      while (t < len && t < 64 && isSpace(at(txt, t))) t++;
      let k = t + 1;
      while (k < len && k - t < 16 && isSpace(at(txt, k))) k++;
      if (!((at(txt, t) | 32) == 116 && k < len && at(txt, k) == 40)) stop = 0;
      else { i = k; stop = k + 1; }
    }
    while (i + 4 < len && i < stop) {
      i = find1(txt, i, stop, 40);
      if (i + 4 >= len || i >= stop) break;
      let t = i - 1;
      while (t > 0 && i - t < 16 && isSpace(at(txt, t))) t--;
      if ((at(txt, t) | 32) == 116 && (t == 0 || !(isNamePart(at(txt, t - 1)) || at(txt, t - 1) == 46 || at(txt, t - 1) == 36))) {
        let k = i + 1;
        while (k < len && k - i < 16 && isSpace(at(txt, k))) k++;
        k = dottedName(k);
        if (dotsSeen > 0 && rootSeen) {
          while (k < len && k - i < 512 && isSpace(at(txt, k))) k++;
          if (k < len && at(txt, k) == 41) {
            hit(r, t, k + 1);
            if (!stripMode) return;
            i = k + 1;
            continue;
          }
        }
      }
      i++;
    }
  }
  if ((mask & (C_DOLLAR | C_DOT | C_LP)) == (C_DOLLAR | C_DOT | C_LP)) {
    // Velocity: $x, $!x or ${x}, members, one of them "class" or "getClass()", then a call
    let i = 0;
    while (i + 4 < len) {
      i = find1(txt, i, len, 36);
      if (i + 4 >= len) break;
      let k = i + 1;
      if (at(txt, k) == 33) k++;
      const braced = k < len && at(txt, k) == 123;
      if (braced) k++;
      if (k >= len || !isAlpha(at(txt, k))) { i++; continue; }
      while (k < len && isNamePart(at(txt, k))) k++;
      if (braced && k < len && at(txt, k) == 125) k++;
      let reflect = false;
      while (k + 1 < len && at(txt, k) == 46 && isAlpha(at(txt, k + 1))) {
        const m = k + 1;
        let q = m + 1;
        while (q < len && isNamePart(at(txt, q))) q++;
        const called = q < len && at(txt, q) == 40;
        if (reflect && called) {
          hit(r, i, q + 1);
          if (!stripMode) return;
          break;
        }
        const w = packWord(m, q);
        if (w == W_CLASS && !called) { reflect = true; k = q; continue; }
        if (w == W_GETCLASS && called && q + 1 < len && at(txt, q + 1) == 41) { reflect = true; k = q + 2; continue; }
        k = q;
        if (called) break;
      }
      i = k > i + 1 ? k : i + 1;
    }
  }
}

// PHP functions that run a command, evaluate code or read and write files: called in a Smarty tag,
// they are the template's code. (A plain list here, not a rule's params: a template-name param is
// judged in every delimiter pair, and "{{ system.name }}" is a placeholder.)
const PHP_CALLS: string[] = [
  'system', 'passthru', 'exec', 'shell_exec', 'popen', 'proc_open', 'pcntl_exec', 'phpinfo', 'eval', 'assert',
  'file_get_contents', 'file_put_contents', 'readfile', 'show_source', 'highlight_file', 'create_function', 'call_user_func',
];

const W_CONST: u64 = 0x74736e6f63;
const W_ENV: u64 = 0x766e65;
const W_SERVER: u64 = 0x726576726573;

/** After "$smarty.": a member that reads PHP's constants, environment or server variables, or the template object. */
function smartyMember(k: i32): bool {
  let q = k;
  while (q < len && q - k < 16 && isNamePart(at(txt, q))) q++;
  if (q - k == 15) {
    const t = "template_object";
    let j = 0;
    while (j < 15 && lower(at(txt, k + j)) == <u32>t.charCodeAt(j)) j++;
    return j == 15;
  }
  const w = packWord(k, q);
  return w == W_CONST || w == W_ENV || w == W_SERVER;
}

/**
 * Smarty's tags, '{' with no white space after it, up to the next '}': a listed PHP function
 * called at the tag's start or after if, elseif or while ({system('id')}, {if phpinfo()}{/if},
 * {passthru("id")}), the call's ')' closing the tag (an object's method "{exec(cmd) { ... }}" in
 * JavaScript does not); or Smarty's own variable $smarty reading PHP's constants, environment or
 * server variables or the template object ({$smarty.const.DB_PASS}, {$smarty.env.APP_KEY},
 * {$smarty.template_object}; not {$smarty.now} or {$smarty.version}, which themes print). Reported by rule r. Each '{' is read once; the search for the tag's
 * '}' goes on from the last one found.
 */
function smartyTags(r: i32): void {
  const last = lastUnit(125);
  let close = -1; // the '}' after the last tag looked at
  let i = 0;
  while (i + 3 < last) {
    i = find1(txt, i, last, 123);
    if (i + 3 >= last) return;
    let k = i + 1;
    if (at(txt, k) == 36) {
      // {$smarty.
      if (k + 7 < len && lower(at(txt, k + 1)) == 115 && lower(at(txt, k + 2)) == 109 && lower(at(txt, k + 3)) == 97 &&
        lower(at(txt, k + 4)) == 114 && lower(at(txt, k + 5)) == 116 && lower(at(txt, k + 6)) == 121 && at(txt, k + 7) == 46 &&
        smartyMember(k + 8)) {
        if (close <= k) close = find1(txt, k, len, 125);
        hit(r, i, close + 1);
        if (!stripMode) return;
        i = close + 1;
        continue;
      }
      i++;
      continue;
    }
    if (!isAlpha(at(txt, k))) { i++; continue; }
    let q = k;
    while (q < len && isNamePart(at(txt, q))) q++;
    // "if", "elseif", "while" and white space before the call
    const w = packWord(k, q);
    if ((w == W_IF || w == W_ELSEIF || w == W_WHILE) && q < len && isSpace(at(txt, q))) {
      k = q;
      while (k < len && k - q < 16 && isSpace(at(txt, k))) k++;
      q = k;
      while (q < len && isNamePart(at(txt, q))) q++;
    }
    let p = q;
    while (p < len && p - q < 16 && isSpace(at(txt, p))) p++;
    if (q > k && p < len && at(txt, p) == 40 && nameIn(PHP_CALLS, k, q)) {
      if (close <= p) close = find1(txt, p, len, 125);
      if (close < len && before(close, p) == 41) {
        hit(r, i, close + 1);
        if (!stripMode) return;
        i = close + 1;
        continue;
      }
    }
    i = q;
  }
}

/**
 * FreeMarker's directives, "<#" and a name, up to the next '>': a special variable a template-name
 * rule lists with its dot, after white space, '=', '(', ',' or '[' (<#list .data_model?keys as k>),
 * reported by that rule; or a member chain through an object's class (<#assign cl =
 * x.class.protectionDomain.classLoader>), reported by r. Each unit is read once: the next
 * directive is looked for after the '>'.
 */
function freemarkerDirectives(r: i32): void {
  let i = 0;
  while (i + 3 < len) {
    i = find1(txt, i, len, 60);
    if (i + 3 >= len) return;
    if (at(txt, i + 1) != 35 || !isAlpha(at(txt, i + 2))) { i++; continue; }
    const end = find1(txt, i + 2, len, 62);
    const stop = end < len ? end + 1 : len;
    for (let k = i + 3; k + 1 < end; k++) {
      if (at(txt, k) != 46 || !isAlpha(at(txt, k + 1))) continue;
      const p = at(txt, k - 1);
      if (isSpace(p) || p == 61 || p == 40 || p == 44 || p == 91) {
        let q = k + 1;
        while (q < end && isNamePart(at(txt, q))) q++;
        const v = ruleWithWord(K_TEMPLATE_NAME, txt, k, q - k);
        if (v >= 0) {
          hit(v, i, stop);
          if (!stripMode) return;
          break;
        }
      } else if (wordAt(k + 1, end, "class") && k + 7 < end && at(txt, k + 6) == 46 && isAlpha(at(txt, k + 7))) {
        hit(r, i, stop);
        if (!stripMode) return;
        break;
      }
    }
    i = stop;
  }
}

/** "__name__" names of rules of kind ssti-dunder, anywhere in the value. */
function dunders(): void {
  let i = 0;
  while (i + 4 < len) {
    i = find1(txt, i, len, 95);
    if (i + 4 >= len) return;
    if (at(txt, i + 1) != 95) { i++; continue; }
    // "__" then a name then "__"
    let k = i + 2;
    while (k < len && isAlnum(at(txt, k))) k++;
    if (k > i + 2 && k + 1 < len && at(txt, k) == 95 && at(txt, k + 1) == 95) {
      const r = ruleWithWord(K_SSTI_DUNDER, txt, i, k + 2 - i);
      if (r >= 0) hit(r, i, k + 2);
      i = k; // the closing "__" may open the next name (__class____mro__ is not Python, but cheap)
      continue;
    }
    i = k > i + 2 ? k : i + 2;
  }
}

/**
 * scanSsti can find something in a value of n units with these classes: every character of some
 * delimiter pair (a cached pair's gate bit, or a pair past the cache), a dunder name's '_' and
 * letters, or Velocity's "#set($x =". A quick "no" only: scanSsti makes the exact checks.
 */
export function sstiWanted(n: i32, mask: u32): bool {
  if (n < 3) return false;
  if (cachedPairs < 0) buildCache();
  return cachedPairs >= MAX_CACHED || (mask & gateAny) != 0 || (mask & (C_UNDERSCORE | C_ALPHA)) == (C_UNDERSCORE | C_ALPHA) ||
    (mask & (C_HASH | C_DOLLAR | C_EQ)) == (C_HASH | C_DOLLAR | C_EQ) || (mask & (C_AT | C_DOT | C_LP)) == (C_AT | C_DOT | C_LP) ||
    (mask & (C_DOLLAR | C_DOT | C_LP)) == (C_DOLLAR | C_DOT | C_LP);
}

/** Runs every SSTI rule over text[0, n). In strip mode adds removal spans instead of findings. */
export function scanSsti(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  lastCount = 0;
  if (n < 3) return;
  if (cachedPairs < 0) buildCache();
  // a quick "no": the value lacks a character of every cached pair (and no pair is uncached)
  let maybe = cachedPairs >= MAX_CACHED;
  for (let k = 0; k < cachedPairs && !maybe && (mask & gateAny) != 0; k++) {
    const need = load<u32>(NEED + (<usize>k << 2));
    if ((mask & need) == need) maybe = true;
  }
  let slot = 0;
  let r = maybe ? firstRule(K_TEMPLATE_EXPR) : -1;
  while (r >= 0) {
    const np = paramCount(r);
    const on = ruleEnabled(r);
    for (let k = 0; k < np; k++) {
      const w = paramPtr(r, k);
      const wl = paramLen(r, k);
      const need = slot < cachedPairs ? load<u32>(NEED + (<usize>slot << 2)) : pairNeed(w, wl);
      slot++;
      if (on) pairs(r, w, wl, mask, need);
    }
    r = nextRule(r);
  }
  // Velocity's #set($x = ...): the first rule of kind template-expression
  if ((mask & (C_HASH | C_DOLLAR | C_EQ)) == (C_HASH | C_DOLLAR | C_EQ)) {
    const rv = enabledRule(K_TEMPLATE_EXPR);
    if (rv >= 0) velocitySet(rv);
  }
  // Smarty's tags in single braces
  if ((mask & (C_LBRACE | C_LP)) == (C_LBRACE | C_LP) || (mask & (C_LBRACE | C_DOLLAR)) == (C_LBRACE | C_DOLLAR)) {
    const rs = enabledRule(K_TEMPLATE_EXPR);
    if (rs >= 0) smartyTags(rs);
  }
  // OGNL's, Razor's, Spring EL's and Velocity's reflection without delimiters
  if ((mask & (C_DOT | C_LP)) == (C_DOT | C_LP)) {
    const rj = enabledRule(K_TEMPLATE_EXPR);
    if (rj >= 0) javaShapes(rj, mask);
  }
  // FreeMarker's directives: "<#", '.'
  if ((mask & (C_LT | C_HASH | C_DOT)) == (C_LT | C_HASH | C_DOT)) {
    const rf = enabledRule(K_TEMPLATE_EXPR);
    if (rf >= 0) freemarkerDirectives(rf);
  }
  // Log4j's lookups: "${", '}' and the ':' of "jndi:"
  if ((mask & (C_DOLLAR | C_LBRACE | C_COLON)) == (C_DOLLAR | C_LBRACE | C_COLON)) {
    const rl = enabledRule(K_TEMPLATE_EXPR);
    if (rl >= 0) log4jLookups(rl);
  }
  // dunder names hold '_' and letters
  if ((mask & (C_UNDERSCORE | C_ALPHA)) == (C_UNDERSCORE | C_ALPHA) && enabledRule(K_SSTI_DUNDER) >= 0) dunders();
}
