// SSRF findings for scan(): URLs inside a value (after the engine's decoding) that point inside
// the network or use a scheme that smuggles requests. Judged here, not in the engine, because
// the judgement is validateUrl's (WHATWG URL parsing and the address ranges of ssrf.ts).
//   - http, https, ws, wss, ftp (the scheme params of the rule of kind url-internal):
//     reported when validateUrl refuses the host as private, loopback, link-local, metadata,
//     localhost or a tunnel address, also for hostnames that only wrap such an address
//     (169.254.169.254.nip.io), hosts under the rule's host params (under a wildcard DNS service,
//     "{ip}.nip.io", the address anywhere before it, dashed or in hex: app.10.0.0.1.nip.io,
//     127-0-0-1.sslip.io, 7f000001.nip.io; a listed name such as lvh.me or r3dir.me, which
//     resolves or redirects inward, whatever comes before it), and with a trailing dot. A public
//     host passes, with or without userinfo (git remotes carry user names).
//   - gopher, dict, file, ldap, tftp, jar, netdoc, ... (params of the rule of kind url-smuggling): reported
//     whatever the host, since no web application needs to fetch them from user input.
// mailto: and tel: are not network URLs. Linear: one indexOf walk over the text.

import type { Finding } from './engine.js';
import { validateUrl, defaultUrlVerdict } from './ssrf.js';
import { detach } from './text.js';

/** The rules this module judges, from the rule blob (kinds `url-internal` and `url-smuggling`). */
export interface UrlTargetRules {
  internal?: InternalTargetRule;
  smuggling?: { id: string; schemes: ReadonlySet<string> };
}

/** The url-internal rule, its params sorted by what they are (internalTargetRule). */
export interface InternalTargetRule {
  id: string;
  schemes: ReadonlySet<string>;
  /** Wildcard DNS services (params `{ip}.<name>`, without the prefix): their names stand for the IPv4 address written before them. */
  wildcard: readonly string[];
  /** Names that, with every name under them, resolve or redirect inward (params holding a '.'). */
  names: readonly string[];
  /** pointsInside's answers for the last authorities judged with these lists. */
  verdicts: Map<string, boolean>;
}

const WILDCARD_PREFIX = '{ip}.';
// "*.<zone>": a zone whose names all stay inside a network (the special-use and private zones,
// "*.internal", "*.local", "*.home.arpa"; cluster and service-discovery zones, "*.svc",
// "*.consul"): a name param a zone without a '.' can be written as
const ZONE_PREFIX = '*.';

/**
 * The url-internal rule `id` with its params: a param without a '.' is a scheme, `{ip}.` and a
 * name is a wildcard DNS service, any other param with a '.' a name that resolves inward (`*.`
 * and a zone: the zone, as such a name)
 * (assembly/urls.ts hands over URLs under the same host params).
 */
export function internalTargetRule(id: string, params: readonly string[]): InternalTargetRule {
  const schemes = new Set<string>();
  const wildcard: string[] = [];
  const names: string[] = [];
  for (const param of params) {
    const p = param.toLowerCase(); // (the generator requires lower case; a blob made by hand may not)
    if (!p.includes('.')) schemes.add(p);
    else if (p.startsWith(WILDCARD_PREFIX)) wildcard.push(p.slice(WILDCARD_PREFIX.length));
    else names.push(p.startsWith(ZONE_PREFIX) ? p.slice(ZONE_PREFIX.length) : p);
  }
  return { id, schemes, wildcard, names, verdicts: new Map() };
}

const INTERNAL_REASONS = new Set(['private-ip', 'localhost', 'metadata', 'tunnel-ip']);

/** The first unit in [i, limit) that ends a URL written in text, or min(limit, text.length). */
function endOfUrl(text: string, i: number, limit: number): number {
  let k = i;
  const end = limit < text.length ? limit : text.length;
  while (k < end) {
    const c = text.charCodeAt(k);
    // white space, quotes, angle brackets and backticks end a URL written in text
    if (c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96) break;
    k++;
  }
  return k;
}

/** Schemes are letters, digits, + - . after a letter; read back from the ':' at `colon`. */
function schemeStart(text: string, colon: number): number {
  let s = colon;
  while (s > 0 && colon - s < 16) {
    const c = text.charCodeAt(s - 1);
    if ((c | 32) >= 97 && (c | 32) <= 122) { s--; continue; }
    if (s < colon && ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) { s--; continue; }
    break;
  }
  // the scheme starts with a letter
  while (s < colon && !(((text.charCodeAt(s) | 32) >= 97) && ((text.charCodeAt(s) | 32) <= 122))) s++;
  return s;
}

/** An IPv4 address written as the leading labels of a hostname (wildcard DNS services). */
function wrappedIpv4(host: string): string | null {
  // four numeric labels and a name: at least four dots, a digit first
  const c = host.charCodeAt(0);
  if (!(c >= 48 && c <= 57)) return null;
  let dots = 0;
  for (let i = host.indexOf('.'); i >= 0 && dots < 4; i = host.indexOf('.', i + 1)) dots++;
  if (dots < 4) return null;
  const parts = host.split('.', 5);
  if (parts.length < 5) return null;
  for (let k = 0; k < 4; k++) if (!octetText(parts[k])) return null;
  return parts.slice(0, 4).join('.');
}

function underName(host: string, name: string): boolean {
  return host === name || (host.length > name.length && host.endsWith(name) && host.charCodeAt(host.length - name.length - 1) === 46);
}

/** One to three ASCII digits: a label or part that can be an IPv4 octet as written. */
function octetText(t: string): boolean {
  if (t.length < 1 || t.length > 3) return false;
  for (let i = 0; i < t.length; i++) { const c = t.charCodeAt(i); if (c < 48 || c > 57) return false; }
  return true;
}

/** An address written with dashes at the end of a label ("127-0-0-1", "magic-127-0-0-1"), or null. */
function dashedV4(label: string): string | null {
  const parts = label.split('-');
  const n = parts.length;
  if (n < 4) return null;
  const q = parts.slice(n - 4);
  return q.every(octetText) ? q.join('.') : null;
}

/** An address written as eight hex digits ("7f000001"), or null. */
function hexV4(label: string): string | null {
  if (label.length !== 8) return null;
  const out: number[] = [];
  for (let k = 0; k < 8; k += 2) {
    if (!isHex(label.charCodeAt(k)) || !isHex(label.charCodeAt(k + 1))) return null;
    out.push(Number.parseInt(label.slice(k, k + 2), 16));
  }
  return out.join('.');
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
}

/**
 * The IPv4 address a name under a wildcard DNS service stands for (the four labels, the dashed or
 * the hex label right before the service), 'loopback' for a name under a listed inward name, or
 * null. (Wildcard services answer with the address written in the name, anywhere in front of
 * them: 10.0.0.1.nip.io, app.127.0.0.1.nip.io, 127-0-0-1.sslip.io, magic-127-0-0-1.nip.io,
 * 7f000001.nip.io. The inward names resolve to 127.0.0.1, or redirect to the address encoded in
 * their subdomain: ways past a check on the host's spelling.)
 */
function inwardHost(name0: string, rule: InternalTargetRule): string | null {
  // a fully qualified name ends with a dot ("localtest.me.", "127.0.0.1.nip.io."): the resolver
  // answers as for the name without it
  const host = name0.endsWith('.') ? name0.slice(0, -1) : name0;
  for (const name of rule.names) if (underName(host, name)) return 'loopback';
  for (const svc of rule.wildcard) {
    if (!(host.length > svc.length && underName(host, svc))) continue;
    const labels = host.slice(0, host.length - svc.length - 1).split('.');
    const n = labels.length;
    if (n >= 4 && labels.slice(n - 4).every(octetText)) return labels.slice(n - 4).join('.');
    const last = labels[n - 1];
    return dashedV4(last) ?? hexV4(last);
  }
  return null;
}

/**
 * The first internal or smuggling URL in the decoded text from `start`, as a finding; null when
 * there is none. With `only`, the URL whose scheme starts at `start` alone.
 */
export function urlFinding(text: string, rules: UrlTargetRules, start = 0, only = false): Finding | null {
  // the value may be one URL that WHATWG parsing reads otherwise than the text shows (the engine
  // lists its start first): judged whole, as fetch(value) would take it
  if (rules.internal && start === firstUnit(text)) {
    const f = wholeValueFinding(text, start, rules.internal);
    if (f) return f;
  }
  let from = start;
  // URLs end at white space and the like; every ':' of one such run shares its end, searched
  // for at most MAX_URL units past a scheme's start and resumed where the last search stopped
  // (linear: no unit is read twice, however long the run)
  let runEnd = -1;
  let runDone = false; // runEnd is where the run ends (not where a search stopped)
  let first = true;
  // the scheme and authority of the last URL judged (no finding): the same text again is skipped
  let lastUrl = '';
  while (from < text.length) {
    // `only`: judge just the URL whose scheme starts at `start` (the engine listed it)
    if (only && !first) return null;
    first = false;
    const colon = text.indexOf(':', from);
    if (colon < 0) return null;
    from = colon + 1;
    // every URL judged here has '/' or '\\' right after its scheme's colon
    const next = text.charCodeAt(colon + 1);
    if (next !== 47 && next !== 92) continue;
    const s = schemeStart(text, colon);
    if (s === colon) continue;
    const limit = s + MAX_URL;
    if (colon >= runEnd) runEnd = endOfUrl(text, colon + 1, limit);
    else if (!runDone && runEnd < limit) runEnd = endOfUrl(text, runEnd, limit);
    runDone = runEnd < limit || runEnd >= text.length;
    const e = runEnd - s > MAX_URL ? s + MAX_URL : runEnd;
    if (e - colon < 2) continue;
    // judged on the scheme and authority alone (the host, port and userinfo: a path, query or
    // fragment never makes WHATWG parsing fail nor changes the host), so a run of URLs without
    // white space ('http://a/http://a/...') does not parse up to MAX_URL units at every ':'
    const ae = authorityEnd(text, colon + 1, e);
    // the verdict is a function of that text and of the unit that ended the authority (a plain
    // public name ends at / ? #, a '\\' sends it to the parser): the same text as the URL judged
    // last, with that unit, is no finding
    if (lastUrl.length > 0 && ae < e && ae + 1 - s === lastUrl.length && text.startsWith(lastUrl, s)) continue;
    const scheme = text.slice(s, colon).toLowerCase();
    const smuggling = rules.smuggling && rules.smuggling.schemes.has(scheme);
    const internal = rules.internal && rules.internal.schemes.has(scheme);
    if (!smuggling && !internal) continue;
    // (with the unit that ended the authority: a one-label host counts only before a path or port)
    const url = text.slice(s, ae < e ? ae + 1 : ae);
    if (smuggling && rules.smuggling) {
      // the scheme addresses something: a slash or backslash follows (gopher://h, file:///x,
      // file:/etc/passwd); "File:Gemini.svg" (a wiki namespace) does not
      const c = text.charCodeAt(colon + 1);
      if (c === 47 || c === 92) return finding('ssrf', rules.smuggling.id, text, s, e);
    }
    if (internal && rules.internal && !plainPublicName(text, colon + 1, e, rules.internal) && pointsInside(url, scheme, rules.internal)) {
      return finding('ssrf', rules.internal.id, text, s, e);
    }
    if (internal && rules.internal && ae < e && (text.charCodeAt(ae) === 92 || text.charCodeAt(ae) === 35)) {
      const h = differentialHost(text, ae, e);
      if (h !== null && differentialInside(h, rules.internal)) return finding('ssrf', rules.internal.id, text, s, e);
    }
    // remembered with the unit that ended the authority, when / \\ ? # ended it (not the end
    // of the URL or MAX_URL, where what follows could differ)
    lastUrl = ae < e ? text.slice(s, ae + 1) : '';
    // a URL inside this one (?url=http://localhost) is judged at its own ':'
  }
  return null;
}

const MAX_URL = 4096; // longer URLs are judged on their first 4096 units

/**
 * Where WHATWG ends the authority at a '\\' or '#' (at `ae`), the host after a later '@' before
 * the first '/', '?' or white space, as parsers that end the authority only at '/' read it (and
 * take the userinfo up to its last '@'): "http://public.com\\@127.0.0.1/" (Python's urllib),
 * "http://public.com#@10.0.0.1/" (older PHP parse_url). An application that checks the host with
 * one parser and fetches with another reaches the second host. Null when no '@' follows (at most
 * 512 units are read).
 */
function differentialHost(text: string, ae: number, e: number): string | null {
  const stop = e < ae + 512 ? e : ae + 512;
  let at = -1;
  let k = ae;
  for (; k < stop; k++) {
    const c = text.charCodeAt(k);
    if (c === 47 || c === 63 || c <= 32) break;
    if (c === 64) at = k;
  }
  if (at < 0) return null;
  const h = at + 1;
  let he = h;
  if (text.charCodeAt(h) === 91) {
    // an IPv6 literal: up to its ']'
    while (he < k && text.charCodeAt(he) !== 93) he++;
    if (he < k) he++;
  } else {
    while (he < k) {
      const c = text.charCodeAt(he);
      if (c === 58 || c === 92 || c === 63 || c === 35) break;
      he++;
    }
  }
  return he > h ? text.slice(h, he) : null;
}

/**
 * The host after a differential '@' is an internal address or name as validateUrl judges it (an
 * IPv4 form, a bracketed IPv6 literal, localhost, a metadata name), or a dotted inward name
 * ("localtest.me"); not a single word the inward suffixes list ("?ref=@home", "#@corp" are
 * handles in a query or fragment).
 */
function differentialInside(host: string, rule: InternalTargetRule): boolean {
  // (a number alone is a handle or a count in a fragment, "#slide@10", though WHATWG would read
  // it as an IPv4 address: dotted forms, IPv6 literals and names only)
  if (!host.includes('.') && host.charCodeAt(0) !== 91 && host.toLowerCase() !== 'localhost') return false;
  const w = validateUrl(`http://${host}/`);
  if (!w.ok && w.reason !== null && INTERNAL_REASONS.has(w.reason)) return true;
  return inwardInside(host.toLowerCase(), rule);
}

/** The first unit after leading controls and spaces (which WHATWG parsing trims). */
function firstUnit(text: string): number {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i++;
  return i;
}

/**
 * The value from `s` (its first unit) to its last unit that is no control or space, as
 * `fetch(value)` or `new URL(value)` reads it: every tab, LF and CR dropped ("http://loc\talhost/"),
 * a special scheme's host without slashes ("http:127.0.0.1"), white space inside the userinfo
 * ("http://public.com @127.0.0.1/"). A finding when that URL has a url-internal scheme and points
 * inside; null for a URL WHATWG reads as the text shows (the walk in urlFinding judges it) and for
 * values longer than MAX_URL (assembly/urls.ts wholeValueUrl lists the same values).
 */
function wholeValueFinding(text: string, s: number, rule: InternalTargetRule): Finding | null {
  let e = text.length;
  while (e > s && text.charCodeAt(e - 1) <= 32) e--;
  if (e - s > MAX_URL) return null;
  const raw = text.slice(s, e);
  let url = '';
  let from = 0;
  for (let k = 0; k < raw.length; k++) {
    const c = raw.charCodeAt(k);
    if (c === 9 || c === 10 || c === 13) { url += raw.slice(from, k); from = k + 1; }
  }
  url = from === 0 ? raw : url + raw.slice(from);
  const colon = url.indexOf(':');
  if (colon <= 0 || colon > 16) return null;
  const scheme = url.slice(0, colon).toLowerCase();
  if (!rule.schemes.has(scheme)) return null;
  const next = url.charCodeAt(colon + 1);
  const slashes = next === 47 || next === 92;
  if (url === raw && slashes && !raw.includes(' ')) return null;
  // "http:80", "https:443/x": a port written after the scheme (a setting), not a host ("http:2130706433",
  // past any port, is 127.0.0.1 to WHATWG)
  if (!slashes) {
    let k = colon + 1;
    while (k < url.length && url.charCodeAt(k) >= 48 && url.charCodeAt(k) <= 57) k++;
    const c = k < url.length ? url.charCodeAt(k) : 47;
    if (k > colon + 1 && k - colon - 1 <= 5 && Number(url.slice(colon + 1, k)) <= 65535 && (c === 47 || c === 63 || c === 35)) return null;
  }
  return pointsInside(url, scheme, rule) ? finding('ssrf', rule.id, text, s, e) : null;
}

// The answers of pointsInside for the last authorities judged are kept with the rule's lists
// (InternalTargetRule.verdicts): text repeats its hosts, adversarial text most of all (a WHATWG
// parse costs about a microsecond or two)
const VERDICTS_MAX = 256;

/** The URL (scheme and authority) `url`, read as an http URL, points inside the network. */
function pointsInside(url: string, scheme: string, rule: InternalTargetRule): boolean {
  const verdicts = rule.verdicts;
  const known = verdicts.get(url);
  if (known !== undefined) return known;
  const answer = judgeInside(url, scheme, rule);
  if (verdicts.size >= VERDICTS_MAX) verdicts.clear();
  // a copy: the URL is cut from the value, which a kept slice would keep alive (256 of them)
  verdicts.set(detach(url), answer);
  return answer;
}

function judgeInside(url: string, scheme: string, rule: InternalTargetRule): boolean {
  // judged as an http URL, so the scheme itself is never the reason
  const asHttp = 'http' + url.slice(scheme.length);
  // validateUrl's verdict and the host it parsed (one WHATWG parse, not two)
  const v = defaultUrlVerdict(asHttp);
  if (v.reason !== null && (INTERNAL_REASONS.has(v.reason) || v.reason === 'trailing-dot' || v.reason === 'userinfo')) {
    if (INTERNAL_REASONS.has(v.reason)) return true;
    if (internalHost(asHttp) !== null) return true;
    // validateUrl refuses the URL for its spelling alone: the host it reaches may still be an
    // inward name ("http://localtest.me./", "http://x@127.0.0.1.nip.io/")
    const host = hostOf(asHttp);
    return host !== null && host !== '' && inwardInside(host, rule);
  }
  if (v.reason === 'invalid') {
    // a URL WHATWG refuses may still reach a lenient client: judge its first host-like token
    const rest = url.slice(scheme.length + 1).replace(/^[\/\\]+/, '');
    // an IPv6 literal with a zone ("[::1%25eth0]", "[fe80::1%en0]": WHATWG refuses zones, a
    // client that takes them reaches that interface's address)
    if (rest.charCodeAt(0) === 91) {
      const close = rest.indexOf(']');
      const pct = rest.indexOf('%');
      if (close > 0 && pct > 0 && pct < close && close < 64) {
        const w = validateUrl(`http://${rest.slice(0, pct)}]/`);
        return !w.ok && w.reason !== null && INTERNAL_REASONS.has(w.reason);
      }
    }
    let k = 0;
    while (k < rest.length && k < 256 && !':/\\@?#'.includes(rest[k])) k++;
    const host = rest.slice(0, k);
    if (host) {
      const w = validateUrl(`http://${host}/`);
      return !w.ok && w.reason !== null && INTERNAL_REASONS.has(w.reason);
    }
    return false;
  }
  if (v.reason === null) {
    const host = v.hostname;
    return host !== '' && host !== null && host !== undefined && ((singleLabel(host) && pathOrPort(url, scheme)) || inwardInside(host, rule));
  }
  return false;
}

/**
 * A host name of one label, letters, digits, '-' and '_' ("redis", "elasticsearch",
 * "rancher-metadata"): no public DNS name has a single label, so the resolver answers from the
 * local search domains, a hosts file or a container network's DNS, inside. (Not an IPv6 literal,
 * and not a template's placeholder such as "{host}" or "$HOST".)
 */
function singleLabel(host: string): boolean {
  for (let k = 0; k < host.length; k++) {
    const c = host.charCodeAt(k);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false;
  }
  return host.length > 0;
}

/**
 * After the scheme and its slashes, the URL text holds a port, a path, a query or a fragment
 * ("http://redis:6379", "http://wiki/"): a one-label host alone, "http://x" or "http://exa" of a
 * URL broken by a space ("http://exa mple.com/"), is prose's or a typo's, not counted.
 */
function pathOrPort(url: string, scheme: string): boolean {
  let k = scheme.length + 1;
  while (k < url.length && (url.charCodeAt(k) === 47 || url.charCodeAt(k) === 92)) k++;
  for (; k < url.length; k++) {
    const c = url.charCodeAt(k);
    if (c === 58 || c === 47 || c === 92 || c === 63 || c === 35) return true;
  }
  return false;
}

/** A public-looking host that reaches inside: an inward name, a wildcard DNS name or a name wrapping an internal IPv4 address. */
function inwardInside(host: string, rule: InternalTargetRule): boolean {
  const inward = inwardHost(host, rule);
  if (inward === 'loopback') return true;
  const ip = inward ?? wrappedIpv4(host);
  if (ip) {
    const w = validateUrl(`http://${ip}/`);
    return !w.ok && w.reason !== null && INTERNAL_REASONS.has(w.reason);
  }
  return false;
}

/** Where the authority after "scheme:" at i ends: past the slashes, at the next / \ ? # (or e). */
function authorityEnd(text: string, i: number, e: number): number {
  let k = i;
  while (k < e && (text.charCodeAt(k) === 47 || text.charCodeAt(k) === 92)) k++;
  while (k < e) {
    const c = text.charCodeAt(k);
    if (c === 47 || c === 92 || c === 63 || c === 35) break;
    k++;
  }
  return k;
}

/**
 * The authority after "scheme:" at [i, e) is "//" and a plain public-looking DNS name (ASCII
 * letters, digits, '-' and '.', a last label with a letter, no userinfo, no port trick, no name
 * validateUrl treats specially): such a URL cannot fail validateUrl for an internal reason, so
 * the full parse is skipped. Anything else (IPs, encodings, IDN, backslashes) is parsed.
 */
function plainPublicName(text: string, i: number, e: number, rule: InternalTargetRule): boolean {
  if (text.charCodeAt(i) !== 47 || text.charCodeAt(i + 1) !== 47) return false;
  let k = i + 2;
  const hs = k;
  let lastDot = -1;
  let letters = 0;
  while (k < e) {
    const c = text.charCodeAt(k);
    if (c === 47 || c === 63 || c === 35) break; // / ? #
    if (c === 58) { // a port: digits only, then the path
      let d = k + 1;
      while (d < e && text.charCodeAt(d) >= 48 && text.charCodeAt(d) <= 57) d++;
      if (d < e && !(text.charCodeAt(d) === 47 || text.charCodeAt(d) === 63 || text.charCodeAt(d) === 35)) return false;
      break;
    }
    const lc = c | 32;
    if (lc >= 97 && lc <= 122) letters++;
    else if (c === 46) lastDot = k;
    else if (!((c >= 48 && c <= 57) || c === 45)) return false; // @ \ % [ non-ASCII ...: parse it
    k++;
  }
  const he = k;
  if (he - hs < 4 || lastDot < 0 || lastDot === he - 1 || letters === 0) return false;
  // the last label holds a letter (not an IPv4 form), the first label is not all digits
  let tldLetter = false;
  for (let t = lastDot + 1; t < he; t++) { const lc = text.charCodeAt(t) | 32; if (lc >= 97 && lc <= 122) { tldLetter = true; break; } }
  if (!tldLetter) return false;
  // a last label WHATWG reads as a number ("0x", then hex digits) makes the host an IPv4
  // address (0x7f.0x1 is 127.0.0.1): parse it
  if (hexNumberLabel(text, lastDot + 1, he)) return false;
  let d = hs;
  while (d < he && text.charCodeAt(d) >= 48 && text.charCodeAt(d) <= 57) d++;
  if (d === he || text.charCodeAt(d) === 46) return false;
  const host = text.slice(hs, he).toLowerCase();
  return !(host.includes('localhost') || host.includes('metadata') || host.includes('instance-data') || host.endsWith('.internal') ||
    host.endsWith('.local') || host.startsWith('xn--') || host.includes('.xn--') || inwardHost(host, rule) !== null);
}

/** text[s, e) is "0x" or "0X" followed by hex digits only (WHATWG's IPv4 number in hex). */
function hexNumberLabel(text: string, s: number, e: number): boolean {
  if (e - s < 2 || text.charCodeAt(s) !== 48 || (text.charCodeAt(s + 1) | 32) !== 120) return false;
  for (let t = s + 2; t < e; t++) {
    const c = text.charCodeAt(t);
    const lc = c | 32;
    if (!((c >= 48 && c <= 57) || (lc >= 97 && lc <= 102))) return false;
  }
  return true;
}

/** For a URL refused for its trailing dot or its userinfo: the reason its host is internal, or null. */
function internalHost(url: string): string | null {
  const host = hostOf(url);
  if (!host) return null;
  const bare = host.endsWith('.') ? host.slice(0, -1) : host;
  const r = validateUrl(`http://${bare.includes(':') && !bare.startsWith('[') ? `[${bare}]` : bare}/`);
  return !r.ok && r.reason && INTERNAL_REASONS.has(r.reason) ? r.reason : null;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

function finding(vector: string, rule: string, text: string, s: number, e: number): Finding {
  // matched: at most 80 code points
  let end = s;
  for (let cps = 0; cps < 80 && end < e; cps++) {
    const c = text.charCodeAt(end);
    end += c >= 0xd800 && c < 0xdc00 && end + 1 < e && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return { vector, rule, matched: detach(text.slice(s, end)), start: s, end: e };
}
