// sanitizeString (SPEC, Library operations): pipeline, then the XSS stripper (script elements,
// javascript: URLs, event handlers, embedding and injection tags), XML declarations and CDATA
// sections (opt-in), template expressions and dunders (opt-in), SQL hits replaced by
// "[BLOCKED]", path traversal stripped until stable, then < > " ' & HTML-encoded.
// The whole step is repeated until its output no longer changes, so stripping can never leave
// behind a new attack or a new escape that a second call would decode (the result is idempotent
// by construction); an input that does not settle within MAX_ITER steps becomes "".

import { at } from './text';
import { runPipeline, outPtr, outLen } from './pipeline';
import { arenaAlloc } from './mem';
import { spansBegin, spansEnd, spanCount, spanStart, spanEnd, sortSpans } from './spans';
import { scanXss } from './html';
import { scanSql } from './sql';
import { SEGMENT_SPACES } from './path';
import { scanSsti } from './ssti';
import { scanXxe } from './xxe';
import { scanCmd } from './cmd';
import { scanLiterals } from './literals';
import { punctReset } from './text';
import { classify } from './classes';
import { K_SQL_PHRASE } from './rules';

export const F_XSS = 1;
export const F_SQL = 2;
export const F_PATH = 4;
export const F_ENCODE = 8;
export const F_SSTI = 16;
export const F_XXE = 32;
export const F_CMD = 64;
const MAX_ITER = 16;
const MAX_SPANS = 1024;

let resPtr: usize = 0;
let resLen: i32 = 0;

/** Copies p[0,n) without the (sorted) spans, or with each merged span replaced by `repl`. */
function applySpans(p: usize, n: i32, replace: bool): void {
  sortSpans();
  const sc = spanCount();
  const out = arenaAlloc((<usize>n + <usize>sc * 9 + 8) << 1);
  let o = 0;
  let i = 0;
  let k = 0;
  while (k < sc) {
    let s = spanStart(k);
    let e = spanEnd(k);
    k++;
    while (k < sc && spanStart(k) <= e) { if (spanEnd(k) > e) e = spanEnd(k); k++; }
    if (s < i) s = i;
    if (e > n) e = n;
    if (s > i) { memory.copy(out + (<usize>o << 1), p + (<usize>i << 1), <usize>(s - i) << 1); o += s - i; }
    if (replace && e > s) {
      // "[BLOCKED]"
      store<u16>(out + (<usize>o << 1), 91); store<u16>(out + (<usize>(o + 1) << 1), 66);
      store<u16>(out + (<usize>(o + 2) << 1), 76); store<u16>(out + (<usize>(o + 3) << 1), 79);
      store<u16>(out + (<usize>(o + 4) << 1), 67); store<u16>(out + (<usize>(o + 5) << 1), 75);
      store<u16>(out + (<usize>(o + 6) << 1), 69); store<u16>(out + (<usize>(o + 7) << 1), 68);
      store<u16>(out + (<usize>(o + 8) << 1), 93);
      o += 9;
    }
    if (e > i) i = e;
  }
  if (i < n) { memory.copy(out + (<usize>o << 1), p + (<usize>i << 1), <usize>(n - i) << 1); o += n - i; }
  resPtr = out;
  resLen = o;
}

/**
 * Removes "../" and "..\" as if repeatedly until none is left, in one pass (a stack). Also the
 * forms the path detector reads as a step up where two or more dots start a segment: "..;x=1/" (a
 * path parameter, at most 64 units), ".. /" (spaces, which Windows drops: at most SEGMENT_SPACES),
 * and such a segment that ends the value ("a/../..", "/.."): a route that joins the value to a
 * directory climbs with it.
 */
function stripTraversal(p: usize, n: i32): void {
  const out = arenaAlloc((<usize>n + 8) << 1);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = at(p, i);
    store<u16>(out + (<usize>o << 1), <u16>c);
    o++;
    if (c != 47 && c != 92) continue;
    if (o >= 3 && at(out, o - 2) == 46 && at(out, o - 3) == 46) { o -= 3; continue; }
    const d = climbingSegment(out, o - 1);
    if (d >= 0) o = d;
  }
  // the value's end is a separator too
  const d = climbingSegment(out, o);
  if (d >= 0) o = d;
  resPtr = out;
  resLen = o;
}

/**
 * The segment of out that ends at e (a separator or the end) is a step up: two or more dots at
 * the segment's start, then nothing, spaces, or a path parameter (';' and up to 64 units). Where
 * the segment starts, or -1.
 */
function climbingSegment(out: usize, e: i32): i32 {
  let t = e;
  if (t > 0 && at(out, t - 1) == 32) {
    while (t > 0 && at(out, t - 1) == 32 && e - t < SEGMENT_SPACES) t--;
  } else if (t > 0 && at(out, t - 1) != 46) {
    let q = t;
    while (q > 0 && at(out, q - 1) != 59 && at(out, q - 1) != 47 && at(out, q - 1) != 92 && t - q < 64) q--;
    if (q > 0 && at(out, q - 1) == 59) t = q - 1; else return -1;
  }
  let d = t;
  while (d > 0 && at(out, d - 1) == 46) d--;
  return t - d >= 2 && (d == 0 || at(out, d - 1) == 47 || at(out, d - 1) == 92) ? d : -1;
}

function htmlEncode(p: usize, n: i32): void {
  const out = arenaAlloc((<usize>n * 6 + 8) << 1);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = at(p, i);
    let rep = '';
    if (c == 60) rep = '&lt;';
    else if (c == 62) rep = '&gt;';
    else if (c == 34) rep = '&quot;';
    else if (c == 39) rep = '&#39;';
    else if (c == 38) rep = '&amp;';
    else {
      store<u16>(out + (<usize>o << 1), <u16>c);
      o++;
      continue;
    }
    for (let k = 0; k < rep.length; k++) {
      store<u16>(out + (<usize>o << 1), <u16>rep.charCodeAt(k));
      o++;
    }
  }
  resPtr = out;
  resLen = o;
}

/**
 * One detector in strip mode over p[0, n): its removal spans applied (SQL hits replaced by
 * "[BLOCKED]"). The result is in resPtr/resLen, p itself when nothing was removed.
 */
function stripBy(flag: u32, p: usize, n: i32): void {
  spansBegin(MAX_SPANS);
  if (flag == F_XSS) scanXss(p, n, classify(p, n));
  else if (flag == F_XXE) scanXxe(p, n, classify(p, n));
  else if (flag == F_SSTI) scanSsti(p, n, classify(p, n));
  else if (flag == F_CMD) scanCmd(p, n, classify(p, n));
  else if (flag == F_SQL) {
    scanLiterals(p, n, K_SQL_PHRASE); // phrases as spans; notes UNION and call names for scanSql
    scanSql(p, n, classify(p, n));
    punctReset(); // the next text may reuse this memory
  }
  spansEnd();
  if (spanCount() > 0) applySpans(p, n, flag == F_SQL);
  else { resPtr = p; resLen = n; }
}

// The order of the strippers: markup first (XSS, then XML declarations), then template
// expressions, SQL, shell syntax, path traversal, and HTML encoding last.
const STRIP_ORDER = memory.data<u32>([F_XSS, F_XXE, F_SSTI, F_SQL, F_CMD]);

/** One sanitizing step over p[0, n); result in resPtr/resLen. */
function step(p: usize, n: i32, flags: u32): void {
  runPipeline(p, n);
  let cur = outPtr;
  let len = outLen;
  for (let k = 0; k < 5; k++) {
    const f = load<u32>(STRIP_ORDER + (<usize>k << 2));
    if ((flags & f) == 0) continue;
    stripBy(f, cur, len);
    cur = resPtr;
    len = resLen;
  }
  if (flags & F_PATH) { stripTraversal(cur, len); cur = resPtr; len = resLen; }
  if (flags & F_ENCODE) { htmlEncode(cur, len); cur = resPtr; len = resLen; }
  resPtr = cur;
  resLen = len;
}

function same(a: usize, al: i32, b: usize, bl: i32): bool {
  if (al != bl) return false;
  return memory.compare(a, b, <usize>al << 1) == 0;
}

/** Sanitizes p[0, n) to a fixed point; returns the length, text at sanitizedPtr(). */
export function sanitize(p: usize, n: i32, flags: u32): i32 {
  let cur = p;
  let len = n;
  for (let it = 0; it < MAX_ITER; it++) {
    step(cur, len, flags);
    if (same(resPtr, resLen, cur, len)) {
      resPtr = cur;
      resLen = len;
      return len;
    }
    cur = resPtr;
    len = resLen;
  }
  resPtr = p;
  resLen = 0;
  return 0;
}

export function sanitizedPtr(): usize {
  return resPtr;
}
