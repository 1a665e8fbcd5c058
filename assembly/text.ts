// Character helpers over UTF-16 code units. ASCII-only case folding: detection compares
// against ASCII keywords, and NFKC has already mapped look-alike forms to ASCII.

@inline export function lower(c: u32): u32 {
  return c - 65 < 26 ? c | 32 : c;
}

@inline export function isAlpha(c: u32): bool {
  return (c | 32) - 97 < 26;
}

@inline export function isDigit(c: u32): bool {
  return c - 48 < 10;
}

@inline export function isAlnum(c: u32): bool {
  return isAlpha(c) || isDigit(c);
}

/**
 * A path-file entry's end boundary (literals.ts for plain entries, path.ts for anchored ones):
 * the entry w[0, wl) matched up to e; one that ends in '/' or '_' is a prefix ('^/etc/',
 * '^/tmp/sess_'), any other must not go on with a letter or digit ("etc/passwords"), nor, for an
 * entry without a dot (no extension, no dotfile: "etc/passwd", "id_rsa"), with '-' and a letter:
 * a URL slug ("/etc/passwd-reset"); with a dot it may, once ("wp-config.php-bak", ".env-production"
 * are copies of the file), but not as a slug of two or more words ("/blog/.env-files-explained").
 */
export function fileEntryEnds(t: usize, n: i32, e: i32, w: usize, wl: i32): bool {
  const last = <u32>load<u8>(w + wl - 1);
  if (e >= n || last == 47 || last == 95) return true;
  const c = at(t, e);
  if (c != 45) return !isAlnum(c);
  if (!(e + 1 < n && isAlpha(at(t, e + 1)))) return true; // "/etc/passwd-", the backup
  let dotted = false;
  for (let k = 0; k < wl; k++) if (load<u8>(w + k) == 46) { dotted = true; break; }
  if (!dotted) return false;
  // a second '-' and a letter after the first word: a slug
  let k = e + 1;
  while (k < n && k - e < 40 && isAlnum(at(t, k))) k++;
  return !(k + 1 < n && at(t, k) == 45 && isAlpha(at(t, k + 1)));
}

@inline export function isHex(c: u32): bool {
  return c - 48 < 10 || (c | 32) - 97 < 6;
}

@inline export function hexVal(c: u32): u32 {
  return c <= 57 ? c - 48 : (c | 32) - 87;
}

/** ASCII white space: space, tab, LF, VT, FF, CR (VT is one more than browsers skip; it only widens detection). */
@inline export function isSpace(c: u32): bool {
  return c == 32 || c - 9 < 5;
}

/** p[a, a + l) and p[b, b + l) hold the same units. */
export function sameUnits(p: usize, a: i32, b: i32, l: i32): bool {
  for (let k = 0; k < l; k++) if (at(p, a + k) != at(p, b + k)) return false;
  return true;
}

/** Word characters of identifiers in SQL, shell and JS. */
@inline export function isWord(c: u32): bool {
  return isAlnum(c) || c == 95 || c == 36 || c >= 0x80;
}

@inline export function at(p: usize, i: i32): u32 {
  return <u32>load<u16>(p + (<usize>i << 1));
}

/** p[s, s + l) is the lower-case ASCII word w, case-insensitively (false when the lengths differ). */
@inline export function lowerWordIs(p: usize, s: i32, l: i32, w: string): bool {
  if (l != w.length) return false;
  for (let j = 0; j < l; j++) if (lower(at(p, s + j)) != <u32>w.charCodeAt(j)) return false;
  return true;
}

/** A literal (ASCII, lower case) equals p[i, i+wl) case-insensitively (the caller has checked that the text is long enough). */
@inline export function lowerLiteralIs(p: usize, i: i32, w: usize, wl: i32): bool {
  for (let j = 0; j < wl; j++) if (lower(at(p, i + j)) != <u32>load<u8>(w + j)) return false;
  return true;
}

/**
 * A literal (ASCII, lower case) equals p[i, i+wl) case-insensitively, a '/' in the literal
 * matching '/' or '\\' in the text (path literals are written with '/').
 */
export function pathLiteralAt(p: usize, n: i32, i: i32, w: usize, wl: i32): bool {
  if (i + wl > n) return false;
  for (let j = 0; j < wl; j++) {
    const pc = <u32>load<u8>(w + j);
    const c = lower(at(p, i + j));
    if (pc == 47) { if (c != 47 && c != 92) return false; }
    else if (pc != c) return false;
  }
  return true;
}

/** FNV-1a over lower-cased ASCII units; used for keyword-set lookups. */
export function hashLower(p: usize, i: i32, len: i32): u32 {
  let h: u32 = 2166136261;
  for (let k = 0; k < len; k++) {
    h = (h ^ lower(at(p, i + k))) * 16777619;
  }
  return h;
}

export function hashBytes(p: usize, len: i32): u32 {
  let h: u32 = 2166136261;
  for (let k = 0; k < len; k++) {
    h = (h ^ <u32>load<u8>(p + k)) * 16777619;
  }
  return h;
}

// ASCII class table for the lexers: bit 0 space, bit 1 word character (letters, digits, _ and $),
// bit 2 digit, bit 3 letter.
const CLS = memory.data(128);
let clsReady = false;

function buildCls(): void {
  for (let c: u32 = 0; c < 128; c++) {
    let m: u8 = 0;
    if (c == 32 || (c >= 9 && c <= 13)) m |= 1;
    if ((c | 32) - 97 < 26) m |= 2 | 8;
    if (c - 48 < 10) m |= 2 | 4;
    if (c == 95 || c == 36) m |= 2;
    store<u8>(CLS + c, m);
  }
  clsReady = true;
}

export function initText(): void {
  if (!clsReady) buildCls();
  for (let v = 0; v < 256; v++) store<u8>(BYTE_VALUES + v, <u8>v);
}

// Each byte value at its own index. V8 materializes a constant vector at every use inside a
// loop (three instructions each); a vector splatted from memory before the loop is held in a
// register or one load away. Hot loops take their constants from splat8 (initText fills this).
const BYTE_VALUES = memory.data(256);

/** Sixteen lanes of byte v, read from memory (for a loop's constants: call it before the loop). */
@inline export function splat8(v: i32): v128 {
  return i8x16.splat(<i8>load<u8>(BYTE_VALUES + <usize>v));
}

/** splat8 for eight 16-bit lanes (v below 256). */
@inline export function splat16(v: i32): v128 {
  return i16x8.extend_low_i8x16_u(splat8(v));
}

/** Lexer class bits of a unit; non-ASCII counts as a word character, U+00A0 as space. */
@inline export function cls(c: u32): u32 {
  return c < 128 ? <u32>load<u8>(CLS + c) : (c == 0xa0 ? 1 : 2);
}


// SIMD searches: eight UTF-16 units per step. They return the index of the first unit at or
// after i that is one of the characters asked for, or n.

/** Next c in p[i, n). */
export function find1(p: usize, i: i32, n: i32, c: u32): i32 {
  const v = i16x8.splat(<i16>c);
  // the first eight units, then 32 per step while nothing is found (one any_true for four
  // compares: a bitmask per eight units cost most of a pass over long text; a hit nearby, as in
  // dense input, is found before that), then eight at a time to the unit
  if (i + 8 <= n) {
    const m = i16x8.bitmask(i16x8.eq(v128.load(p + (<usize>i << 1)), v));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i + 32 <= n) {
    const q = p + (<usize>i << 1);
    const a = v128.or(i16x8.eq(v128.load(q), v), i16x8.eq(v128.load(q, 16), v));
    const b = v128.or(i16x8.eq(v128.load(q, 32), v), i16x8.eq(v128.load(q, 48), v));
    if (v128.any_true(v128.or(a, b))) break;
    i += 32;
  }
  while (i + 8 <= n) {
    const m = i16x8.bitmask(i16x8.eq(v128.load(p + (<usize>i << 1)), v));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i < n && at(p, i) != c) i++;
  return i;
}

/** Next c in p[i, n), the first four units looked at one by one (dense input: no vector search per hit). */
@inline export function find1Near(p: usize, i: i32, n: i32, c: u32): i32 {
  const stop = i + 4 < n ? i + 4 : n;
  for (; i < stop; i++) if (at(p, i) == c) return i;
  return i < n ? find1(p, i, n, c) : n;
}

/** Last c in p[0, n), or -1. */
export function lastOf(p: usize, n: i32, c: u32): i32 {
  const v = i16x8.splat(<i16>c);
  let i = n;
  while (i >= 8) {
    const m = i16x8.bitmask(i16x8.eq(v128.load(p + (<usize>(i - 8) << 1)), v));
    if (m != 0) return i - 8 + 31 - <i32>clz(m);
    i -= 8;
  }
  while (i > 0) {
    i--;
    if (at(p, i) == c) return i;
  }
  return -1;
}

/** Next c1 or c2 in p[i, n). */
export function find2(p: usize, i: i32, n: i32, c1: u32, c2: u32): i32 {
  const v1 = i16x8.splat(<i16>c1);
  const v2 = i16x8.splat(<i16>c2);
  if (i + 8 <= n) {
    const w = v128.load(p + (<usize>i << 1));
    const m = i16x8.bitmask(v128.or(i16x8.eq(w, v1), i16x8.eq(w, v2)));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i + 32 <= n) {
    const q = p + (<usize>i << 1);
    const w0 = v128.load(q);
    const w1 = v128.load(q, 16);
    const w2 = v128.load(q, 32);
    const w3 = v128.load(q, 48);
    const a = v128.or(v128.or(i16x8.eq(w0, v1), i16x8.eq(w0, v2)), v128.or(i16x8.eq(w1, v1), i16x8.eq(w1, v2)));
    const b = v128.or(v128.or(i16x8.eq(w2, v1), i16x8.eq(w2, v2)), v128.or(i16x8.eq(w3, v1), i16x8.eq(w3, v2)));
    if (v128.any_true(v128.or(a, b))) break;
    i += 32;
  }
  while (i + 8 <= n) {
    const w = v128.load(p + (<usize>i << 1));
    const m = i16x8.bitmask(v128.or(i16x8.eq(w, v1), i16x8.eq(w, v2)));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i < n) {
    const c = at(p, i);
    if (c == c1 || c == c2) return i;
    i++;
  }
  return i;
}

/** Next c1, c2, c3 or c4 in p[i, n) (repeat a character to ask for fewer). */
export function find4(p: usize, i: i32, n: i32, c1: u32, c2: u32, c3: u32, c4: u32): i32 {
  const v1 = i16x8.splat(<i16>c1);
  const v2 = i16x8.splat(<i16>c2);
  const v3 = i16x8.splat(<i16>c3);
  const v4 = i16x8.splat(<i16>c4);
  while (i + 8 <= n) {
    const w = v128.load(p + (<usize>i << 1));
    const m = i16x8.bitmask(v128.or(v128.or(i16x8.eq(w, v1), i16x8.eq(w, v2)), v128.or(i16x8.eq(w, v3), i16x8.eq(w, v4))));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i < n) {
    const c = at(p, i);
    if (c == c1 || c == c2 || c == c3 || c == c4) return i;
    i++;
  }
  return i;
}

/** Next i in p[i, n - 1) with p[i] == p[i + 1] == c, or n. */
export function findPair(p: usize, i: i32, n: i32, c: u32): i32 {
  const v = i16x8.splat(<i16>c);
  while (i + 9 <= n) {
    const q = p + (<usize>i << 1);
    const m = i16x8.bitmask(v128.and(i16x8.eq(v128.load(q), v), i16x8.eq(v128.load(q, 2), v)));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i + 1 < n) {
    if (at(p, i) == c && at(p, i + 1) == c) return i;
    i++;
  }
  return n;
}

/** The first unit of p[i, n) that is not ' ' or one of \t \n \v \f \r (cls bit 1 in ASCII), or n: eight at a time. */
export function skipBlanks(p: usize, i: i32, n: i32): i32 {
  const k32 = i16x8.splat(32);
  const k9 = i16x8.splat(9);
  const k4 = i16x8.splat(4);
  while (i + 8 <= n) {
    const v = v128.load(p + (<usize>i << 1));
    const other = ~i16x8.bitmask(v128.or(i16x8.eq(v, k32), i16x8.le_u(i16x8.sub(v, k9), k4))) & 0xff;
    if (other != 0) return i + <i32>ctz(other);
    i += 8;
  }
  while (i < n) {
    const c = at(p, i);
    if (!(c == 32 || c - 9 <= 4)) return i;
    i++;
  }
  return n;
}

/** How many units of p[0, n) equal c. */
export function countOf(p: usize, n: i32, c: u32): i32 {
  const v = i16x8.splat(<i16>c);
  let total = 0;
  let i = 0;
  while (i + 8 <= n) {
    total += <i32>popcnt(i16x8.bitmask(i16x8.eq(v128.load(p + (<usize>i << 1)), v)));
    i += 8;
  }
  for (; i < n; i++) if (at(p, i) == c) total++;
  return total;
}

/** The units of p[0, n) equal to any of c1..c4, eight at a time (one pass). */
export function countOf4(p: usize, n: i32, c1: u32, c2: u32, c3: u32, c4: u32): i32 {
  const v1 = i16x8.splat(<i16>c1);
  const v2 = i16x8.splat(<i16>c2);
  const v3 = i16x8.splat(<i16>c3);
  const v4 = i16x8.splat(<i16>c4);
  let total = 0;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const v = v128.load(p + (<usize>i << 1));
    const m = v128.or(v128.or(i16x8.eq(v, v1), i16x8.eq(v, v2)), v128.or(i16x8.eq(v, v3), i16x8.eq(v, v4)));
    total += <i32>popcnt(i16x8.bitmask(m));
  }
  for (; i < n; i++) {
    const c = at(p, i);
    if (c == c1 || c == c2 || c == c3 || c == c4) total++;
  }
  return total;
}

/**
 * JavaScript's white space and line terminators beyond ASCII that NFKC leaves as they are
 * (U+1680, U+2028, U+2029; it makes U+2000-U+200A, U+205F, U+3000 and U+00A0 a plain space).
 */
@inline export function jsSpace(c: u32): bool {
  return c == 0x1680 || c == 0x2028 || c == 0x2029;
}

/** Unicode spaces: what browsers and URL parsers trim, and JavaScript's non-ASCII white space and line terminators. */
@inline export function isUniSpace(c: u32): bool {
  return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
    c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

// The JavaScript escape jsEscapeIn read last: its value, and its length in units.
export let escVal: u32 = 0;
export let escLen = 0;

/**
 * A JavaScript escape at p[i] (before end): \xHH, \uHHHH, \u{H...} (leading zeros allowed, at
 * most 16 digits read, up to U+10FFFF; 'x' and 'u' in either case), and with `octal` one to three
 * octal digits up to \377, else only \0 (two units, whatever follows). Sets escVal and escLen.
 */
export function jsEscapeIn(p: usize, i: i32, end: i32, octal: bool): bool {
  if (i + 1 >= end || at(p, i) != 92) return false;
  const d = at(p, i + 1);
  const k = d | 32;
  if (k == 120) {
    if (i + 3 >= end || !isHex(at(p, i + 2)) || !isHex(at(p, i + 3))) return false;
    escVal = (hexVal(at(p, i + 2)) << 4) | hexVal(at(p, i + 3));
    escLen = 4;
    return true;
  }
  if (k == 117) {
    if (i + 2 < end && at(p, i + 2) == 123) {
      let e = i + 3;
      let v: u32 = 0;
      while (e < end && e - i - 3 < 16 && v <= 0x10ffff && isHex(at(p, e))) { v = (v << 4) | hexVal(at(p, e)); e++; }
      if (e == i + 3 || e >= end || at(p, e) != 125 || v > 0x10ffff) return false;
      escVal = v;
      escLen = e + 1 - i;
      return true;
    }
    if (i + 5 >= end || !isHex(at(p, i + 2)) || !isHex(at(p, i + 3)) || !isHex(at(p, i + 4)) || !isHex(at(p, i + 5))) return false;
    escVal = (hexVal(at(p, i + 2)) << 12) | (hexVal(at(p, i + 3)) << 8) | (hexVal(at(p, i + 4)) << 4) | hexVal(at(p, i + 5));
    escLen = 6;
    return true;
  }
  if (d - 48 >= 8) return false;
  if (!octal) {
    if (d != 48) return false;
    escVal = 0;
    escLen = 2;
    return true;
  }
  // octal: up to three digits while the value stays at most 0o377
  let v = d - 48;
  let e = i + 2;
  while (e < end && e - i - 1 < 3 && at(p, e) - 48 < 8 && (v << 3) + (at(p, e) - 48) <= 255) { v = (v << 3) + (at(p, e) - 48); e++; }
  escVal = v;
  escLen = e - i;
  return true;
}

// Punctuation bitmaps, set by the literal pass for the text it scanned: per set of characters
// (P_QUOTE " ' `, P_SQL ; = *, P_COLON, P_DOT, P_LT, P_CMD ; & | LF, P_DEC % &), one bit per
// unit. While they are valid for the same text (same pointer and length) the detectors'
// searches walk these bits instead of the text; everything else falls back to the vector
// searches above.
export const P_QUOTE = 0;
export const P_SQL = 1;
export const P_COLON = 2;
export const P_DOT = 3;
export const P_LT = 4;
export const P_CMD = 5;
export const P_DEC = 6;
export const P_SETS = 7;

let punctBits: usize = 0; // P_SETS u64 per 64 units
let punctTxt: usize = 0;
let punctLen: i32 = -1;

export function punctSet(bits: usize, p: usize, n: i32): void {
  punctBits = bits;
  punctTxt = p;
  punctLen = n;
}

/** Forgets the bitmaps (a new value, batch or text may reuse the same memory). */
export function punctReset(): void {
  punctLen = -1;
}

/** The punctuation bitmaps describe p[0, n) (findP walks them instead of the text). */
@inline export function punctValid(p: usize, n: i32): bool {
  return p == punctTxt && n == punctLen;
}

/** The bits of set `set` for units [blk * 64, blk * 64 + 64) (the bitmaps must be valid: punctValid). */
@inline export function punctWord(blk: i32, set: i32): u64 {
  return load<u64>(punctBits + ((<usize>blk * P_SETS + <usize>set) << 3));
}

/** Next unit of set `set` in p[i, n), or n. `c1`..`c4`: the same characters, for the fallback search. */
@inline export function findP(p: usize, i: i32, n: i32, set: i32, c1: u32, c2: u32, c3: u32, c4: u32): i32 {
  if (!punctValid(p, n)) return find4(p, i, n, c1, c2, c3, c4);
  if (i >= n) return n;
  let blk = i >> 6;
  let w = load<u64>(punctBits + ((<usize>blk * P_SETS + <usize>set) << 3)) >> <u64>(i & 63);
  if (w != 0) return i + <i32>ctz(w);
  const blocks = (n + 63) >> 6;
  for (blk++; blk < blocks; blk++) {
    w = load<u64>(punctBits + ((<usize>blk * P_SETS + <usize>set) << 3));
    if (w != 0) return (blk << 6) + <i32>ctz(w);
  }
  return n;
}

/** Next i in p[i, n - 1) with p[i] == p[i + 1] == '.', or n. */
export function findDots(p: usize, i: i32, n: i32): i32 {
  if (!punctValid(p, n)) return findPair(p, i, n, 46);
  if (i >= n) return n;
  // the dots of each 64-unit block that the next unit (the next block's first, at the block's
  // end) is a dot too: one AND per block, not a look at every dot (prose has many)
  const blocks = (n + 63) >> 6;
  let blk = i >> 6;
  let w = punctWord(blk, P_DOT);
  let first = true;
  while (true) {
    const next: u64 = blk + 1 < blocks ? punctWord(blk + 1, P_DOT) : 0;
    let pairs = w & ((w >> 1) | (next << 63));
    if (first) { pairs &= <u64>-1 << <u64>(i & 63); first = false; }
    if (pairs != 0) return (blk << 6) + <i32>ctz(pairs);
    if (++blk >= blocks) return n;
    w = next;
  }
  return n;
}
