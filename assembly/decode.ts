// One decoding pass: percent escapes (%XX, %uXXXX, UTF-8 sequences including overlong and
// lenient forms of ASCII) and HTML character references (decimal, hex, named), in a single
// left-to-right scan. Tolerant by construction: anything malformed is kept literally.
// Output is never longer than the input.

import { at, isHex, hexVal, isDigit, find2, punctValid, punctWord, P_DEC } from './text';
import { matchEntity } from './tables/entities';

export let decodeChanged = false;

@inline function put(dst: usize, o: i32, c: u32): i32 {
  store<u16>(dst + (<usize>o << 1), <u16>c);
  return o + 1;
}

/** Writes code point cp as UTF-16; replaces surrogates and out-of-range values with U+FFFD. */
function putCp(dst: usize, o: i32, cp: u32): i32 {
  if (cp < 0x10000) {
    if (cp - 0xd800 < 0x800) cp = 0xfffd;
    return put(dst, o, cp);
  }
  if (cp > 0x10ffff) return put(dst, o, 0xfffd);
  const v = cp - 0x10000;
  o = put(dst, o, 0xd800 | (v >> 10));
  return put(dst, o, 0xdc00 | (v & 0x3ff));
}

/** Byte value of an escape %XX at i, or -1. */
@inline function pctByte(src: usize, i: i32, n: i32): i32 {
  if (i + 2 < n && at(src, i) == 37 && isHex(at(src, i + 1)) && isHex(at(src, i + 2))) {
    return <i32>((hexVal(at(src, i + 1)) << 4) | hexVal(at(src, i + 2)));
  }
  return -1;
}

/**
 * IIS's lenient hex: "%qf" read as ('Q' - 'A' + 10) * 16 + 15. Only ever used for the two-byte
 * overlong forms of '/', '\' and '.' (%c0%qf, %c1%pc, %bg%qf, ...), historic traversal bypasses.
 */
function lenientByte(src: usize, i: i32, n: i32): i32 {
  if (i + 2 >= n || at(src, i) != 37) return -1;
  const a = at(src, i + 1);
  const b = at(src, i + 2);
  if (!(isAlnumC(a) && isAlnumC(b))) return -1;
  return <i32>(((lenV(a) << 4) + lenV(b)) & 0xff);
}

@inline function isAlnumC(c: u32): bool {
  return c - 48 < 10 || (c | 32) - 97 < 26;
}

@inline function lenV(c: u32): u32 {
  return c <= 57 ? c - 48 : (c & 0xdf) - 65 + 10;
}

/** A lenient two-byte overlong '/', '\' or '.' at i (escape units consumed in lenUsed), or -1. */
let lenUsed = 0;
function lenientSlash(src: usize, i: i32, n: i32): i32 {
  const l = lenientByte(src, i, n);
  if (l != 0xc0 && l != 0xc1) return -1;
  const c = lenientByte(src, i + 3, n);
  if (c < 0x80 || c > 0xbf) return -1;
  const cp = ((l & 0x1f) << 6) | (c & 0x3f);
  if (cp != 0x2f && cp != 0x5c && cp != 0x2e) return -1;
  lenUsed = 6;
  return cp;
}

/**
 * A lead byte C0/C1 (only ever an overlong ASCII form) followed by a byte b that is not a proper
 * continuation. Lenient decoders disagree on what that yields: the formula ((lead & 1) << 6) |
 * (b & 0x3f) (%c1%1c = '\\'), b & 0x3f, or b itself with the lead dropped (%c0%5c = '\\').
 * Detection takes the reading that gives a path character if any does, else the formula.
 */
function overlongGuess(lead: u32, b: u32): u32 {
  const f = ((lead & 1) << 6) | (b & 0x3f);
  if (f == 0x2f || f == 0x5c || f == 0x2e) return f;
  const g = b & 0x3f;
  if (g == 0x2f || g == 0x2e) return g;
  const h = g | 0x40;
  if (h == 0x5c) return h;
  if (b == 0x2f || b == 0x5c || b == 0x2e) return b;
  return f;
}

// Result of decodeUtf8At: code point and units consumed.
let u8Cp: u32 = 0;
let u8Used: i32 = 0;

/**
 * A lead byte >= 0x80 at i (an escape). Decodes a UTF-8 sequence of escapes, accepting overlong
 * forms (they yield the ASCII character a lenient server would see) and, for the leads C0/C1
 * that can only ever encode ASCII, a following byte with a wrong continuation prefix, escaped
 * or literal (%c0%2e and %c0. both decode to '.'). A lone invalid byte decodes as Latin-1.
 */
function decodeUtf8At(src: usize, i: i32, n: i32, lead: u32): void {
  let need = 0;
  let cp: u32 = 0;
  if (lead >= 0xc0 && lead <= 0xdf) { need = 1; cp = lead & 0x1f; }
  else if (lead >= 0xe0 && lead <= 0xef) { need = 2; cp = lead & 0x0f; }
  else if (lead >= 0xf0 && lead <= 0xf7) { need = 3; cp = lead & 0x07; }
  else if (lead >= 0xf8 && lead <= 0xfb) { need = 4; cp = lead & 0x03; }
  else if (lead >= 0xfc && lead <= 0xfd) { need = 5; cp = lead & 0x01; }
  let j = i + 3;
  if (need > 0) {
    let k = 0;
    for (; k < need; k++) {
      const b = pctByte(src, j, n);
      if (b < 0) break;
      if ((b & 0xc0) != 0x80) {
        if (lead <= 0xc1 && need == 1) { cp = overlongGuess(lead, <u32>b); j += 3; k++; }
        break;
      }
      cp = (cp << 6) | (<u32>b & 0x3f);
      j += 3;
    }
    if (k == need) {
      // overlong C0/C1 forms: take the path-character reading if any (dotdotpwn's %c1%af)
      if (lead <= 0xc1) cp = overlongGuess(lead, cp & 0x3f | 0x80);
      u8Cp = cp;
      u8Used = j - i;
      return;
    }
    // C0/C1 followed by a literal ASCII character: lenient decoders fold it into one char.
    if (lead <= 0xc1 && k == 0 && j < n && at(src, j) < 0x80 && at(src, j) != 37) {
      u8Cp = overlongGuess(lead, at(src, j));
      u8Used = j + 1 - i;
      return;
    }
  }
  u8Cp = lead; // Latin-1
  u8Used = 3;
}

/** Decodes one pass from src[0..n) into dst; returns the new length and sets decodeChanged. */
export function decodeOnce(src: usize, n: i32, dst: usize): i32 {
  let o = 0;
  let i = 0;
  let changed = false;
  while (i < n) {
    const c = at(src, i);
    if (c == 37) {
      // %uXXXX
      if (i + 5 < n && (at(src, i + 1) | 32) == 117 && isHex(at(src, i + 2)) && isHex(at(src, i + 3)) && isHex(at(src, i + 4)) && isHex(at(src, i + 5))) {
        const v = (hexVal(at(src, i + 2)) << 12) | (hexVal(at(src, i + 3)) << 8) | (hexVal(at(src, i + 4)) << 4) | hexVal(at(src, i + 5));
        o = put(dst, o, v);
        i += 6;
        changed = true;
        continue;
      }
      const b = pctByte(src, i, n);
      const ls = lenientSlash(src, i, n);
      if (ls >= 0) {
        o = put(dst, o, <u32>ls);
        i += lenUsed;
        changed = true;
        continue;
      }
      if (b >= 0) {
        changed = true;
        if (b < 0x80) {
          o = put(dst, o, <u32>b);
          i += 3;
        } else {
          decodeUtf8At(src, i, n, <u32>b);
          o = putCp(dst, o, u8Cp);
          i += u8Used;
        }
        continue;
      }
    } else if (c == 38 && i + 1 < n) {
      const c1 = at(src, i + 1);
      if (c1 == 35) {
        // &#... numeric reference, ';' optional
        let j = i + 2;
        let v: u32 = 0;
        let digits = 0;
        let big = false;
        if (j < n && (at(src, j) | 32) == 120) {
          j++;
          while (j < n && isHex(at(src, j))) {
            v = (v << 4) | hexVal(at(src, j));
            if (v > 0x10ffff) big = true;
            if (big) v = 0x110000;
            j++;
            digits++;
          }
        } else {
          while (j < n && isDigit(at(src, j))) {
            v = v * 10 + (at(src, j) - 48);
            if (v > 0x10ffff) big = true;
            if (big) v = 0x110000;
            j++;
            digits++;
          }
        }
        if (digits > 0) {
          if (j < n && at(src, j) == 59) j++;
          o = putCp(dst, o, v == 0 ? 0xfffd : v);
          i = j;
          changed = true;
          continue;
        }
      } else if (c1 < 0x80) {
        const m = matchEntity(src + ((<usize>i + 1) << 1), n - i - 1);
        if (m != 0) {
          o = putCp(dst, o, <u32>(m & 0x1fffff));
          const second = <u32>((m >> 21) & 0x1fffff);
          if (second != 0) o = putCp(dst, o, second);
          i += 1 + <i32>((m >> 42) & 0x3f);
          changed = true;
          continue;
        }
      }
    }
    if (c == 37 || c == 38) {
      o = put(dst, o, c);
      i++;
      continue;
    }
    // a plain run up to the next '%' or '&': one search and one copy
    const j = find2(src, i + 1, n, 37, 38);
    memory.copy(dst + (<usize>o << 1), src + (<usize>i << 1), <usize>(j - i) << 1);
    o += j - i;
    i = j;
  }
  decodeChanged = changed;
  return o;
}

/** True when decodeOnce would change something: used for the excess-encoding finding. */
export function hasDecodable(src: usize, n: i32): bool {
  if (punctValid(src, n)) {
    // the front pass's bitmap of '%' and '&': one bit per candidate, whatever the density
    const blocks = (n + 63) >> 6;
    for (let blk = 0; blk < blocks; blk++) if (decodableIn(src, n, blk << 6, punctWord(blk, P_DEC))) return true;
    return false;
  }
  for (let i = 0; i < n; i++) {
    i = find2(src, i, n, 37, 38);
    if (i >= n) return false;
    if (decodableAt(src, i, n)) return true;
  }
  return false;
}

/** Some '%' or '&' at base + (a set bit of `bits`) starts an escape decodeOnce decodes. */
export function decodableIn(src: usize, n: i32, base: i32, bits: u64): bool {
  while (bits != 0) {
    if (decodableAt(src, base + <i32>ctz(bits), n)) return true;
    bits &= bits - 1;
  }
  return false;
}

/** The '%' or '&' at i starts an escape decodeOnce decodes. */
@inline export function decodableAt(src: usize, i: i32, n: i32): bool {
  // every escape has a letter, a digit or '#' right after its '%' or '&' ("%%%%", "&&&&": one
  // look each, no call)
  if (i + 1 >= n) return false;
  const c1 = at(src, i + 1);
  if (!(isAlnumC(c1) || c1 == 35)) return false;
  const c = at(src, i);
  if (c == 37) {
    if (pctByte(src, i, n) >= 0 || lenientSlash(src, i, n) >= 0) return true;
    if (i + 5 < n && (c1 | 32) == 117 && isHex(at(src, i + 2)) && isHex(at(src, i + 3)) && isHex(at(src, i + 4)) && isHex(at(src, i + 5))) return true;
  } else if (c == 38) {
    if (c1 == 35) {
      let j = i + 2;
      if (j < n && (at(src, j) | 32) == 120) { if (j + 1 < n && isHex(at(src, j + 1))) return true; }
      else if (j < n && isDigit(at(src, j))) return true;
    } else if (c1 < 0x80 && matchEntity(src + ((<usize>i + 1) << 1), n - i - 1) != 0) return true;
  }
  return false;
}
