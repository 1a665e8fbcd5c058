// LDAP filter injection (RFC 4515). An application builds a search filter around the user's
// text, "(&(uid=" + value + ")(userPassword=...))"; a value that closes the assertion with ')'
// and opens another with '(' changes what the filter asks: "*)(uid=*))(|(uid=*" matches every
// entry, "admin)(&)" makes the password test always true, "admin*)((|userPassword=*)" reads a
// password a character at a time. Prose rarely puts a filter right after a closing parenthesis,
// so the detector judges that structure, not the characters alone ("O'Brien (CEO)" and
// "f(x) (y = 2)" pass):
//   - a breakout: ')' then '(' (more '(' and the operators '&', '|', '!' may follow), then an
//     attribute and a filter type ('=', '~=', '>=', '<=', or an extensible match ':=') whose
//     attribute is listed in the rule's params (well-known directory attributes), or whose
//     value holds a '*', or which comes after an operator (")(|(x=", ")(!(x="), or whose
//     matching rule is a numeric OID or dn (")(cn:dn:=x");
//   - an operator right after the breakout that ends the value or a filter: ")(&)", "*)(|";
//   - a whole filter: "(|(uid=*)", "(&(cn=a)(sn=b))";
//   - a value that starts with an extensible match: "userPassword:2.5.13.18:=x";
//   - a NUL right after a ')': "*))%00" ends the filter for libraries that read C strings.
// Anchors: the literal pass notes every ")(" followed by '(', an operator, a letter or a digit,
// and every "(&(", "(|(", "(!(" (the rule's params that start with a parenthesis), at most
// LDAP_ANCHORS of them; past those this file finds the rest itself. Each anchor reads at most
// RUN_MAX + ATTR_MAX + OID_MAX units on, and an assertion value to the next '(' or ')' (at most
// VALUE_MAX): linear, bounded.

import { at, lower, isAlpha, isAlnum, isDigit, hashLower, find1, findP, P_SQL, P_CMD } from './text';
import { K_LDAP_FILTER, enabledRule, ruleEnabled, firstRule, nextRule, mayHave, paramIndex } from './rules';
import { emit } from './findings';
import { ldapAnchors, ldapAnchorCount, ldapAnchorsOverflow } from './literals';
import { C_LP, C_RP, C_EQ, C_AMP, C_PIPE, C_COLON, C_NUL } from './classes';

const ATTR_MAX = 64; // an attribute description's length read (RFC 4512 names are short)
const OID_MAX = 64; // an extensible match's ":dn:1.2.3" read
const RUN_MAX = 16; // '(' '&' '|' '!' between the breakout and the attribute
const VALUE_MAX = 256; // an assertion value's units read for a '*'

let txt: usize = 0;
let len = 0;

/** Classes a value needs for scanLdap to find anything: a '(' and a ')' or operator (a breakout, a whole filter), ':' and '=' (an extensible match at the start), or ')' and NUL (a filter cut short). */
@inline export function ldapWanted(mask: u32): bool {
  return ((mask & C_LP) != 0 && (mask & (C_RP | C_AMP | C_PIPE)) != 0) || (mask & (C_COLON | C_EQ)) == (C_COLON | C_EQ) ||
    (mask & (C_RP | C_NUL)) == (C_RP | C_NUL);
}

@inline function isOperator(c: u32): bool {
  return c == 38 || c == 124 || c == 33; // & | !
}

/** A unit of an attribute description: letters, digits, '-', '.', ';' (options), '_' (seen in deployed schemas). */
@inline function isAttrUnit(c: u32): bool {
  return isAlnum(c) || c == 45 || c == 46 || c == 59 || c == 95;
}

/**
 * [s, e) is an attribute description (RFC 4512): a name that starts with a letter, or a numeric
 * OID ("2.5.4.3"); a bare number ("1=1" in SQL) is neither.
 */
function attributeAt(s: i32, e: i32): bool {
  if (isAlpha(at(txt, s))) return true;
  let dots = 0;
  for (let i = s; i < e; i++) {
    const c = at(txt, i);
    if (c == 46) dots++;
    else if (!isDigit(c)) return false;
  }
  return dots > 0;
}

/** The attribute description [s, e) is one of the params of an enabled ldap-filter rule (the anchors, which start with ')', never equal a name). */
function listedAttribute(s: i32, e: i32): bool {
  const l = e - s;
  let r = firstRule(K_LDAP_FILTER);
  let h: u32 = 0;
  let hashed = false;
  while (r >= 0) {
    if (ruleEnabled(r) && mayHave(r, txt, s, l)) {
      if (!hashed) { h = hashLower(txt, s, l); hashed = true; }
      if (paramIndex(r, txt, s, l, h) >= 0) return true;
    }
    r = nextRule(r);
  }
  return false;
}

// What assertionAt read: the attribute [attrStart, attrEnd), an extensible match with a numeric
// OID or dn, a '*' in the value.
let attrEnd = 0;
let extensible = false;
let star = false;

/**
 * An assertion from a (its attribute) on: "uid=x", "sn~=x", "n>=1", "cn:dn:=x",
 * "userPassword:2.5.13.18:=x". Returns the end of its value (after a closing ')'), or -1.
 */
function assertionAt(a: i32): i32 {
  let k = a;
  const stop = a + ATTR_MAX < len ? a + ATTR_MAX : len;
  while (k < stop && isAttrUnit(at(txt, k))) k++;
  if (k == a || k >= len || !attributeAt(a, k)) return -1;
  attrEnd = k;
  extensible = false;
  let c = at(txt, k);
  if (c == 126 || c == 60 || c == 62) { // ~= <= >=
    if (k + 1 >= len || at(txt, k + 1) != 61) return -1;
    k++;
  } else if (c == 58) {
    // ":dn", then ":" and a numeric OID of three parts or more, then ":=" (a rule named by a
    // word, "caseExactMatch", is left: "note:todo:=" is no filter)
    let dn = false;
    let oid = false;
    if (k + 3 < len && lower(at(txt, k + 1)) == 100 && lower(at(txt, k + 2)) == 110 && at(txt, k + 3) == 58) { dn = true; k += 3; }
    if (k + 1 < len && isDigit(at(txt, k + 1))) {
      let e = k + 1;
      let dots = 0;
      const oidStop = k + 1 + OID_MAX < len ? k + 1 + OID_MAX : len;
      while (e < oidStop && (isDigit(at(txt, e)) || at(txt, e) == 46)) { if (at(txt, e) == 46) dots++; e++; }
      if (e >= len || at(txt, e) != 58 || dots < 2 || at(txt, e - 1) == 46) return -1;
      oid = true;
      k = e;
    }
    if (!(dn || oid) || k + 1 >= len || at(txt, k + 1) != 61) return -1;
    extensible = true;
    k++;
  } else if (c != 61) return -1;
  // the value: to the next '(' or ')', or the value's end
  star = false;
  let v = k + 1;
  const vStop = v + VALUE_MAX < len ? v + VALUE_MAX : len;
  while (v < vStop) {
    c = at(txt, v);
    if (c == 41 || c == 40) break;
    if (c == 42) star = true;
    v++;
  }
  return v < len && at(txt, v) == 41 ? v + 1 : v;
}

/** Judges the breakout whose ')' is at i (a '(' follows). Returns the end of the finding, or -1. */
function breakoutAt(i: i32): i32 {
  let k = i + 1;
  let op = false;
  const stop = k + RUN_MAX < len ? k + RUN_MAX : len;
  while (k < stop) {
    const c = at(txt, k);
    if (c == 40) k++;
    else if (isOperator(c)) { op = true; k++; }
    else break;
  }
  // "admin)(&)", "*)(|": an operator that ends the value or a filter
  if (isOperator(at(txt, k - 1)) && (k == len || at(txt, k) == 41)) return k < len ? k + 1 : k;
  const e = assertionAt(k);
  if (e < 0) return -1;
  return op || star || extensible || listedAttribute(k, attrEnd) ? e : -1;
}

/** A whole filter from i: "(|(uid=*)", "(&(cn=a)(sn=b))", an operator after a '(' and a '(' after each operator. Returns the end of the finding, or -1. */
function filterAt(i: i32): i32 {
  let k = i;
  let op = false;
  const stop = i + RUN_MAX < len ? i + RUN_MAX : len;
  while (k < stop) {
    const c = at(txt, k);
    if (c == 40) k++;
    else if (isOperator(c)) {
      if (k == i || at(txt, k - 1) != 40 || k + 1 >= len || at(txt, k + 1) != 40) return -1;
      op = true;
      k++;
    } else break;
  }
  if (!op || at(txt, k - 1) != 40) return -1;
  return assertionAt(k);
}

/**
 * The '(' that opens the assertion whose '=' is at q: back over the filter type, the attribute
 * (and an extensible match's ":dn:1.2.3:"), then the run of '(' and operators, to the run's first
 * unit (at most ATTR_MAX + OID_MAX + RUN_MAX units). Returns it when it is a '(' after the value's
 * start, else -1.
 */
function openingBefore(q: i32): i32 {
  let k = q;
  if (k > 0) {
    const c = at(txt, k - 1);
    if (c == 126 || c == 60 || c == 62) k--;
  }
  const aStop = k - ATTR_MAX - OID_MAX > 0 ? k - ATTR_MAX - OID_MAX : 0;
  while (k > aStop && (isAttrUnit(at(txt, k - 1)) || at(txt, k - 1) == 58)) k--;
  const rStop = k - RUN_MAX > 0 ? k - RUN_MAX : 0;
  while (k > rStop && (at(txt, k - 1) == 40 || isOperator(at(txt, k - 1)))) k--;
  return k > 0 && at(txt, k) == 40 ? k : -1;
}

/** Reports LDAP filter injection in text[0, n) (the literal pass over the same text ran first: its anchors). */
export function scanLdap(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  const r = enabledRule(K_LDAP_FILTER);
  if (r < 0 || !ldapWanted(mask)) return;
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
  // an extensible match at the value's start, in parentheses or not
  let s = 0;
  while (s < n && s < RUN_MAX && at(p, s) == 40) s++;
  let e = assertionAt(s);
  if (e >= 0 && extensible) { emit(r, 0, e); return; }
  let last = -1;
  for (let k = 0; k < ldapAnchorCount; k++) {
    const i = load<i32>(ldapAnchors + (<usize>k << 2));
    e = at(p, i) == 40 ? filterAt(i) : breakoutAt(i);
    if (e >= 0) { emit(r, i, e); return; }
    last = i;
  }
  if (!ldapAnchorsOverflow) return;
  // more anchors than the list holds (dense input only): the rest is found from the characters
  // a hit cannot do without, each a bitmap walk of the literal pass where it is valid (a judge at
  // every ')(' of ")(a)(a)(a..." would cost more than the rest of the scan): every filter type's
  // '=' (walked back to its breakout or filter), and every '&' and '|' (a bare operator)
  let q = findP(p, last + 1, n, P_SQL, 61, 61, 61, 61);
  while (q < n) {
    if (at(p, q) == 61) {
      const b = openingBefore(q);
      if (b > last) {
        e = at(p, b - 1) == 41 ? breakoutAt(b - 1) : filterAt(b);
        if (e >= 0) { emit(r, at(p, b - 1) == 41 ? b - 1 : b, e); return; }
      }
    }
    q = findP(p, q + 1, n, P_SQL, 61, 61, 61, 61);
  }
  q = findP(p, last + 1, n, P_CMD, 38, 124, 38, 124);
  while (q < n) {
    const c = at(p, q);
    if ((c == 38 || c == 124) && q >= 2 && at(p, q - 1) == 40 && at(p, q - 2) == 41 && (q + 1 == n || at(p, q + 1) == 41)) {
      e = breakoutAt(q - 2);
      if (e >= 0) { emit(r, q - 2, e); return; }
    }
    q = findP(p, q + 1, n, P_CMD, 38, 124, 38, 124);
  }
}
