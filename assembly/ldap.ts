// LDAP filter injection (RFC 4515). An application builds a search filter around the user's
// text, "(&(uid=" + value + ")(userPassword=...))"; a value that closes the assertion with ')'
// and opens another with '(' changes what the filter asks: "*)(uid=*))(|(uid=*" matches every
// entry, "admin)(&)" makes the password test always true (a server that reads the first filter
// only drops the rest), "jdoe)(userPassword=a*" reads a password a character at a time. Prose
// rarely puts a filter right after a closing parenthesis, so the detector judges that
// structure, not the characters alone ("O'Brien (CEO)" and "f(x) (y = 2)" pass):
//   - a breakout: ')' then '(' (white space, more '(' and the operators '&', '|', '!' may
//     follow: OpenLDAP's parser skips white space between filters), then an attribute and a
//     filter type ('=', '~=', '>=', '<=', or an extensible match ':=') that comes after an
//     operator (")(|(x=", ")(!(x="; a bare number may stand as the attribute there), or whose
//     value is '*' or starts or ends with one next to a word unit (a presence or substring test:
//     "*)(objectClass=*", "jdoe)(userPassword=a*"; not "2*x" nor a pattern's ".*"), or which is
//     an extensible match (")(cn:dn:=x", ")(cn:caseExactMatch:=x", ")(:1.2.840.113556.1.4.803:=2"),
//     or whose attribute is a numeric OID ("2.5.4.35"), or is listed in the rule's params
//     (well-known directory attributes; options such as ";binary" aside), not after white space,
//     with a value left open for the application's ')' ("x)(memberOf=cn=admins"), empty, or
//     followed by more filter ("x)(uid=a))(|(uid=*"): "Dept (IT)(ou=Support)" is an aside;
//   - an AND or OR right after the breakout that ends the value or a filter (RFC 4526's
//     absolute filters): ")(&)", "*)(|";
//   - a whole filter: "(|(uid=*)", "(&(cn=a)(sn=b))", whose assertion has a '*', a listed
//     attribute or a second item after it ("if(!(done=true))" is code);
//   - a value that starts with an extensible match whose rule is a numeric OID of four parts or
//     more, or dn: "userPassword:2.5.13.18:=x" ("python:3.12.1:=x" is a version);
//   - a NUL right after a ')': "*))%00" ends the filter for libraries that read C strings.
// An assertion value directly followed by '(' is a call ("if(!(p=malloc(n)))"), never LDAP (a
// value holds '(' only escaped). Anchors: the literal pass notes every ")(" followed by '(', an
// operator, a letter, a digit, ':' or a space, every ") (", and every "(&(", "(|(", "(!(" (the
// rule's params that start with a parenthesis), at most LDAP_ANCHORS of them; past those this
// file finds the rest itself from the characters a finding cannot do without (every '=', and
// every '&' and '|' before a ')' or the end). Values of up to SHORT_MAX units are also searched
// for a ')' that white space separates from a '(' (the anchors hold one space only). Each judge
// reads at most RUN_MAX + ATTR_MAX + OID_MAX units around its anchor, and an assertion value to
// the next '(' or ')' (at most VALUE_MAX): linear, bounded.

import { at, lower, isAlpha, isAlnum, isDigit, isSpace, sameUnits, find1, findP, P_SQL, P_CMD } from './text';
import { K_LDAP_FILTER, enabledRule, ruleWithWord } from './rules';
import { emit } from './findings';
import { ldapAnchors, ldapAnchorCount, ldapAnchorsOverflow } from './literals';
import { C_LP, C_RP, C_EQ, C_AMP, C_PIPE, C_COLON, C_NUL, C_BANG, C_SPACE } from './classes';

const ATTR_MAX = 64; // an attribute description's length read (RFC 4512 names are short)
const OID_MAX = 64; // an extensible match's ":dn:1.2.3" read
const RUN_MAX = 16; // '(' '&' '|' '!' and white space between the breakout and the attribute
const VALUE_MAX = 256; // an assertion value's units read
const SHORT_MAX = 512; // values this long are also searched for breakouts with any white space

let txt: usize = 0;
let len = 0;

/** Classes a value needs for scanLdap to find anything: a '(' and a ')' or operator (a breakout, a whole filter), ':' and '=' (an extensible match at the start), or ')' and NUL (a filter cut short). */
@inline export function ldapWanted(mask: u32): bool {
  return ((mask & C_LP) != 0 && (mask & (C_RP | C_AMP | C_PIPE | C_BANG)) != 0) || (mask & (C_COLON | C_EQ)) == (C_COLON | C_EQ) ||
    (mask & (C_RP | C_NUL)) == (C_RP | C_NUL);
}

@inline function isOperator(c: u32): bool {
  return c == 38 || c == 124 || c == 33; // & | !
}

/** A unit of an attribute description: letters, digits, '-', '.', ';' (options), '_' (seen in deployed schemas). */
@inline function isAttrUnit(c: u32): bool {
  return isAlnum(c) || c == 45 || c == 46 || c == 59 || c == 95;
}

// What assertionAt read: the attribute [attrStart, attrEnd) (a numeric OID of three parts or
// more: oidAttr), an extensible match with a numeric OID or dn, a value that starts or ends with
// a '*', a value left open to the value's end, an empty value, and more filter after its ')'.
let attrEnd = 0;
let oidAttr = false;
let extensible = false;
let extNamed = false; // an extensible match whose only mark is a named matching rule
let star = false;
let open = false;
let empty = false;
let more = false; // after the value's ')', another ')' or a '('
let second = false; // after the value's ')', a '(' (a second item of a list)

/**
 * [s, e) is an attribute description (RFC 4512): a name that starts with a letter, or a numeric
 * OID ("2.5.4.3"; `numeric`: a bare number too, as after an operator "(!(&(1=0)"). Sets oidAttr.
 */
function attributeAt(s: i32, e: i32, numeric: bool): bool {
  oidAttr = false;
  if (isAlpha(at(txt, s))) return true;
  let dots = 0;
  for (let i = s; i < e; i++) {
    const c = at(txt, i);
    if (c == 46) dots++;
    else if (!isDigit(c)) return false;
  }
  oidAttr = dots >= 2;
  return dots > 0 || numeric;
}

/** The attribute description [s, e), its options (";binary") aside, is one of the params of an enabled ldap-filter rule (the anchors, which start with a parenthesis, never equal a name). */
function listedAttribute(s: i32, e0: i32): bool {
  let e = s;
  while (e < e0 && at(txt, e) != 59) e++;
  return e > s && ruleWithWord(K_LDAP_FILTER, txt, s, e - s) >= 0;
}

/**
 * An assertion from a (its attribute) on: "uid=x", "sn~=x", "n>=1", "cn:dn:=x", ":dn:2.4.6.8:=x" (after a breakout),
 * "userPassword:2.5.13.18:=x". Returns the end of its value (after a closing ')'), or -1; -1 too
 * for a value directly followed by '(' (a call). `numeric`: a bare number may stand as the attribute.
 */
function assertionAt(a: i32, numeric: bool): i32 {
  let k = a;
  const stop = a + ATTR_MAX < len ? a + ATTR_MAX : len;
  while (k < stop && isAttrUnit(at(txt, k))) k++;
  if (k >= len) return -1;
  if (k == a) {
    // only an extensible match may leave the attribute out
    if (at(txt, k) != 58) return -1;
    oidAttr = false;
  } else if (!attributeAt(a, k, numeric)) return -1;
  attrEnd = k;
  extensible = false;
  extNamed = false;
  let c = at(txt, k);
  if (c == 126 || c == 60 || c == 62) { // ~= <= >=
    if (k + 1 >= len || at(txt, k + 1) != 61) return -1;
    k++;
  } else if (c == 58) {
    // ":dn", then ":" and a matching rule, then ":=". The rule: a numeric OID of four parts or
    // more, or a name ("caseExactMatch": extNamed, which only a breakout's context makes a
    // filter: "note:todo:=" is none)
    let dn = false;
    let oid = false;
    let named = false;
    if (k + 3 < len && lower(at(txt, k + 1)) == 100 && lower(at(txt, k + 2)) == 110 && at(txt, k + 3) == 58) { dn = true; k += 3; }
    if (k + 1 < len && isDigit(at(txt, k + 1))) {
      let e = k + 1;
      let dots = 0;
      const oidStop = k + 1 + OID_MAX < len ? k + 1 + OID_MAX : len;
      while (e < oidStop && (isDigit(at(txt, e)) || at(txt, e) == 46)) { if (at(txt, e) == 46) dots++; e++; }
      // (four parts or more: "2.5.13.18", "1.2.840.113556.1.4.803"; a version, "python:3.12.1:=", is none)
      if (e >= len || at(txt, e) != 58 || dots < 3 || at(txt, e - 1) == 46) return -1;
      oid = true;
      k = e;
    } else if (k + 1 < len && isAlpha(at(txt, k + 1))) {
      let e = k + 1;
      const nStop = k + 1 + OID_MAX < len ? k + 1 + OID_MAX : len;
      while (e < nStop && (isAlnum(at(txt, e)) || at(txt, e) == 45)) e++;
      if (e >= len || at(txt, e) != 58) return -1;
      named = true;
      k = e;
    }
    if (!(dn || oid || named) || k + 1 >= len || at(txt, k + 1) != 61) return -1;
    extensible = true;
    extNamed = named && !dn && !oid;
    k++;
  } else if (c != 61) return -1;
  // the value: to the next '(' or ')', or the value's end
  const vs = k + 1;
  let v = vs;
  let escaped = false;
  const vStop = v + VALUE_MAX < len ? v + VALUE_MAX : len;
  while (v < vStop) {
    c = at(txt, v);
    if (c == 41 || c == 40) break;
    if (c == 92) escaped = true;
    v++;
  }
  if (v < len && at(txt, v) == 40) return -1; // a call: "p=malloc(n)"
  // a presence or substring test: the value '*', or one that starts with '*' and a word unit or
  // ends with a word unit and '*' ("a*", "*@corp"; not "2*x", not a pattern's ".*", "[^&]*", "\S*")
  star = !escaped && v > vs && (v - vs == 1 ? at(txt, vs) == 42 :
    (at(txt, vs) == 42 && starNeighbour(at(txt, vs + 1))) || (at(txt, v - 1) == 42 && starNeighbour(at(txt, v - 2))));
  open = v >= len;
  empty = v == vs;
  more = false;
  second = false;
  if (v < len && at(txt, v) == 41) {
    let m = v + 1;
    while (m < len && m - v <= RUN_MAX && isSpace(at(txt, m))) m++;
    second = m < len && at(txt, m) == 40;
    more = second || (m < len && at(txt, m) == 41);
    return v + 1;
  }
  return v;
}

/** A unit next to a '*' in a substring test: a word unit, '@', '-' or '_' (not '.', ']', '\\' of a pattern language). */
@inline function starNeighbour(c: u32): bool {
  return isAlnum(c) || c == 64 || c == 45 || c == 95;
}

/** From k past '(', operators and white space (at most RUN_MAX units): where the run ends. Sets runOp. */
let runOp = false;
function runEnd(k: i32): i32 {
  runOp = false;
  const stop = k + RUN_MAX < len ? k + RUN_MAX : len;
  while (k < stop) {
    const c = at(txt, k);
    if (c == 40 || isSpace(c)) k++;
    else if (isOperator(c)) { runOp = true; k++; }
    else break;
  }
  return k;
}

/** Judges the breakout whose ')' is at i (a '(' follows, white space aside). Returns the end of the finding, or -1. */
function breakoutAt(i: i32): i32 {
  let j = i + 1;
  while (j < len && j - i <= RUN_MAX && isSpace(at(txt, j))) j++;
  if (j >= len || at(txt, j) != 40) return -1;
  const k = runEnd(j);
  let lb = k - 1;
  while (lb > j && isSpace(at(txt, lb))) lb--;
  // "admin)(&)", "*)(|", "admin)(!(|)": an AND or OR that ends the value or a filter (the
  // absolute filters of RFC 4526; "(!)" is no filter)
  const lc = at(txt, lb);
  if ((lc == 38 || lc == 124) && (k == len || at(txt, k) == 41)) return k < len ? k + 1 : k;
  if (k >= len) return -1;
  const e = assertionAt(k, runOp);
  if (e < 0) return -1;
  if (runOp || star || extensible || oidAttr) return e;
  // a listed attribute alone: not after white space ("Dept (IT) ( ou=x")
  if (isSpace(at(txt, k - 1))) return -1;
  return (open || empty || more) && listedAttribute(k, attrEnd) ? e : -1;
}

/** A whole filter from i: "(|(uid=*)", "(&(cn=a)(sn=b))": an operator after a '(', a '(' after each operator (white space aside). Returns the end of the finding, or -1. */
function filterAt(i: i32): i32 {
  let k = i;
  let op = false;
  const stop = i + RUN_MAX < len ? i + RUN_MAX : len;
  let prev: u32 = 0; // the last unit of the run that is no white space
  while (k < stop) {
    const c = at(txt, k);
    if (isSpace(c)) { k++; continue; }
    if (c == 40) { prev = c; k++; continue; }
    if (!isOperator(c) || prev != 40) break;
    // the next unit that is no white space opens a filter
    let m = k + 1;
    while (m < len && m - k <= RUN_MAX && isSpace(at(txt, m))) m++;
    if (m >= len || at(txt, m) != 40) return -1;
    op = true;
    prev = c;
    k++;
  }
  if (!op || prev != 40 || k >= len || isSpace(at(txt, k - 1))) return -1;
  const e = assertionAt(k, true);
  if (e < 0) return -1;
  return star || extensible || oidAttr || second || listedAttribute(k, attrEnd) ? e : -1;
}

/**
 * From the '=' at q (or an '&' or '|': `op`) back to the breakout's ')' or the filter's first '(':
 * over the filter type, the attribute (and an extensible match's ":dn:1.2.3:"), then the run of
 * '(', operators and white space (at most ATTR_MAX + OID_MAX + RUN_MAX units). Returns the ')'
 * (breakoutAt judges it) or the '(' (filterAt), or -1.
 */
let openedByParen = false;
function openingBefore(q: i32, op: bool): i32 {
  let k = q;
  if (!op) {
    if (k > 0) {
      const c = at(txt, k - 1);
      if (c == 126 || c == 60 || c == 62) k--;
    }
    const aStop = k - ATTR_MAX - OID_MAX > 0 ? k - ATTR_MAX - OID_MAX : 0;
    while (k > aStop && (isAttrUnit(at(txt, k - 1)) || at(txt, k - 1) == 58)) k--;
  }
  const rStop = k - RUN_MAX > 0 ? k - RUN_MAX : 0;
  while (k > rStop && (at(txt, k - 1) == 40 || isOperator(at(txt, k - 1)) || isSpace(at(txt, k - 1)))) k--;
  if (k > 0 && at(txt, k - 1) == 41) { openedByParen = true; return k - 1; }
  // (the run's first '(': "|(|(uid=" is judged from "(|(")
  while (k < q && at(txt, k) != 40) k++;
  openedByParen = false;
  return !op && k < q ? k : -1;
}

/** From i, white space aside (at most RUN_MAX units), the value ends or a ')' stands. */
function closesAfter(i: i32): bool {
  let k = i;
  while (k < len && k - i < RUN_MAX && isSpace(at(txt, k))) k++;
  return k == len || at(txt, k) == 41;
}

/** Reports LDAP filter injection in text[0, n) (the literal pass over the same text ran first: its anchors). */
export function scanLdap(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  // (index.ts asked ldapWanted first)
  const r = enabledRule(K_LDAP_FILTER);
  if (r < 0) return;
  // "*))%00": a NUL right after a ')' ends the filter there for a library that reads C strings,
  // and whatever the application appended after the value is never read
  if ((mask & (C_RP | C_NUL)) == (C_RP | C_NUL)) {
    let z = find1(p, 0, n, 0);
    while (z < n) {
      if (z > 0 && at(p, z - 1) == 41) {
        let s = z - 1;
        while (s > 0 && z - s < RUN_MAX && (at(p, s - 1) == 41 || at(p, s - 1) == 42)) s--;
        emit(r, s, z + 1);
        return;
      }
      z = find1(p, z + 1, n, 0);
    }
  }
  // the value's start: a whole filter ("( |(uid=*))"), an extensible match ("userPassword:2.5.13.18:=x")
  let s = 0;
  while (s < n && s < RUN_MAX && isSpace(at(p, s))) s++;
  let e = -1;
  if (s < n && at(p, s) == 40) e = filterAt(s);
  if (e < 0) {
    while (s < n && s < RUN_MAX && at(p, s) == 40) s++;
    e = assertionAt(s, false);
    if (e >= 0 && (!extensible || extNamed || attrEnd - s < 2)) e = -1;
  }
  if (e >= 0) { emit(r, 0, e); return; }
  // A short value (a login field): every ')' with white space after it, or after the '(' that
  // follows it. The anchors hold ")( " and ") (" only: a tab, a line break or two units of white
  // space are found here, in values of up to SHORT_MAX units.
  if (n <= SHORT_MAX && (mask & C_SPACE) != 0 && (mask & C_RP) != 0) {
    let i = find1(p, 0, n, 41);
    while (i + 2 < n) {
      const c = at(p, i + 1);
      if (isSpace(c) || (c == 40 && isSpace(at(p, i + 2)))) {
        e = breakoutAt(i);
        if (e >= 0) { emit(r, i, e); return; }
      }
      i = find1(p, i + 1, n, 41);
    }
  }
  let last = -1;
  for (let k = 0; k < ldapAnchorCount; k++) {
    const i = load<i32>(ldapAnchors + (<usize>k << 2));
    e = at(p, i) == 40 ? filterAt(i) : breakoutAt(i);
    if (e >= 0) { emit(r, i, e); return; }
    last = i;
  }
  if (!ldapAnchorsOverflow) return;
  // more anchors than the list holds (dense input only): the rest is found from the characters
  // a finding cannot do without, each a bitmap walk of the literal pass where it is valid (a
  // judge at every ')(' of ")(a)(a)(a..." would cost more than the rest of the scan): every
  // filter type's '=' and every '&' and '|', each walked back to its breakout or filter
  // The judge of one '=' reads from its opening through its value and the units after the
  // value's ')': the same text there as the '=' judged last (no finding) gives the same answer,
  // so dense repeats (")(a=)(a=..." ) compare that text instead of judging it again.
  let memoB = -1;
  let memoL = 0;
  for (let pass = 0; pass < 2; pass++) {
    const set = pass == 0 ? P_SQL : P_CMD;
    const c1: u32 = pass == 0 ? 61 : 38;
    const c2: u32 = pass == 0 ? 61 : 124;
    let q = findP(p, last + 1, n, set, c1, c2, c1, c2);
    while (q < n) {
      const c = at(p, q);
      // (an '&' or '|' finds only a bare operator: one that ends the value or a filter, white
      // space aside)
      if ((c == c1 || c == c2) && (pass == 0 || closesAfter(q + 1))) {
        const b = openingBefore(q, pass == 1);
        if (b > last) {
          // the judged text: to the value's end, its ')', white space and the unit after them
          // (a text that reaches the value's end is never remembered: "left open" reads it)
          let x = q + 1;
          const xStop = x + VALUE_MAX < n ? x + VALUE_MAX : n;
          while (x < xStop && at(p, x) != 41 && at(p, x) != 40) x++;
          let m = x + 1;
          while (m < n && m - x <= RUN_MAX && isSpace(at(p, m))) m++;
          const l = m + 1 - b;
          const memo = pass == 0 && x < n && m < n;
          if (memo && memoB >= 0 && l == memoL && sameUnits(txt, memoB, b, l)) {
            q = findP(p, q + 1, n, set, c1, c2, c1, c2);
            continue;
          }
          e = openedByParen ? breakoutAt(b) : filterAt(b);
          if (e >= 0) { emit(r, b, e); return; }
          if (memo) { memoB = b; memoL = l; }
        }
      }
      q = findP(p, q + 1, n, set, c1, c2, c1, c2);
    }
  }
}
