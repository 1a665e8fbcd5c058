// NFKC per code point plus removal of default-ignorable code points, from the generated table.
// ASCII never changes and is copied without a table load.

import { at } from './text';
import { foldLookup, foldPool, FOLD_SAME } from './tables/fold';

export let foldChanged = false;

// The width in units of the code point codePointAt read last (1, or 2 for a surrogate pair).
let cpWidth = 1;

/** The code point at src[i], whose unit is c (>= 0x80): a surrogate pair read whole, its width in cpWidth. */
@inline function codePointAt(src: usize, i: i32, n: i32, c: u32): u32 {
  if (c - 0xd800 < 0x400 && i + 1 < n && at(src, i + 1) - 0xdc00 < 0x400) {
    cpWidth = 2;
    return 0x10000 + ((c - 0xd800) << 10) + (at(src, i + 1) - 0xdc00);
  }
  cpWidth = 1;
  return c;
}

/**
 * Some unit of src[0..n) changes under foldInto (a non-ASCII code point whose NFKC form differs, or
 * a default-ignorable one): one table pass, eight ASCII units a step. Text that is already folded
 * (most non-ASCII text) then needs neither foldLength nor foldInto.
 */
export function foldNeeded(src: usize, n: i32): bool {
  const hi = i16x8.splat(0x7f);
  let i = 0;
  while (i < n) {
    // past ASCII eight units at a time
    while (i + 8 <= n && !v128.any_true(i16x8.gt_u(v128.load(src + (<usize>i << 1)), hi))) i += 8;
    if (i >= n) break;
    const c = at(src, i);
    if (c < 0x80) { i++; continue; }
    const cp = codePointAt(src, i, n, c);
    const w = cpWidth;
    if (foldLookup(cp) != FOLD_SAME) return true;
    i += w;
  }
  return false;
}

/** Exact output length of foldInto for src[0..n). */
export function foldLength(src: usize, n: i32): i32 {
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = at(src, i);
    if (c < 0x80) { o++; continue; }
    const cp = codePointAt(src, i, n, c);
    const w = cpWidth;
    const e = foldLookup(cp);
    o += e == FOLD_SAME ? w : <i32>(e & 31);
    i += w - 1;
  }
  return o;
}

// Where foldInto stopped when the result would not fit: the next unit of src to fold, the units
// written, and whether those changed anything (foldInto can go on from there).
export let foldStopIn = 0;
export let foldStopOut = 0;
export let foldStopChanged = false;

/**
 * Folds src[i0..n) into dst from dst[o0] on (dst[0..o0) already holds src[0..i0) folded, with a
 * change among them when changed0), dst having room for `room` units; returns the length and sets
 * foldChanged, or returns -1 when the result would not fit (room at least foldLength: it fits),
 * leaving where it stopped in foldStopIn, foldStopOut and foldStopChanged.
 */
export function foldInto(src: usize, n: i32, dst: usize, room: i32, i0: i32, o0: i32, changed0: bool): i32 {
  const pool = foldPool();
  let o = o0;
  let changed = changed0;
  for (let i = i0; i < n; i++) {
    const c = at(src, i);
    if (c < 0x80) {
      if (o >= room) { foldStopIn = i; foldStopOut = o; foldStopChanged = changed; return -1; }
      store<u16>(dst + (<usize>o << 1), <u16>c);
      o++;
      continue;
    }
    const cp = codePointAt(src, i, n, c);
    const w = cpWidth;
    const e = foldLookup(cp);
    // (a code point adds at most 31 units: the exact test only near the end of the room)
    if (o + 31 > room && o + (e == FOLD_SAME ? w : <i32>(e & 31)) > room) { foldStopIn = i; foldStopOut = o; foldStopChanged = changed; return -1; }
    if (e == FOLD_SAME) {
      store<u16>(dst + (<usize>o << 1), <u16>c);
      o++;
      if (w == 2) {
        store<u16>(dst + (<usize>o << 1), <u16>at(src, i + 1));
        o++;
      }
    } else {
      const len = <i32>(e & 31);
      const off = <usize>(e >> 5);
      for (let k = 0; k < len; k++) {
        store<u16>(dst + (<usize>o << 1), load<u16>(pool + ((off + <usize>k) << 1)));
        o++;
      }
      changed = true;
    }
    i += w - 1;
  }
  foldChanged = changed;
  return o;
}
