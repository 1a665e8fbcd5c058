// A quick look for URLs the bindings must judge (ssrf-scan.ts): a scheme of a url-smuggling rule
// followed by '/' or '\', or a scheme of a url-internal rule whose authority is not a plain
// public DNS name. Values without one skip the bindings' URL check (the answer can only be "no"
// or "maybe"; the bindings decide). Linear: each ':' is read once, and an authority once.

import { at, lower, isAlpha, isDigit, sameUnits, findP, P_COLON } from './text';
import { K_URL_INTERNAL, K_URL_SMUGGLING, ruleWithWord, enabledRule, firstRule, nextRule, ruleEnabled, paramCount, paramPtr, paramLen } from './rules';

let txt: usize = 0;
let len = 0;

/** Where the scheme ending at the ':' at `colon` starts (letters, digits, + - . after a letter), or colon. */
function schemeStart(colon: i32): i32 {
  let s = colon;
  while (s > 0 && colon - s < 16) {
    const c = at(txt, s - 1);
    if (isAlpha(c) || (s < colon && (isDigit(c) || c == 43 || c == 45 || c == 46))) { s--; continue; }
    break;
  }
  while (s < colon && !isAlpha(at(txt, s))) s++;
  return s;
}

@inline function hasAt(i: i32, w: string): bool {
  if (i + w.length > len) return false;
  for (let k = 0; k < w.length; k++) if (lower(at(txt, i + k)) != <u32>w.charCodeAt(k)) return false;
  return true;
}

/**
 * [s, e) contains a name validateUrl treats specially (localhost, metadata, instance-data) or an
 * IDN label (xn--), case-insensitively: one pass, each unit compared with the four first letters.
 */
function specialName(s: i32, e: i32): bool {
  for (let i = s; i < e; i++) {
    const c = lower(at(txt, i));
    if (c == 108 && i + 9 <= e && hasAt(i, 'localhost')) return true;
    if (c == 109 && i + 8 <= e && hasAt(i, 'metadata')) return true;
    if (c == 105 && i + 13 <= e && hasAt(i, 'instance-data')) return true;
    if (c == 120 && i + 4 <= e && hasAt(i, 'xn--')) return true;
  }
  return false;
}

// The host params of the url-internal rules (those holding a '.', "{ip}." dropped): wildcard DNS
// services that answer with the address written in front of them, and names that resolve or
// redirect inward. The bindings judge URLs under them although they look public (ssrf-scan.ts
// reads the same params), so the engine hands those over. Listed once per rule blob (init) and
// picked by the host's last unit (every URL of a text meets this: a loop over the whole list cost
// 2% of the 64 KB benign scan).
const MAX_NAMES = 64;
const NAMES = memory.data(MAX_NAMES * 12); // per name: rule (i32), param text (u32), length (i32)
const BY_LAST = memory.data(32 * 8); // per last unit (& 31): a bit per name that ends with it
let nameCount = 0;
let namesOverflow = false; // more host params than MAX_NAMES: every host is handed over

/** Lists the host params of the url-internal rules (after the rules are loaded). */
export function buildInwardNames(): void {
  for (let k: usize = 0; k < 32; k++) store<u64>(BY_LAST + (k << 3), 0);
  nameCount = 0;
  namesOverflow = false;
  let r = firstRule(K_URL_INTERNAL);
  while (r >= 0) {
    const count = paramCount(r);
    for (let k = 0; k < count; k++) {
      let p = paramPtr(r, k);
      let l = paramLen(r, k);
      let dot = false;
      for (let j = 0; j < l; j++) if (load<u8>(p + <usize>j) == 46) { dot = true; break; }
      if (!dot) continue; // a scheme
      // "{ip}.": a wildcard DNS service, handed over as any other name under it
      if (l > 5 && load<u8>(p) == 123 && lower(<u32>load<u8>(p, 1)) == 105 && lower(<u32>load<u8>(p, 2)) == 112 && load<u8>(p, 3) == 125 && load<u8>(p, 4) == 46) {
        p += 5;
        l -= 5;
      } else if (l > 2 && load<u8>(p) == 42 && load<u8>(p, 1) == 46) {
        // "*.": a zone (ssrf-scan.ts ZONE_PREFIX), handed over as a name
        p += 2;
        l -= 2;
      }
      if (nameCount == MAX_NAMES) { namesOverflow = true; continue; }
      const e = NAMES + <usize>nameCount * 12;
      store<i32>(e, r);
      store<u32>(e, <u32>p, 4);
      store<i32>(e, l, 8);
      const b = BY_LAST + (<usize>(lower(<u32>load<u8>(p + <usize>(l - 1))) & 31) << 3);
      store<u64>(b, load<u64>(b) | (<u64>1 << <u64>nameCount));
      nameCount++;
    }
    r = nextRule(r);
  }
}

/** The host [s, e) (ASCII) is a host param of an enabled url-internal rule or a name under one. */
function inwardSuffix(s: i32, e: i32): bool {
  if (namesOverflow) return true;
  let m = load<u64>(BY_LAST + (<usize>(lower(at(txt, e - 1)) & 31) << 3));
  while (m != 0) {
    const n = <usize>ctz(m);
    m &= m - 1;
    const ent = NAMES + n * 12;
    const l = load<i32>(ent, 8);
    const b = e - l;
    if (b < s || (b > s && at(txt, b - 1) != 46) || !ruleEnabled(load<i32>(ent))) continue;
    const p = <usize>load<u32>(ent, 4);
    let same = true;
    for (let j = 0; j < l; j++) if (lower(at(txt, b + j)) != lower(<u32>load<u8>(p + <usize>j))) { same = false; break; }
    if (same) return true;
  }
  return false;
}

/** [s, e) holds a '.' (a url-internal param with one is a host, not a scheme). */
function hasDot(s: i32, e: i32): bool {
  for (let k = s; k < e; k++) if (at(txt, k) == 46) return true;
  return false;
}

/**
 * The authority after "scheme:" at i is "//" and a plain public-looking DNS name (letters,
 * digits, '-' and '.', a last label with a letter, a first label not all digits, an optional
 * numeric port), none of the names validateUrl treats specially.
 */
function plainPublic(i: i32): bool {
  if (i + 1 >= len || at(txt, i) != 47 || at(txt, i + 1) != 47) return false;
  const hs = i + 2;
  let k = hs;
  let lastDot = -1;
  let letters = 0;
  while (k < len && k - hs < 256) {
    const c = at(txt, k);
    if (c == 47 || c <= 32) break;
    // '#': and an '@' before the first '/' or '?', which other parsers read as the end of a
    // userinfo ("http://public.com#@127.0.0.1/": the bindings judge that host)
    if (c == 35) {
      if (atBeforeSlash(k + 1)) return false;
      break;
    }
    if (c == 63) break;
    if (c == 58) {
      let d = k + 1;
      while (d < len && isDigit(at(txt, d))) d++;
      if (d < len && at(txt, d) == 35 && atBeforeSlash(d + 1)) return false;
      if (d < len && !(at(txt, d) == 47 || at(txt, d) == 63 || at(txt, d) == 35 || at(txt, d) <= 32)) return false;
      break;
    }
    if (isAlpha(c)) letters++;
    else if (c == 46) lastDot = k;
    else if (!(isDigit(c) || c == 45)) return false;
    k++;
  }
  const he = k;
  if (he - hs < 4 || lastDot < 0 || lastDot == he - 1 || letters == 0) return false;
  // a host longer than the part read is judged by the bindings
  if (he - hs >= 256) return false;
  let tldLetter = false;
  for (let t = lastDot + 1; t < he; t++) if (isAlpha(at(txt, t))) { tldLetter = true; break; }
  if (!tldLetter) return false;
  // a last label WHATWG reads as a number ("0x", then hex digits) makes the host an IPv4
  // address (0x7f.0x1 is 127.0.0.1)
  if (hexNumberLabel(lastDot + 1, he)) return false;
  let d = hs;
  while (d < he && isDigit(at(txt, d))) d++;
  if (d == he || at(txt, d) == 46) return false;
  if (specialName(hs, he) || inwardSuffix(hs, he)) return false;
  if ((he - hs >= 9 && hasAt(he - 9, '.internal')) || (he - hs >= 6 && hasAt(he - 6, '.local'))) return false;
  return true;
}

/** An '@' at or after i, before a '/', '?', white space or the end (at most 512 units: ssrf-scan.ts differentialHost). */
function atBeforeSlash(i: i32): bool {
  const stop = i + 512 < len ? i + 512 : len;
  for (let k = i; k < stop; k++) {
    const c = at(txt, k);
    if (c == 64) return true;
    if (c == 47 || c == 63 || c <= 32) return false;
  }
  return false;
}

export const MAX_URLS = 16; // candidate URLs listed per value; more: the bindings read on from the last
const MAX_URL = 4096; // the bindings judge a URL on its first 4096 units (ssrf-scan.ts MAX_URL)

/**
 * Where the bindings' authority of the URL whose scheme starts at s ends (ssrf-scan.ts
 * authorityEnd over the URL's text): past the slashes after the ':' at i - 1, at the next
 * '/' '\' '?' '#', at what ends a URL written in text (white space and controls, quotes, '<' '>'
 * '`'), or MAX_URL units from s.
 */
function authorityEnd(s: i32, i: i32): i32 {
  const end = s + MAX_URL < len ? s + MAX_URL : len;
  let k = i;
  while (k < end && (at(txt, k) == 47 || at(txt, k) == 92)) k++;
  while (k < end) {
    const c = at(txt, k);
    if (c == 47 || c == 92 || c == 63 || c == 35 || c <= 32 || c == 34 || c == 39 || c == 60 || c == 62 || c == 96) break;
    k++;
  }
  return k;
}

/** txt[s, e) is "0x" or "0X" followed by hex digits only (WHATWG's IPv4 number in hex). */
function hexNumberLabel(s: i32, e: i32): bool {
  if (e - s < 2 || at(txt, s) != 48 || lower(at(txt, s + 1)) != 120) return false;
  for (let t = s + 2; t < e; t++) {
    const c = at(txt, t);
    if (!(isDigit(c) || lower(c) - 97 < 6)) return false;
  }
  return true;
}


// The scheme of a value that is one URL, tabs and line breaks left out (wholeValueUrl).
const SCHEME_BUF = memory.data(16 * 2);

@inline function isTabOrBreak(c: u32): bool {
  return c == 9 || c == 10 || c == 13;
}

/**
 * The value is one URL of a url-internal scheme that WHATWG parsing reads otherwise than the
 * text shows: `fetch(value)` and `new URL(value)` drop every tab, LF and CR ("http://loc\talhost/"),
 * take a special scheme without slashes ("http:127.0.0.1"), and let white space stand in the
 * userinfo ("http://public.com @127.0.0.1/"). Leading and trailing controls and spaces aside (the
 * parser trims them). Returns where the scheme starts (the bindings judge the whole value from
 * there), or -1: no such scheme, a value longer than MAX_URL, or nothing WHATWG reads otherwise
 * (the walk below judges it). Reads the value's leading and trailing white space, a scheme of at
 * most 16 units, and at most MAX_URL units after it.
 */
function wholeValueUrl(): i32 {
  let i = 0;
  while (i < len && at(txt, i) <= 32) i++;
  const s = i;
  let l = 0;
  let odd = false;
  while (i < len && l < 16 && i - s < 64) {
    const c = at(txt, i);
    if (isTabOrBreak(c)) { odd = true; i++; continue; }
    if (isAlpha(c) || (l > 0 && (isDigit(c) || c == 43 || c == 45 || c == 46))) { l++; i++; continue; }
    break;
  }
  if (l == 0 || i >= len || at(txt, i) != 58) return -1;
  let e = len;
  while (e > i && at(txt, e - 1) <= 32) e--;
  if (e - s > MAX_URL) return -1;
  if (!odd) {
    if (ruleWithWord(K_URL_INTERNAL, txt, s, l) < 0) return -1;
  } else {
    // the scheme without its tabs and line breaks
    let m = 0;
    for (let t = s; t < i; t++) {
      const c = at(txt, t);
      if (!isTabOrBreak(c)) { store<u16>(SCHEME_BUF + (<usize>m << 1), <u16>c); m++; }
    }
    if (ruleWithWord(K_URL_INTERNAL, SCHEME_BUF, 0, m) < 0) return -1;
  }
  let k = i + 1;
  while (k < e && isTabOrBreak(at(txt, k))) { odd = true; k++; }
  if (k >= e) return -1;
  const c = at(txt, k);
  if (c != 47 && c != 92) return s; // "http:127.0.0.1"
  if (!odd) {
    for (let t = k; t < e; t++) {
      const u = at(txt, t);
      if (isTabOrBreak(u) || u == 32) { odd = true; break; }
    }
  }
  return odd ? s : -1;
}

/**
 * The URLs in p[0, n) that need the bindings' judgement: their scheme starts, at most MAX_URLS,
 * written as {u32 count, u32 start x MAX_URLS} at `out` (count may exceed MAX_URLS: the bindings
 * then judge everything from the last start listed). Returns the count. A URL whose scheme and
 * authority are the same text as the URL listed last is not listed again: the bindings' verdict
 * is a function of that text, and the first of them is the one a finding would name. (A run of
 * one URL repeated, "http://a/http://a/...", is one candidate, not a walk through all of them.)
 */
export function urlCandidates(p: usize, n: i32, out: usize): i32 {
  txt = p;
  len = n;
  store<u32>(out, 0);
  const internal = enabledRule(K_URL_INTERNAL) >= 0;
  const smuggling = enabledRule(K_URL_SMUGGLING) >= 0;
  if (!internal && !smuggling) return 0;
  let count = 0;
  // a value that is one URL WHATWG reads otherwise than the text shows: listed first (the bindings
  // judge the whole value from its start, then the URL as written), and not again below
  const whole = internal ? wholeValueUrl() : -1;
  if (whole >= 0) {
    store<u32>(out + 4, <u32>whole);
    count = 1;
  }
  // the URL judged last (listed, or passed as a plain public name): its scheme start and its
  // length up to and with the unit that ended its authority (a terminator: the slashes after the
  // ':' are skipped before it), so equal text gets the same answer, which is a function of that
  // text; -1 when the value's end or MAX_URL ended the authority
  let prevS = -1;
  let prevLen = 0;
  let prevPlain = false; // the URL judged last was a plain public name
  // the last scheme neither rule lists (its start and length, -1: none): the same text again is
  // no scheme of theirs either ("data://data://...": two rule lookups at every ':')
  let rejS = -1;
  let rejLen = 0;
  let i = 0;
  while (i < n) {
    i = findP(txt, i, n, P_COLON, 58, 58, 58, 58);
    if (i + 1 >= n) break;
    const next = at(txt, i + 1);
    if (next != 47 && next != 92) { i++; continue; }
    const s = schemeStart(i);
    if (s == i) { i++; continue; }
    // the same text as the URL judged last: passed, or listed already (see above); past a plain
    // public name's authority, as below
    if (prevS >= 0 && s + prevLen <= n && sameUnits(txt, prevS, s, prevLen)) { i = prevPlain ? s + prevLen - 1 : i + 1; continue; }
    if (rejS >= 0 && i - s == rejLen && sameUnits(txt, rejS, s, rejLen)) { i++; continue; }
    let hit = false;
    let judged = false;
    if (smuggling && ruleWithWord(K_URL_SMUGGLING, txt, s, i - s) >= 0) hit = judged = true;
    else if (internal && ruleWithWord(K_URL_INTERNAL, txt, s, i - s) >= 0 && !hasDot(s, i)) {
      hit = !plainPublic(i + 1);
      judged = true;
    }
    if (!judged) {
      rejS = s;
      rejLen = i - s;
    } else {
      const ae = authorityEnd(s, i + 1);
      if (ae >= n || ae - s >= MAX_URL) prevS = -1;
      else {
        prevS = s;
        prevLen = ae + 1 - s;
        prevPlain = !hit;
      }
      // a plain public name: the search goes on past its authority (a ':' of its port is no
      // scheme: "http://ab.123456789.gopher:/x")
      if (!hit && ae > i + 1) { i = ae; continue; }
    }
    if (hit && s != whole) {
      if (count < MAX_URLS) store<u32>(out + 4 + (<usize>count << 2), <u32>s);
      count++;
      if (count > MAX_URLS) break; // the bindings read on from the last one listed
    }
    i++;
  }
  store<u32>(out, <u32>count);
  return count;
}
