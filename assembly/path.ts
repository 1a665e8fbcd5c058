// Path traversal: judged on path segments (a segment made only of two or more dots between
// separators, '/' and '\' alike), known sensitive files at segment boundaries, stream
// wrappers, and NUL bytes that truncate file names. Linear in the value.

import { at, lower, lowerWordIs, isAlnum, isAlpha, find1, findDots, pathLiteralAt, fileEntryEnds } from './text';
import {
  K_PATH_TRAVERSAL, K_PATH_FILE, K_PATH_NUL, K_PATH_UNC, K_PATH_STREAM, firstRule, nextRule, ruleEnabled,
  paramCount, paramPtr, paramLen, enabledRule, ruleWithWord,
} from './rules';
import { emit } from './findings';
import { arenaAlloc } from './mem';
import { C_NUL, C_DOT, C_SLASH, C_BSLASH, C_NONASCII, C_COLON, C_DOLLAR } from './classes';
import { sawHexByte, scanLiterals, setLiteralMap } from './literals';

let txt: usize = 0;
let len = 0;
let map: usize = 0; // when viewing a mapped copy: i32 original offset of each unit, else 0
let mapLen = 0; // length of the value the map points into

/** Characters some servers and fuzzers use for '/' (division slash, set minus, private-use slashes). */
@inline function slashLike(c: u32): bool {
  return c == 0x2215 || c == 0x2216 || c == 0x2044 || c == 0x29f8 || c == 0x29f9 || c == 0xefc8 || c == 0xf025;
}

@inline function orig(i: i32): i32 {
  return map == 0 ? i : load<i32>(map + (<usize>i << 2));
}

function hit(r: i32, s: i32, e: i32): void {
  if (map == 0) { emit(r, s, e); return; }
  const os = orig(s);
  // the unit after the match starts where the match ends in the value (units map to 1 or 4)
  const oe = e > s ? (e < len ? orig(e) : mapLen) : os;
  emit(r, os, oe);
}

/** The spaces read after a '..' segment's dots (a Windows file name holds at most 255 units); sanitize.ts strips the same. */
export const SEGMENT_SPACES = 256;

@inline function isSep(c: u32): bool {
  return c == 47 || c == 92;
}

function traversal(r: i32): void {
  for (let i = 0; i + 1 < len; i++) {
    i = findDots(txt, i, len); // '..'
    if (i + 1 >= len) return;
    if (i > 0 && !isSep(at(txt, i - 1))) {
      // skip the rest of this dot run so the scan stays linear
      while (i + 1 < len && at(txt, i + 1) == 46) i++;
      continue;
    }
    let j = i + 2;
    while (j < len && at(txt, j) == 46) j++;
    // "..;/" (path parameters)
    let k = j;
    if (k < len && at(txt, k) == 59) {
      while (k < len && !isSep(at(txt, k)) && k - j < 64) k++;
    }
    if ((k < len && isSep(at(txt, k))) || (k >= len && i > 0)) {
      hit(r, i > 0 ? i - 1 : i, k < len ? k + 1 : k);
      return;
    }
    // ".. /": Windows drops the spaces that end a segment, so ".. /.. /" climbs; one such
    // segment is prose's ("I said .. / then"), so a second '..' segment must follow it
    if (k < len && at(txt, k) == 32) {
      const e = spacedDots(k);
      if (e > 0 && e + 1 < len && at(txt, e) == 46 && at(txt, e + 1) == 46) {
        const f = spacedDots(e + 2);
        if (f > 0) { hit(r, i > 0 ? i - 1 : i, f); return; }
      }
    }
    i = j - 1;
  }
}

/**
 * After a '..' segment's dots, at k: spaces (none needed; at most SEGMENT_SPACES, past a Windows
 * name's 255 units), then a separator. The unit after the separator, or -1.
 */
function spacedDots(k: i32): i32 {
  let s = k;
  while (s < len && at(txt, s) == 32 && s - k < SEGMENT_SPACES) s++;
  return s < len && isSep(at(txt, s)) ? s + 1 : -1;
}

@inline function paramAt(w: usize, wl: i32, i: i32): bool {
  return pathLiteralAt(txt, len, i, w, wl);
}

/**
 * Sensitive files anchored to the value start (a leading '^'). The other params are literals:
 * literals.ts finds them at segment starts, on the value and (through scanPath) on the path view.
 */
function files(r: i32): bool {
  let s0 = 0;
  while (s0 < len && at(txt, s0) <= 32) s0++;
  // a POSIX path reads "//" and "/./" as "/": "//etc//passwd" and "/./etc/./passwd" are
  // /etc/passwd (the anchored params start at the last '/' of such a run). A leading "//" alone
  // also starts a network path ("//fileserver/share", "//srv/builds": a CIFS mount's source) or a
  // URL without its scheme ("//apache.org/x"): it counts only when the path doubles a '/' or has
  // a "/./" further on too, which no share name needs.
  const s1 = s0;
  let doubled = false;
  while (s0 + 1 < len && at(txt, s0) == 47) {
    const c = at(txt, s0 + 1);
    if (c == 47) { s0++; doubled = true; }
    else if (c == 46 && s0 + 2 < len && at(txt, s0 + 2) == 47) s0 += 2;
    else break;
  }
  if (doubled && !redundantSeparator(s0 + 1)) s0 = s1;
  return anchoredFiles(r, paramCount(r), s0);
}

/** From i to the path's end (white space, at most 256 units): a "//" or a "/./". */
function redundantSeparator(i: i32): bool {
  const end = i + 256 < len ? i + 256 : len;
  for (let k = i; k + 1 < end; k++) {
    const c = at(txt, k);
    if (c <= 32) return false;
    if (c != 47) continue;
    const d = at(txt, k + 1);
    if (d == 47 || (d == 46 && k + 2 < end && at(txt, k + 2) == 47)) return true;
  }
  return false;
}

// Anchored params (a leading '^') per rule, found once: {u16 param} lists.
const anchoredList = memory.data(256 * 2);
const anchoredFirst = memory.data(16); // 128-bit set of their first characters (after '^')
// their first and second characters (after '^'; second 0 for a one-character param), in list
// order, padded for sixteen-lane reads: a value that starts with '/' is compared with the 96
// params of the default rule that also do sixteen at a time, not one call each
const anchoredFirstCh = memory.data(256 + 16);
const anchoredSecondCh = memory.data(256 + 16);
let anchoredRule = -1;
let anchoredCount = 0;

function setFirst(set: usize, c: u32): void {
  store<u8>(set + (c >> 3), load<u8>(set + (c >> 3)) | <u8>(<u32>1 << (c & 7)));
}

/** Lists rule r's anchored params and the first characters of both kinds, once per rule. */
function buildFirstSets(r: i32, n: i32): void {
  if (anchoredRule == r) return;
  anchoredCount = 0;
  memory.fill(anchoredFirst, 0, 16);
  for (let k = 0; k < n; k++) {
    const w = paramPtr(r, k);
    const l = paramLen(r, k);
    if (l < 2) continue;
    if (load<u8>(w) != 94) continue;
    const f = <u32>load<u8>(w + 1) & 127;
    if (f == 47) setFirst(anchoredFirst, 92); // '/' also matches '\\'
    setFirst(anchoredFirst, f);
    if (anchoredCount < 256) {
      store<u16>(anchoredList + (<usize>anchoredCount << 1), <u16>k);
      store<u8>(anchoredFirstCh + <usize>anchoredCount, load<u8>(w + 1));
      store<u8>(anchoredSecondCh + <usize>anchoredCount, l >= 3 ? load<u8>(w + 2) : 0);
      anchoredCount++;
    }
  }
  anchoredRule = r;
}

/** Forgets the per-rule caches (a new rule blob was loaded). */
export function resetPathCaches(): void {
  anchoredRule = -1;
}

/** The anchored params of rule r at the value start s0 (first byte compared before the rest). */
function anchoredFiles(r: i32, n: i32, s0: i32): bool {
  buildFirstSets(r, n);
  if (s0 >= len) return false;
  const c = lower(at(txt, s0));
  if (c >= 128 || (load<u8>(anchoredFirst + (c >> 3)) & (1 << (c & 7))) == 0) return false;
  // candidates sixteen at a time: the first character equal ('/' in a param also matches '\', as
  // pathLiteralAt reads it), the second equal or absent; then each candidate in list order
  const u2 = s0 + 1 < len ? lower(at(txt, s0 + 1)) : 0x100;
  const c2 = u2 < 256 ? u2 : 255; // no param byte is 255 (UTF-8): an end or a wide unit matches only one-character params
  const vc = i8x16.splat(<i8>c);
  const vc2 = i8x16.splat(<i8>c2);
  const vslash = i8x16.splat(47);
  const vzero = i8x16.splat(0);
  for (let b = 0; b < anchoredCount; b += 16) {
    const fv = v128.load(anchoredFirstCh + <usize>b);
    const sv = v128.load(anchoredSecondCh + <usize>b);
    let m1 = i8x16.eq(fv, vc);
    if (c == 92) m1 = v128.or(m1, i8x16.eq(fv, vslash));
    let m2 = v128.or(i8x16.eq(sv, vc2), i8x16.eq(sv, vzero));
    if (c2 == 92) m2 = v128.or(m2, i8x16.eq(sv, vslash));
    let bits = <u32>i8x16.bitmask(v128.and(m1, m2));
    if (anchoredCount - b < 16) bits &= (<u32>1 << <u32>(anchoredCount - b)) - 1;
    while (bits != 0) {
      const q = b + <i32>ctz(bits);
      bits &= bits - 1;
      const k = <i32>load<u16>(anchoredList + (<usize>q << 1));
      const w = paramPtr(r, k) + 1;
      const wl = paramLen(r, k) - 1;
      if (!paramAt(w, wl, s0)) continue;
      const e = s0 + wl;
      if (!fileEntryEnds(txt, len, e, w, wl)) continue;
      hit(r, s0, e);
      return true;
    }
  }
  return false;
}

/**
 * Windows' best-fit mapping turns these into '\\' when a wide path goes through an ANSI file API:
 * the yen sign (Japanese code page 932) and the won sign (Korean 949), "..¥..¥web.config".
 */
@inline function backslashLike(c: u32): bool {
  return c == 0xa5 || c == 0x20a9;
}

/** A JSON or JavaScript escape of '.', '/' or '\\' at i: "\\u002e", "\\u002f", "\\u005c" (their unit, or 0). */
@inline function escapedSep(p: usize, n: i32, i: i32): u32 {
  if (i + 5 >= n || at(p, i) != 92 || (at(p, i + 1) | 32) != 117 || at(p, i + 2) != 48 || at(p, i + 3) != 48) return 0;
  const h = at(p, i + 4);
  const l = lower(at(p, i + 5));
  if (h == 50 && l == 101) return 46;
  if (h == 50 && l == 102) return 47;
  if (h == 53 && l == 99) return 92;
  return 0;
}

/**
 * The path view of a value: literal hex bytes of '.', '/' and '\' (0x2e, 0x2f, 0x5c), their
 * JSON escapes (\u002e, \u002f, \u005c: a JSON value a server parses before using it as a path)
 * and slash look-alikes become the characters they stand for, with a map back to the value's
 * offsets. Returns false (and builds nothing) when the value has none of them.
 */
function buildView(p: usize, n: i32, scanAll: bool): bool {
  let need = false;
  if (!scanAll) {
    // an ASCII value with no "0x": only the escapes can hold, at a '\\' (found sixteen units at a time)
    let i = find1(p, 0, n, 92);
    while (i < n) {
      if (escapedSep(p, n, i) != 0) { need = true; break; }
      // the next units by hand first (runs of '\\' would set the vector search up at each one)
      let k = i + 1;
      const stop = k + 8 < n ? k + 8 : n;
      while (k < stop && at(p, k) != 92) k++;
      i = k < stop ? k : find1(p, stop, n, 92);
    }
  } else {
    // eight units a step past those that can change nothing here: anything but '0', '\\' and the
    // slash and backslash look-alikes (1 MB of "é" took a scalar test per unit)
    const k30 = i16x8.splat(48);
    const k5c = i16x8.splat(92);
    const kA5 = i16x8.splat(0xa5);
    const k2044 = i16x8.splat(0x2044);
    const k20a9 = i16x8.splat(0x20a9);
    const k2215 = i16x8.splat(0x2215);
    const k2216 = i16x8.splat(0x2216);
    const k29f8 = i16x8.splat(0x29f8);
    const k29f9 = i16x8.splat(0x29f9);
    const kEfc8 = i16x8.splat(<i16>0xefc8);
    const kF025 = i16x8.splat(<i16>0xf025);
    for (let i = 0; i < n; i++) {
      if (i + 8 <= n) {
        const v = v128.load(p + (<usize>i << 1));
        const m = i16x8.bitmask(v128.or(v128.or(v128.or(v128.or(i16x8.eq(v, k30), i16x8.eq(v, k5c)), v128.or(i16x8.eq(v, kA5), i16x8.eq(v, k2044))),
          v128.or(v128.or(i16x8.eq(v, k20a9), i16x8.eq(v, k2215)), v128.or(i16x8.eq(v, k2216), i16x8.eq(v, k29f8)))),
          v128.or(i16x8.eq(v, k29f9), v128.or(i16x8.eq(v, kEfc8), i16x8.eq(v, kF025)))));
        if (m == 0) { i += 7; continue; }
        i += <i32>ctz(m);
      }
      const c = at(p, i);
      if (c < 0x80) {
        if ((c == 48 && i + 3 < n && (at(p, i + 1) | 32) == 120) || (c == 92 && escapedSep(p, n, i) != 0)) { need = true; break; }
        continue;
      }
      if (slashLike(c)) { need = true; break; }
      // the yen and won signs only next to a dot or after a drive's ':' ("..¥", "C:¥"): prices
      // ("¥500") do not make a second reading of the value
      if (backslashLike(c) && ((i > 0 && (at(p, i - 1) == 46 || at(p, i - 1) == 58)) || (i + 1 < n && at(p, i + 1) == 46))) { need = true; break; }
    }
  }
  if (!need) return false;
  const buf = arenaAlloc((<usize>n + 4) << 1);
  const m = arenaAlloc((<usize>n + 4) << 2);
  let o = 0;
  for (let i = 0; i < n; i++) {
    let c = at(p, i);
    let w = 1;
    if (slashLike(c)) c = 47;
    else if (backslashLike(c)) c = 92;
    else if (c == 92 && escapedSep(p, n, i) != 0) { c = escapedSep(p, n, i); w = 6; }
    else if (c == 48 && i + 3 < n && (at(p, i + 1) | 32) == 120) {
      const h = at(p, i + 2);
      const l = lower(at(p, i + 3));
      if (h == 50 && (l == 101 || l == 102)) { c = l == 101 ? 46 : 47; w = 4; }
      else if (h == 53 && l == 99) { c = 92; w = 4; }
    }
    store<u16>(buf + (<usize>o << 1), <u16>c);
    store<i32>(m + (<usize>o << 2), i);
    o++;
    i += w - 1;
  }
  txt = buf;
  len = o;
  map = m;
  mapLen = n;
  return true;
}

function detect(n: i32, mask: u32): void {
  const hasDot = (mask & C_DOT) != 0;
  const hasSep = (mask & (C_SLASH | C_BSLASH)) != 0;
  if (hasDot && hasSep) { // a dot-only segment needs a separator next to it
    const r = enabledRule(K_PATH_TRAVERSAL);
    if (r >= 0) traversal(r);
  }
  if (hasSep || hasDot) {
    let r = firstRule(K_PATH_FILE);
    while (r >= 0) {
      if (ruleEnabled(r) && files(r)) break;
      r = nextRule(r);
    }
  }
}

/** An IPv4 address in dotted-quad form is txt[s, e). */
function dottedQuad(s: i32, e: i32): bool {
  let parts = 1;
  let digits = 0;
  for (let k = s; k < e; k++) {
    const c = at(txt, k);
    if (c == 46) {
      if (digits == 0) return false;
      parts++;
      digits = 0;
    } else if (c - 48 < 10) {
      if (++digits > 3) return false;
    } else return false;
  }
  return parts == 4 && digits > 0;
}

/** txt[s, e) equals the lower-case ASCII word w, case-insensitively. */
@inline function textIs(s: i32, e: i32, w: string): bool {
  return lowerWordIs(txt, s, e - s, w);
}

/**
 * A Windows UNC or device path at the value's start (white space and quotes aside) that a file
 * API opens over the network or in the device namespace: "\\?\" and "\\.\" (also "//?/"),
 * and, after two separators of which one is '\\', a host that is an IPv4 address or localhost,
 * a WebDAV host (host@SSL, host@80), an administrative share (c$, admin$), or a last segment
 * whose extension is a param (a server-side script: "\\host\share\x.php"). A share on a named
 * host ("\\fileserver\docs\q3.xlsx", what an IT ticket holds) is not reported. Reads the
 * value once.
 */
function unc(r: i32): void {
  let i = 0;
  while (i < len && (at(txt, i) <= 32 || at(txt, i) == 34 || at(txt, i) == 39)) i++;
  if (i + 3 >= len || !isSep(at(txt, i)) || !isSep(at(txt, i + 1))) return;
  const s0 = i;
  const back = at(txt, i) == 92 || at(txt, i + 1) == 92;
  i += 2;
  const c = at(txt, i);
  if ((c == 63 || c == 46) && isSep(at(txt, i + 1))) { hit(r, s0, i + 2); return; }
  if (!back) return;
  // the host: up to the next separator (at most 255 units)
  const hs = i;
  while (i < len && !isSep(at(txt, i)) && at(txt, i) > 32 && i - hs < 256) i++;
  const he = i;
  if (he == hs || i >= len || !isSep(at(txt, i))) return;
  for (let k = hs; k < he; k++) {
    if (at(txt, k) != 64) continue;
    // WebDAV: host@SSL, host@SSL@443, host@80
    if (k + 1 < he && (at(txt, k + 1) - 48 < 10 || (k + 3 < he + 1 && textIs(k + 1, k + 4 < he ? k + 4 : he, 'ssl')))) { hit(r, s0, he); return; }
  }
  if (dottedQuad(hs, he) || textIs(hs, he, 'localhost')) { hit(r, s0, he); return; }
  // the share: an administrative one ends in '$' (c$, admin$, ipc$)
  const ss = i + 1;
  let j = ss;
  while (j < len && !isSep(at(txt, j)) && at(txt, j) > 32) j++;
  if (j > ss + 1 && at(txt, j - 1) == 36) { hit(r, s0, j); return; }
  // the last segment's extension: white space or a quote ends the path
  let e = j;
  while (e < len && at(txt, e) > 32 && at(txt, e) != 34 && at(txt, e) != 39) e++;
  let dot = -1;
  for (let k = e - 1; k > ss && !isSep(at(txt, k)); k--) if (at(txt, k) == 46) { dot = k; break; }
  if (dot < 0 || dot + 1 >= e) return;
  const np = paramCount(r);
  for (let k = 0; k < np; k++) {
    const w = paramPtr(r, k);
    const wl = paramLen(r, k);
    if (wl != e - dot - 1) continue;
    let same = true;
    for (let q = 0; q < wl && same; q++) same = lower(at(txt, dot + 1 + q)) == <u32>load<u8>(w + q);
    if (same) { hit(r, s0, e); return; }
  }
}

/**
 * NTFS alternate data streams (kind path-stream): a name, ':', a stream name or none, ':' and a
 * listed stream type ("index.php::$DATA", "web.config::$DATA", "a.txt:hidden:$DATA",
 * "uploads::$INDEX_ALLOCATION", "uploads:$I30:$INDEX_ALLOCATION"). The default stream ("$data")
 * only after a name with an extension (a '.' not at its end): PHP's static members pass
 * ("self::$data" holds no '.'). Each ":$" is read once; the names before it at most 255 units.
 */
function streams(): void {
  if (enabledRule(K_PATH_STREAM) < 0) return;
  let i = find1(txt, 0, len, 36);
  while (i < len) {
    if (i >= 2 && at(txt, i - 1) == 58) {
      // the type: letters, digits and '_' after the '$'
      let e = i + 1;
      while (e < len && e - i < 64 && (isAlnum(at(txt, e)) || at(txt, e) == 95)) e++;
      const r = e > i + 1 ? ruleWithWord(K_PATH_STREAM, txt, i, e - i) : -1;
      if (r >= 0) {
        // the stream's name (none in "::$DATA"), then the ':' after the file's name
        let k = i - 2;
        while (k >= 0 && i - k < 256 && (isAlnum(at(txt, k)) || at(txt, k) == 95 || at(txt, k) == 36 || at(txt, k) == 45)) k--;
        if (k >= 0 && at(txt, k) == 58) {
          // the file's name: back to a separator, white space or a quote. Its extension: letters
          // and digits after its last '.', a letter among them; no '$' in the name ("$this.self"
          // is PHP's concatenation, not a file)
          let s = k;
          let lastDot = -1;
          let dollar = false;
          while (s > 0 && k - s < 255) {
            const c = at(txt, s - 1);
            if (c == 47 || c == 92 || c <= 32 || c == 34 || c == 39 || c == 58) break;
            if (c == 46 && lastDot < 0) lastDot = s - 1;
            if (c == 36) dollar = true;
            s--;
          }
          let ext = lastDot >= 0 && lastDot + 1 < k;
          let letter = false;
          for (let t = lastDot + 1; ext && t < k; t++) {
            const c = at(txt, t);
            if (!isAlnum(c)) ext = false;
            else if (isAlpha(c)) letter = true;
          }
          const last = k > 0 ? at(txt, k - 1) : 0;
          const isData = e - i == 5 && lowerWordIs(txt, i, 5, '$data');
          if (s < k && !dollar && isAlnum(last) && ((ext && letter) || !isData)) {
            emit(r, s, e);
            return;
          }
        }
      }
      i = e > i + 1 ? e - 1 : i;
    }
    i = find1(txt, i + 1, len, 36);
  }
}

export function scanPath(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  map = 0;
  if ((mask & (C_SLASH | C_BSLASH)) != 0) {
    let r = firstRule(K_PATH_UNC);
    while (r >= 0) {
      if (ruleEnabled(r)) unc(r);
      r = nextRule(r);
    }
  }
  if ((mask & C_NUL) != 0) {
    const r = enabledRule(K_PATH_NUL);
    if (r >= 0) {
      for (let i = 0; i < n; i++) if (at(txt, i) == 0) { emit(r, i, i + 1); break; }
    }
  }
  if ((mask & (C_DOT | C_SLASH | C_BSLASH)) != 0) detect(n, mask);
  if ((mask & (C_COLON | C_DOLLAR)) == (C_COLON | C_DOLLAR)) streams();
  const scanAll = (mask & C_NONASCII) != 0 || sawHexByte;
  if ((scanAll || (mask & C_BSLASH) != 0) && buildView(p, n, scanAll)) {
    detect(n, C_DOT | C_SLASH); // the view maps to dots and separators
    // sensitive files on the view, with offsets mapped back to the value
    setLiteralMap(map, mapLen);
    scanLiterals(txt, len, K_PATH_FILE);
    setLiteralMap(0, 0);
  }
  map = 0;
}
