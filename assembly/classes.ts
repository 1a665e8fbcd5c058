// One pass per value computes which character classes occur; every detector is skipped when
// the characters it needs are absent, and the pipeline is skipped when nothing can decode or
// normalize. The answer can only be "no" (skip) or "maybe" (run the detector): never a miss.

export const C_LT: u32 = 1 << 0; // <
export const C_GT: u32 = 1 << 1; // >
export const C_SQ: u32 = 1 << 2; // '
export const C_DQ: u32 = 1 << 3; // "
export const C_BQ: u32 = 1 << 4; // `
export const C_LP: u32 = 1 << 5; // (
export const C_COLON: u32 = 1 << 6; // :
export const C_DOT: u32 = 1 << 7; // .
export const C_SLASH: u32 = 1 << 8; // /
export const C_BSLASH: u32 = 1 << 9; // \
export const C_PCT: u32 = 1 << 10; // %
export const C_AMP: u32 = 1 << 11; // &
export const C_SEMI: u32 = 1 << 12; // ;
export const C_EQ: u32 = 1 << 13; // =
export const C_HASH: u32 = 1 << 14; // #
export const C_DASH: u32 = 1 << 15; // -
export const C_STAR: u32 = 1 << 16; // *
export const C_PIPE: u32 = 1 << 17; // |
export const C_AT: u32 = 1 << 18; // @
export const C_DIGIT: u32 = 1 << 19;
export const C_ALPHA: u32 = 1 << 20;
export const C_PLUS: u32 = 1 << 21; // +
export const C_LBRACK: u32 = 1 << 22; // [
export const C_NUL: u32 = 1 << 23; // U+0000
export const C_NONASCII: u32 = 1 << 24;
export const C_RP: u32 = 1 << 25; // )
export const C_BANG: u32 = 1 << 26; // !
export const C_CTRL: u32 = 1 << 27; // other C0 controls
export const C_SPACE: u32 = 1 << 28; // space, tab, CR, LF
export const C_LBRACE: u32 = 1 << 29; // {
export const C_UNDERSCORE: u32 = 1 << 30; // _
export const C_DOLLAR: u32 = 1 << 31; // $

/** A value with '+' and no white space was form-encoded: '+' stands for a space. */
@inline export function plusIsSpace(mask: u32): bool {
  return (mask & (C_PLUS | C_SPACE)) == C_PLUS;
}

/**
 * Like plusIsSpace, but only a space (0x20) before the value's trailing ones says the value was
 * not form-encoded: a line break or tab may come from a decoded %0A or %09
 * ("x');%0Adrop+table+users--"), and a space at the end from a trailing "%20" ("x'+or+1=1-- ").
 * Reads p[0, n) once at most, and only when the value holds both '+' and white space.
 */
export function plusIsSpaceIn(p: usize, n: i32, mask: u32): bool {
  if ((mask & C_PLUS) == 0) return false;
  if ((mask & C_SPACE) == 0) return true;
  let e = n;
  while (e > 0 && load<u16>(p + (<usize>(e - 1) << 1)) == 32) e--;
  for (let i = 0; i < e; i++) if (load<u16>(p + (<usize>i << 1)) == 32) return false;
  return true;
}

import { splat8, initText } from './text';

export const TABLE = memory.data(128 * 4);
let ready = false;

/** Builds the class table (classify does it on first use; other readers of TABLE call this). */
export function classesInit(): void {
  if (!ready) build();
}

function build(): void {
  initText();
  for (let c = 0; c < 128; c++) {
    let m: u32 = 0;
    if (c == 60) m = C_LT;
    else if (c == 62) m = C_GT;
    else if (c == 39) m = C_SQ;
    else if (c == 34) m = C_DQ;
    else if (c == 96) m = C_BQ;
    else if (c == 40) m = C_LP;
    else if (c == 41) m = C_RP;
    else if (c == 58) m = C_COLON;
    else if (c == 46) m = C_DOT;
    else if (c == 47) m = C_SLASH;
    else if (c == 92) m = C_BSLASH;
    else if (c == 37) m = C_PCT;
    else if (c == 38) m = C_AMP;
    else if (c == 59) m = C_SEMI;
    else if (c == 61) m = C_EQ;
    else if (c == 35) m = C_HASH;
    else if (c == 45) m = C_DASH;
    else if (c == 42) m = C_STAR;
    else if (c == 124) m = C_PIPE;
    else if (c == 64) m = C_AT;
    else if (c == 43) m = C_PLUS;
    else if (c == 91) m = C_LBRACK;
    else if (c == 33) m = C_BANG;
    else if (c == 123) m = C_LBRACE;
    else if (c == 95) m = C_UNDERSCORE;
    else if (c == 36) m = C_DOLLAR;
    else if (c >= 48 && c <= 57) m = C_DIGIT;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) m = C_ALPHA;
    else if (c == 0) m = C_NUL;
    else if (c < 32 && c != 9 && c != 10 && c != 13) m = C_CTRL;
    else if (c == 32 || c == 9 || c == 10 || c == 13) m = C_SPACE;
    store<u32>(TABLE + (<usize>c << 2), m);
  }
  ready = true;
}

/** The classes present in p[0, n). */
export function classify(p: usize, n: i32): u32 {
  if (!ready) build();
  let m: u32 = 0;
  let i = 0;
  // sixteen units a step: letters, digits, spaces and non-ASCII by vector compares (they fill
  // most text); only the other lanes are looked up one by one
  if (n >= 16) {
    // the loop's vector constants (splat8: made once, not at every use)
    const cap = i16x8.extend_low_i8x16_u(splat8(0xff));
    const x20 = splat8(0x20);
    const c48 = splat8(48);
    const c9 = splat8(9);
    const c97 = splat8(97);
    const c25 = splat8(25);
    const zero = splat8(0);
    let anyAlpha = zero;
    let anyDigit = zero;
    let anySpace = zero;
    let anyHigh = zero;
    while (i + 16 <= n) {
      const q = p + (<usize>i << 1);
      const b = i8x16.narrow_i16x8_u(i16x8.min_u(v128.load(q), cap), i16x8.min_u(v128.load(q, 16), cap));
      const isAlpha = i8x16.le_u(i8x16.sub(v128.or(b, x20), c97), c25);
      const isDigit = i8x16.le_u(i8x16.sub(b, c48), c9);
      const isSpace = i8x16.eq(b, x20);
      const isHigh = i8x16.lt_s(b, zero);
      anyAlpha = v128.or(anyAlpha, isAlpha);
      anyDigit = v128.or(anyDigit, isDigit);
      anySpace = v128.or(anySpace, isSpace);
      anyHigh = v128.or(anyHigh, isHigh);
      let other = (~<u32>i8x16.bitmask(v128.or(v128.or(isAlpha, isDigit), v128.or(isSpace, isHigh)))) & 0xffff;
      while (other != 0) {
        const c = <usize>load<u16>(q + (<usize>ctz(other) << 1));
        other &= other - 1;
        m |= load<u32>(TABLE + (c << 2));
      }
      i += 16;
    }
    if (v128.any_true(anyAlpha)) m |= C_ALPHA;
    if (v128.any_true(anyDigit)) m |= C_DIGIT;
    if (v128.any_true(anySpace)) m |= C_SPACE;
    if (v128.any_true(anyHigh)) m |= C_NONASCII;
  }
  for (; i < n; i++) {
    const a = <u32>load<u16>(p + (<usize>i << 1));
    m |= a < 128 ? load<u32>(TABLE + (<usize>a << 2)) : C_NONASCII;
  }
  return m;
}
