// Open-redirect checks for user-supplied redirect targets (issue 3).
//
// A target is judged the way a browser reads a Location header: resolved against a base origin,
// after the browser's own clean-ups (tab and newline removed, backslash read as slash). It is also
// judged after each of up to 3 rounds of percent-decoding, because the target often passes
// through another hop (a login page's `next=`, a proxy) that decodes it once more.

import { compileHostList, hostListed, rawAuthorityHasAt, type HostList } from './ssrf.js';

/** Why a redirect target was refused; see the table in README ("Redirect targets"). */
export type RedirectRejection =
  | 'invalid'
  | 'control-char'
  | 'scheme'
  | 'protocol-relative'
  | 'userinfo'
  | 'host-not-allowed'
  | 'cross-origin'
  | 'excess-encoding';

/** Options of validateRedirect: hosts an absolute http(s) target may name (exact or `*.suffix`). */
export interface RedirectCheckOptions {
  allowedHosts?: readonly string[];
}

/** `ok` is true exactly when `reason` is null. */
export interface RedirectCheckResult {
  ok: boolean;
  reason: RedirectRejection | null;
}

// A stand-in for "this application": relative targets must stay on it. The .invalid TLD can never
// be a real host, so no absolute target can equal it by accident.
const BASE = 'https://app.shield.invalid/';
const BASE_ORIGIN = new URL(BASE).origin;

/** Rounds of percent-decoding judged; a value that still decodes after them is refused. */
const DECODE_ROUNDS = 3;

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/** The byte of the `%XX` at `i`, or -1. */
function escapedByte(s: string, i: number): number {
  if (i + 2 >= s.length || s.charCodeAt(i) !== 37) return -1;
  const hi = hexDigit(s.charCodeAt(i + 1));
  const lo = hexDigit(s.charCodeAt(i + 2));
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}

/**
 * One round of `%XX` decoding, in one left-to-right pass (a `%25` decodes to a `%` that is not
 * read again this round). Escaped UTF-8 sequences become their character; overlong forms of
 * ASCII (`%c0%af`) become that ASCII character, as servers that decode leniently read them;
 * bytes that form no character stay escaped.
 */
function decodeOnce(s: string): string {
  if (s.indexOf('%') < 0) return s;
  let out = '';
  let last = 0;
  let i = 0;
  while (i < s.length) {
    const b = escapedByte(s, i);
    if (b < 0) {
      i++;
      continue;
    }
    let cp = -1;
    let len = 3;
    if (b < 0x80) {
      cp = b;
    } else {
      const need = b >= 0xf0 && b <= 0xf4 ? 3 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xc0 && b <= 0xdf ? 1 : 0;
      let v = need === 3 ? b & 0x07 : need === 2 ? b & 0x0f : b & 0x1f;
      let k = 1;
      for (; need > 0 && k <= need; k++) {
        const c = escapedByte(s, i + 3 * k);
        if (c < 0x80 || c > 0xbf) break;
        v = (v << 6) | (c & 0x3f);
      }
      if (need > 0 && k > need && v <= 0x10ffff && (v < 0xd800 || v > 0xdfff)) {
        cp = v;
        len = 3 * (need + 1);
      }
    }
    if (cp < 0) {
      i += 3;
      continue;
    }
    out += s.slice(last, i) + String.fromCodePoint(cp);
    i += len;
    last = i;
  }
  return last === 0 ? s : out + s.slice(last);
}

// Characters a browser strips from the start, or that no legitimate target begins with.
function isLeadingSpace(cp: number): boolean {
  return (
    cp <= 0x20 ||
    (cp >= 0x7f && cp <= 0xa0) ||
    cp === 0x1680 ||
    cp === 0x180e ||
    (cp >= 0x2000 && cp <= 0x200f) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x2060 ||
    cp === 0x3000 ||
    cp === 0xfeff
  );
}

// C0, DEL and C1 controls anywhere: tab and newline are deleted by URL parsers (`java\tscript:`),
// CR and LF split a Location header.
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

function isSlash(c: number): boolean {
  return c === 47 || c === 92;
}

/** The lowercased scheme when `s` starts with one (WHATWG: a letter, then [a-z0-9+.-], then ':'). */
function schemeOf(s: string): string | null {
  const first = s.charCodeAt(0) | 0x20;
  if (first < 97 || first > 122) return null;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 58) return s.slice(0, i).toLowerCase();
    const l = c | 0x20;
    if (!((l >= 97 && l <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) return null;
  }
  return null;
}

/** One form of the target (raw or decoded), judged as a browser would follow it. */
function judgeForm(s: string, hosts: HostList | null): RedirectRejection | null {
  if (isLeadingSpace(s.codePointAt(0)!)) return 'control-char';
  if (hasControl(s)) return 'control-char';
  if (isSlash(s.charCodeAt(0)) && isSlash(s.charCodeAt(1))) return 'protocol-relative';
  const scheme = schemeOf(s);
  if (scheme !== null) {
    if (scheme !== 'http' && scheme !== 'https') return 'scheme';
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      return 'invalid';
    }
    if (u.username !== '' || u.password !== '' || rawAuthorityHasAt(s, scheme)) return 'userinfo';
    return hosts !== null && hostListed(hosts, u.hostname) ? null : 'host-not-allowed';
  }
  let u: URL;
  try {
    u = new URL(s, BASE);
  } catch {
    return 'invalid';
  }
  if (u.origin !== BASE_ORIGIN) return 'cross-origin';
  // `.//evil.example` stays on the origin but leaves a path that is protocol-relative as soon as
  // anything reuses the path as a redirect target.
  if (isSlash(u.pathname.charCodeAt(0)) && isSlash(u.pathname.charCodeAt(1))) return 'protocol-relative';
  return null;
}

/**
 * Whether `target` is safe to redirect to: a relative reference that stays on this origin, or an
 * absolute http(s) URL whose host is in `allowedHosts`. Never throws on `target`.
 */
export function validateRedirect(target: unknown, options?: RedirectCheckOptions): RedirectCheckResult {
  const hosts = compileRedirectOptions(options);
  const reason = judgeTarget(target, hosts);
  return { ok: reason === null, reason };
}

function judgeTarget(target: unknown, hosts: HostList | null): RedirectRejection | null {
  if (typeof target !== 'string' || target.length === 0) return 'invalid';
  let form = target;
  for (let round = 0; ; round++) {
    const reason = judgeForm(form, hosts);
    if (reason !== null) return reason;
    const next = decodeOnce(form);
    if (next === form) return null;
    if (round === DECODE_ROUNDS) return 'excess-encoding';
    form = next;
  }
}

function compileRedirectOptions(options: unknown): HostList | null {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object' || Array.isArray(options)) throw new TypeError('validateRedirect: options must be an object');
  for (const k of Object.keys(options)) {
    if (k !== 'allowedHosts') throw new TypeError(`validateRedirect: unknown option '${k}' (expected allowedHosts)`);
  }
  const list = (options as RedirectCheckOptions).allowedHosts;
  return list === undefined ? null : compileHostList(list, 'validateRedirect: options.allowedHosts');
}
