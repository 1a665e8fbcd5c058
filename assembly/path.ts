// Path traversal: judged on path segments (a segment made only of two or more dots between
// separators, '/' and '\' alike), known sensitive files at segment boundaries, stream
// wrappers, and NUL bytes that truncate file names. Linear in the value.

import { at, lower, isAlnum } from './text';
import {
  K_PATH_TRAVERSAL, K_PATH_FILE, K_PATH_WRAPPER, K_PATH_NUL, firstRule, nextRule, ruleEnabled,
  paramCount, paramPtr, paramLen, enabledRule,
} from './rules';
import { emit } from './findings';

let txt: usize = 0;
let len = 0;

@inline function isSep(c: u32): bool {
  return c == 47 || c == 92;
}

function traversal(r: i32): void {
  for (let i = 0; i + 1 < len; i++) {
    if (at(txt, i) != 46 || at(txt, i + 1) != 46) continue;
    if (i > 0 && !isSep(at(txt, i - 1))) {
      // skip the rest of this dot run so the scan stays linear
      while (i + 1 < len && at(txt, i + 1) == 46) i++;
      continue;
    }
    let j = i + 2;
    while (j < len && at(txt, j) == 46) j++;
    // "..;/" (path parameters) and "..%00" forms
    let k = j;
    if (k < len && at(txt, k) == 59) {
      while (k < len && !isSep(at(txt, k)) && k - j < 64) k++;
    }
    if ((k < len && isSep(at(txt, k))) || (k >= len && i > 0)) {
      emit(r, i > 0 ? i - 1 : i, k < len ? k + 1 : k);
      return;
    }
    i = j - 1;
  }
}

/** Param text equals txt at i, '/' in the param matching '/' or '\'. */
function paramAt(w: usize, wl: i32, i: i32): bool {
  if (i + wl > len) return false;
  for (let j = 0; j < wl; j++) {
    const pc = <u32>load<u8>(w + j);
    const c = lower(at(txt, i + j));
    if (pc == 47) { if (!isSep(c)) return false; }
    else if (pc != c) return false;
  }
  return true;
}

/** Sensitive files: a param at a segment start; a leading '^' anchors it to the value start. */
function files(r: i32): bool {
  const n = paramCount(r);
  // first non-space position for anchored params
  let s0 = 0;
  while (s0 < len && at(txt, s0) <= 32) s0++;
  for (let i = 0; i < len; i++) {
    if (i > 0 && !isSep(at(txt, i - 1))) continue;
    for (let k = 0; k < n; k++) {
      let w = paramPtr(r, k);
      let wl = paramLen(r, k);
      let anchored = false;
      if (load<u8>(w) == 94) { anchored = true; w++; wl--; }
      const at0 = anchored ? s0 : i;
      if (anchored && i != 0) continue;
      if (!paramAt(w, wl, at0)) continue;
      const e = at0 + wl;
      const last = <u32>load<u8>(w + wl - 1);
      if (e < len && last != 47 && isAlnum(at(txt, e))) continue; // "etc/passwords" is not etc/passwd
      emit(r, at0, e);
      return true;
    }
  }
  return false;
}

/** Stream wrappers and filter chains: php://filter, phar://, convert.iconv. ... */
function wrappers(r: i32): bool {
  const n = paramCount(r);
  for (let i = 0; i < len; i++) {
    if (i > 0 && isAlnum(at(txt, i - 1))) continue;
    const c = lower(at(txt, i));
    for (let k = 0; k < n; k++) {
      const w = paramPtr(r, k);
      if (<u32>load<u8>(w) != c) continue;
      const wl = paramLen(r, k);
      if (!paramAt(w, wl, i)) continue;
      emit(r, i, i + wl);
      return true;
    }
  }
  return false;
}

export function scanPath(p: usize, n: i32): void {
  txt = p;
  len = n;
  let hasDot = false;
  let hasSep = false;
  let hasNul = false;
  let hasColon = false;
  for (let i = 0; i < n; i++) {
    const c = at(txt, i);
    if (c == 46) hasDot = true;
    else if (c == 47 || c == 92) hasSep = true;
    else if (c == 0) hasNul = true;
    else if (c == 58) hasColon = true;
  }
  if (hasDot && (hasSep || n > 2)) {
    const r = enabledRule(K_PATH_TRAVERSAL);
    if (r >= 0) traversal(r);
  }
  if (hasSep || hasDot) {
    let r = firstRule(K_PATH_FILE);
    while (r >= 0) {
      if (ruleEnabled(r) && files(r)) break;
      r = nextRule(r);
    }
  }
  if (hasColon || hasDot) {
    let r = firstRule(K_PATH_WRAPPER);
    while (r >= 0) {
      if (ruleEnabled(r) && wrappers(r)) break;
      r = nextRule(r);
    }
  }
  if (hasNul) {
    const r = enabledRule(K_PATH_NUL);
    if (r >= 0) {
      for (let i = 0; i < n; i++) if (at(txt, i) == 0) { emit(r, i, i + 1); break; }
    }
  }
}
