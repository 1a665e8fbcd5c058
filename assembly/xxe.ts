// XML external entities: markup declarations that make an XML parser define entities, fetch
// documents or read files. "<!DOCTYPE html>" declares nothing and passes; a DOCTYPE with an
// internal subset ('[') or an external identifier (SYSTEM, or PUBLIC with a system literal
// outside the params' allowed prefixes), any ENTITY declaration, and CDATA sections (which
// carry markup past filters) are reported. In strip mode the whole declaration or section goes,
// and so do parameter-entity references (%name;) in a value that held a declaration.
// Linear: every '<' is read once, and each declaration ends at the first '>' outside quotes
// (after the internal subset's ']').

import { at, lower, lowerLiteralIs, isAlpha, isAlnum, isSpace, findP, P_LT } from './text';
import { K_XML_DOCTYPE, K_XML_ENTITY, K_XML_CDATA, enabledRule, firstRule, nextRule, ruleEnabled, paramCount, paramPtr, paramLen } from './rules';
import { emit } from './findings';
import { stripMode, addSpan } from './spans';
import { C_LT, C_BANG } from './classes';

let txt: usize = 0;
let len = 0;
let declared = false; // a declaration was seen: parameter-entity references are stripped

function hit(r: i32, s: i32, e: i32): void {
  if (r < 0) return;
  if (stripMode) addSpan(s, e);
  else emit(r, s, e);
}

/** ASCII word w (lower case) at i, case-insensitively. */
function wordAt(i: i32, w: string): bool {
  const n = w.length;
  if (i + n > len) return false;
  for (let k = 0; k < n; k++) if (lower(at(txt, i + k)) != <u32>w.charCodeAt(k)) return false;
  return true;
}

/** End of the declaration whose body starts at i: after the first '>' outside quotes, or len. */
function declEnd(i: i32): i32 {
  let q: u32 = 0;
  while (i < len) {
    const c = at(txt, i);
    if (q != 0) { if (c == q) q = 0; }
    else if (c == 34 || c == 39) q = c;
    else if (c == 62) return i + 1;
    i++;
  }
  return len;
}

/** Past white space from i. */
function skipSpace(i: i32): i32 {
  while (i < len && isSpace(at(txt, i))) i++;
  return i;
}

/** A quoted literal at i: its end (after the closing quote), or -1. */
function literalEnd(i: i32): i32 {
  if (i >= len) return -1;
  const q = at(txt, i);
  if (q != 34 && q != 39) return -1;
  let k = i + 1;
  while (k < len && at(txt, k) != q) k++;
  return k < len ? k + 1 : -1;
}

/** The system literal [s, e) (quotes included) starts with an allowed prefix of rule r. */
function allowedSystem(r: i32, s: i32, e: i32): bool {
  const n = paramCount(r);
  for (let k = 0; k < n; k++) {
    const w = paramPtr(r, k);
    const wl = paramLen(r, k);
    if (s + 1 + wl <= e - 1 && lowerLiteralIs(txt, s + 1, w, wl)) return true;
  }
  return false;
}

/**
 * "<!DOCTYPE" at lt, name read: judge what follows. Returns where scanning goes on. A DOCTYPE
 * is reported for an internal subset or an external identifier other than a PUBLIC one whose
 * system literal starts with an allowed prefix (the W3C's own DTDs, as params).
 */
function doctype(lt: i32): i32 {
  let i = skipSpace(lt + 9);
  while (i < len && !isSpace(at(txt, i)) && at(txt, i) != 62 && at(txt, i) != 91) i++; // the root name
  i = skipSpace(i);
  let bad = false;
  if (wordAt(i, 'system')) bad = true;
  else if (wordAt(i, 'public')) {
    const p1 = literalEnd(skipSpace(i + 6));
    const s2 = p1 < 0 ? -1 : skipSpace(p1);
    const p2 = s2 < 0 ? -1 : literalEnd(s2);
    bad = true;
    let r = firstRule(K_XML_DOCTYPE);
    while (r >= 0 && bad) {
      if (ruleEnabled(r) && p2 > 0 && allowedSystem(r, s2, p2)) bad = false;
      r = nextRule(r);
    }
  }
  // the internal subset, if any, runs to its ']' (declarations inside may hold '>')
  let end = i;
  let q: u32 = 0;
  let subset = false;
  while (end < len) {
    const c = at(txt, end);
    if (q != 0) { if (c == q) q = 0; }
    else if (c == 34 || c == 39) q = c;
    else if (c == 91 && !subset) subset = true;
    else if (c == 93 && subset) { end = declEnd(end + 1); break; }
    else if (c == 62 && !subset) { end++; break; }
    else if (c == 60 && !subset) break; // no '<' outside the subset: the declaration ended unclosed
    end++;
  }
  if (end > len) end = len;
  if (subset) bad = true;
  if (bad) {
    declared = true;
    hit(enabledRule(K_XML_DOCTYPE), lt, end);
  }
  return end > lt + 9 ? end : lt + 9;
}

/** Parameter-entity references (%name;) in strip mode, once a declaration was seen. */
function stripParameterRefs(): void {
  for (let i = 0; i + 2 < len; i++) {
    if (at(txt, i) != 37) continue;
    const c = at(txt, i + 1);
    if (!(isAlpha(c) || c == 95 || c == 58)) continue;
    let k = i + 2;
    while (k < len && (isAlnum(at(txt, k)) || at(txt, k) == 95 || at(txt, k) == 58 || at(txt, k) == 45 || at(txt, k) == 46)) k++;
    if (k < len && at(txt, k) == 59) { addSpan(i, k + 1); i = k; }
  }
}

/** Classes a value needs, all of them, for scanXxe to find anything ("<!"). */
export const XXE_CLASSES = C_LT | C_BANG;

/** Runs every XXE rule over text[0, n). In strip mode adds removal spans instead of findings. */
export function scanXxe(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  declared = false;
  if ((mask & XXE_CLASSES) != XXE_CLASSES) return;
  const rEntity = enabledRule(K_XML_ENTITY);
  const rCdata = enabledRule(K_XML_CDATA);
  const doctypeOn = enabledRule(K_XML_DOCTYPE) >= 0;
  let i = 0;
  while (i + 2 < len) {
    if (at(txt, i) != 60) i = findP(txt, i, len, P_LT, 60, 60, 60, 60);
    if (i + 2 >= len) break;
    if (at(txt, i + 1) != 33) { i++; continue; }
    // DOCTYPE, ENTITY or [CDATA[: anything else after "<!" (a comment, "<!>") is skipped at once
    const k2 = at(txt, i + 2) | 32;
    if (!(k2 == 100 || k2 == 101 || k2 == 123)) { i += 2; continue; }
    if (doctypeOn && wordAt(i + 2, 'doctype') && (i + 9 >= len || !isAlnum(at(txt, i + 9)))) { i = doctype(i); continue; }
    if (rEntity >= 0 && wordAt(i + 2, 'entity') && (i + 8 >= len || !isAlnum(at(txt, i + 8)))) {
      const e = declEnd(i + 8);
      declared = true;
      hit(rEntity, i, e);
      i = e;
      continue;
    }
    if (rCdata >= 0 && wordAt(i + 2, '[cdata[')) {
      // to "]]>" or the end
      let k = i + 9;
      while (k + 2 < len && !(at(txt, k) == 93 && at(txt, k + 1) == 93 && at(txt, k + 2) == 62)) k++;
      const e = k + 2 < len ? k + 3 : len;
      hit(rCdata, i, e);
      i = e;
      continue;
    }
    i++;
  }
  if (stripMode && declared) stripParameterRefs();
}
