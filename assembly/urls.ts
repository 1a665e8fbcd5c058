// A quick look for URLs the bindings must judge (ssrf-scan.ts): a scheme of a url-smuggling rule
// followed by '/' or '\', or a scheme of a url-internal rule whose authority is not a plain
// public DNS name. Values without one skip the bindings' URL check (the answer can only be "no"
// or "maybe"; the bindings decide). Linear: each ':' is read once, and an authority once.

import { at, lower, isAlpha, isDigit, findP, P_COLON } from './text';
import { K_URL_INTERNAL, K_URL_SMUGGLING, ruleWithWord, enabledRule } from './rules';

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

// Names the bindings judge although they look public (ssrf-scan.ts, WILDCARD_DNS and INWARD_NAMES:
// the same lists): wildcard DNS services that answer with the address written in front of them,
// and names that resolve to 127.0.0.1 or redirect inward. Picked by the host's last unit first
// (every URL of a text meets this: a loop over the whole list cost 2% of the 64 KB benign scan).

/** The host [s, e) is the name w or a name under it. */
@inline function under(s: i32, e: i32, w: string): bool {
  const b = e - w.length;
  return b >= s && hasAt(b, w) && (b == s || at(txt, b - 1) == 46);
}

function inwardSuffix(s: i32, e: i32): bool {
  switch (lower(at(txt, e - 1))) {
    case 111: return under(s, e, 'nip.io') || under(s, e, 'sslip.io') || under(s, e, 'xip.io'); // o
    case 101: return under(s, e, 'lvh.me') || under(s, e, 'localtest.me') || under(s, e, 'r3dir.me') ||
      under(s, e, 'vcap.me') || under(s, e, 'traefik.me'); // e
    case 116: return under(s, e, 'nip.direct') || under(s, e, 'spoofed.burpcollaborator.net'); // t
    case 109: return under(s, e, 'lacolhost.com'); // m
  }
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
    if (c == 47 || c == 63 || c == 35 || c <= 32) break;
    if (c == 58) {
      let d = k + 1;
      while (d < len && isDigit(at(txt, d))) d++;
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

/** p[a, a + l) and p[b, b + l) hold the same units. */
function sameUnits(a: i32, b: i32, l: i32): bool {
  for (let k = 0; k < l; k++) if (at(txt, a + k) != at(txt, b + k)) return false;
  return true;
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
  // the URL judged last (listed, or passed as a plain public name): its scheme start and its
  // length up to and with the unit that ended its authority (a terminator: the slashes after the
  // ':' are skipped before it), so equal text gets the same answer, which is a function of that
  // text; -1 when the value's end or MAX_URL ended the authority
  let prevS = -1;
  let prevLen = 0;
  let prevPlain = false; // the URL judged last was a plain public name
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
    if (prevS >= 0 && s + prevLen <= n && sameUnits(prevS, s, prevLen)) { i = prevPlain ? s + prevLen - 1 : i + 1; continue; }
    let hit = false;
    let judged = false;
    if (smuggling && ruleWithWord(K_URL_SMUGGLING, txt, s, i - s) >= 0) hit = judged = true;
    else if (internal && ruleWithWord(K_URL_INTERNAL, txt, s, i - s) >= 0) {
      hit = !plainPublic(i + 1);
      judged = true;
    }
    if (judged) {
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
    if (hit) {
      if (count < MAX_URLS) store<u32>(out + 4 + (<usize>count << 2), <u32>s);
      count++;
      if (count > MAX_URLS) break; // the bindings read on from the last one listed
    }
    i++;
  }
  store<u32>(out, <u32>count);
  return count;
}
