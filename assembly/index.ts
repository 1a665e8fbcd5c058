// shield.wasm exports (ABI version 1, documented in ABI.md). One scan call per request:
// the host packs every value into one batch and reads every finding from one result table.

import {
  loadRules, rulesLoaded, setRuleEnabled, enabledRule, K_DECODE_EXCESS, K_LIMIT_OVERSIZE, K_HTML_TAG, K_HTML_EVENT_ATTR, K_HTML_ATTR_NAME,
  K_URL_SCHEME, K_DATA_URL, K_CSS_EXPR, K_ATTR_BREAKOUT, K_JS_BREAKOUT, K_JS_CALL,
} from './rules';
import { arenaReset, arenaAlloc, arenaMark, arenaRelease, ensure, setPageLimit, arenaCommit } from './mem';
import {
  resultsInit, resultBytes, resultPtr, resultCount, beginValue, setText, setWholeSpan, valueFindingCount, emit, MAX_PER_BATCH, MAX_PER_VALUE,
} from './findings';
import { runPipeline, runPipelineClassified, outPtr, outLen, excess, roundCount, roundPtr, roundLen } from './pipeline';
import { scanXss, xssWanted, resetCssCache, initHtmlTables } from './html';
import { scanSql, initSqlTables } from './sql';
import { scanSsti, sstiWanted, resetSstiCache } from './ssti';
import { scanXxe, XXE_CLASSES } from './xxe';
import { scanCmd, cmdWanted, initCmdTables } from './cmd';
import { scanLdap, ldapWanted } from './ldap';
import { urlCandidates, MAX_URLS, buildInwardNames } from './urls';
import { jsonKeyCandidate, scanOperatorText } from './jsonkeys';
import { scanPath, resetPathCaches } from './path';
import { scanLiterals, buildLiterals, literalFront, literalVerify, frontStopped, VECTOR_MIN } from './literals';
import { classify, C_LT, C_PCT, C_AMP, C_NONASCII, C_COLON, C_SLASH, C_BSLASH, C_DQ, C_DOLLAR, C_LBRACK, C_EQ } from './classes';
import { sanitize, sanitizedPtr } from './sanitize';
import { punctReset, initText, at, isAlpha, countOf4, jsEscapeIn, escVal, escLen } from './text';
import { DEFAULT_RULES, DEFAULT_RULES_LEN } from './generated/rules-blob';

@external('env', 'abort')
declare function hostAbort(msg: u32, file: u32, line: u32, col: u32): void;

/** Abort hook (asconfig `use`): tell the host, then trap. */
export function onAbort(msg: usize, file: usize, line: u32, col: u32): void {
  hostAbort(<u32>msg, <u32>file, line, col);
  unreachable();
}

let batch: usize = 0;
let changed: usize = 0; // count bytes: the pipeline changed value i
let urls: usize = 0; // count rows of URL_ROW bytes: candidate URLs per value (urls.ts)
const URL_ROW: usize = (1 + MAX_URLS) * 4;
let batchUnits: u64 = 0; // size of the text area the host reserved
let maxValueLength: i32 = 1 << 20;
let output: usize = 0;

export function abi_version(): u32 {
  return 1;
}

export function rules_default_ptr(): u32 {
  return <u32>DEFAULT_RULES;
}

export function rules_default_len(): u32 {
  return <u32>DEFAULT_RULES_LEN;
}

/** Room for a custom rule blob, just above static data. */
export function rules_reserve(bytes: u32): u32 {
  const p = (__heap_base + 15) & ~<usize>15;
  ensure(p + <usize>bytes);
  return <u32>p;
}

export function init(ptr: u32, len: u32): i32 {
  let scratch = (__heap_base + 15) & ~<usize>15;
  if (<usize>ptr >= scratch) scratch = <usize>ptr + <usize>len;
  initText(); // (the lexer's table reads the class table)
  initCmdTables();
  initSqlTables();
  initHtmlTables();
  resetPathCaches();
  resetCssCache();
  resetSstiCache();
  const n = loadRules(<usize>ptr, <usize>len, scratch);
  if (n >= 0) {
    buildLiterals();
    buildInwardNames();
    arenaCommit();
  }
  batch = 0;
  return n;
}

export function rule_count(): u32 {
  return <u32>rulesLoaded();
}

export function set_rule_enabled(index: u32, on: u32): void {
  setRuleEnabled(<i32>index, on != 0);
}

export function set_max_value_length(units: u32): void {
  maxValueLength = <i32>(units > 0x7fffffff ? 0x7fffffff : units);
}

/** Caps linear memory at `pages` x 64 KiB; an input needing more traps (reported as engine.fault). */
export function set_memory_limit(pages: u32): void {
  setPageLimit(<i32>(pages > 65536 ? 65536 : pages));
}

export function batch_reserve(count: u32, units: u32): u32 {
  arenaReset();
  punctReset();
  batch = arenaAlloc(4 + <usize>count * 8 + (<usize>units << 1));
  batchUnits = <u64>units;
  store<u32>(batch, count);
  let cap = <i32>count * MAX_PER_VALUE;
  if (cap > MAX_PER_BATCH) cap = MAX_PER_BATCH;
  resultsInit(arenaAlloc(resultBytes(cap)), cap);
  changed = arenaAlloc(<usize>count + 8);
  // a plain loop (room for it: count + 8 bytes): V8 runs memory.fill outside the wasm code, a
  // call that costs more than zeroing a few words
  for (let k: usize = 0; k < <usize>count; k += 8) store<u64>(changed + k, 0);
  urls = arenaAlloc(<usize>count * URL_ROW + 8);
  return <u32>batch;
}

/** The first unit after JSON white space is '{' or '['. */
function jsonStart(p: usize, n: i32): bool {
  let i = 0;
  while (i < n) {
    const c = load<u16>(p + (<usize>i << 1));
    if (c == 32 || c == 9 || c == 10 || c == 13) { i++; continue; }
    return c == 123 || c == 91;
  }
  return false;
}

/** The first unit after leading controls and spaces is an ASCII letter (a scheme may start there). */
function startsWithLetter(p: usize, n: i32): bool {
  let i = 0;
  while (i < n && at(p, i) <= 32) i++;
  return i < n && isAlpha(at(p, i));
}

/** count bytes after scan_batch: bit 0 where decoding or NFKC changed the value, bit 1 where it holds a URL the bindings must judge, bit 2 where it starts like JSON with a '"'. */
export function batch_changed_ptr(): u32 {
  return <u32>changed;
}

/** count rows of {u32 n, u32 start x 16} after scan_batch: the candidate URLs of values with flag bit 1. */
export function batch_urls_ptr(): u32 {
  return <u32>urls;
}

export function result_ptr(): u32 {
  return <u32>resultPtr();
}

export function output_ptr(): u32 {
  return <u32>output;
}

/** Value i of the batch: sets vPtr/vLen; false when the header is inconsistent. */
let vPtr: usize = 0;
let vLen: i32 = 0;
function valueAt(i: u32): bool {
  if (batch == 0) return false;
  const count = load<u32>(batch);
  if (i >= count) return false;
  const text = batch + 4 + <usize>count * 8;
  const s = load<u32>(batch + 4 + <usize>i * 8);
  const l = load<u32>(batch + 8 + <usize>i * 8);
  if (<u64>s + <u64>l > batchUnits) return false; // u64: no wrap-around
  vPtr = text + (<usize>s << 1);
  vLen = <i32>l;
  return true;
}

/**
 * The markup of the value before decoding, read by the XSS detector after every other detector
 * has read the decoded text. A browser reads the tags of the text it is given, where an entity,
 * escape or fullwidth character that decoding turns into a quote or '>' is still part of an
 * attribute value: decoded, `<svg x=&quot; y onload="...">` quotes its handler away (`x=" y
 * onload="`); as given, `onload` is an attribute. The texts read (pipeline.ts notes each one a
 * pass changed): the value as given (what an application reflects), the text after the first
 * decode pass (what one that decodes once more reflects: `%3Csvg x=&amp;quot; ...`), and the last
 * text before decoding made its last quote or '>' (one that decodes once less than the engine:
 * `%253Csvg%2520x%253D%2526quot%253B...`). A text is read only when it holds a '<' and has fewer
 * quotes and '>' than the decoded text (decoding made one after it; it never removes one), and
 * only when an XSS rule is on: at most three more XSS passes, only for values that decode and
 * have no finding yet (a value with one is sanitized or refused whole anyway; attack text, most of
 * which decodes, costs no more). A finding of these texts spans the whole decoded value (offsets
 * slice the decoded value, whatever text it came from).
 */
function markupBeforeDecoding(p: usize, n: i32): void {
  if (!xssOn) return;
  // the quotes and '>' of the decoded text, counted once
  const q = markupQuotes(p, n);
  // the last noted text before the decoded one with fewer (read from the end: usually one step)
  let last = -2;
  for (let k = roundCount - 2; k >= 1; k--) {
    if (markupQuotes(roundPtr(k), roundLen(k)) < q) { last = k; break; }
  }
  setWholeSpan(true);
  markupView(vPtr, vLen, q, true);
  if (roundCount >= 2) markupView(roundPtr(0), roundLen(0), q, true);
  if (last >= 1) markupView(roundPtr(last), roundLen(last), q, false);
  setWholeSpan(false);
}

/** The quotes (" ' `) and '>' of p[0, n). */
@inline function markupQuotes(p: usize, n: i32): i32 {
  return countOf4(p, n, 34, 39, 96, 62);
}

/** Reads the markup of one text; `count`: its quotes and '>' are still to be compared with q. */
function markupView(vp: usize, vl: i32, q: i32, count: bool): void {
  const m = classify(vp, vl);
  if ((m & C_LT) == 0) return;
  if (count && markupQuotes(vp, vl) >= q) return;
  punctReset();
  scanXss(vp, vl, m);
}

/**
 * JavaScript escapes in the decoded value (`\u0061lert(1)`, `\u{61}lert`, `javascript\x3aprint()`,
 * `\152avascript:`): a value that lands in a script, or in a JavaScript string that becomes a URL,
 * runs what they spell. For a value with no finding yet that holds one, the text with \uXXXX,
 * \u{...}, \xXX and octal escapes undone is read by the listed-call literals and the XSS
 * detector. Only such values (a backslash before 'u', 'x' or a digit); one pass to undo them,
 * then one literal pass and one XSS pass; findings span the whole decoded value.
 */
function scriptEscapes(p: usize, n: i32): void {
  if (!xssOn && enabledRule(K_JS_CALL) < 0) return;
  let any = false;
  for (let k = 0; k + 1 < n; k++) {
    if (at(p, k) != 92) continue;
    const c = at(p, k + 1);
    if ((c | 32) == 117 || (c | 32) == 120 || c - 48 < 8) { any = true; break; }
    k++; // (an escaped backslash, or another escape: past it)
  }
  if (!any) return;
  const out = arenaAlloc((<usize>n + 8) << 1);
  const m = undoScriptEscapes(p, n, out);
  if (m < 0) return;
  setWholeSpan(true);
  punctReset();
  scanLiterals(out, m, K_JS_CALL);
  const mask = classify(out, m);
  if (xssOn && xssWanted(mask)) {
    punctReset();
    scanXss(out, m, mask);
  }
  setWholeSpan(false);
}

/**
 * p[0, n) with JavaScript's escapes undone (jsEscapeIn: \xHH, \uHHHH, \u{H...}, octal), into
 * out (room for n units: an escape is never shorter than what it spells); an escaped backslash
 * and every other unit as they are. Returns the length, or -1 when nothing was undone. One pass.
 */
function undoScriptEscapes(p: usize, n: i32, out: usize): i32 {
  let o = 0;
  let changed = false;
  let k = 0;
  while (k < n) {
    const c = at(p, k);
    if (c == 92 && k + 1 < n && at(p, k + 1) == 92) {
      store<u16>(out + (<usize>o << 1), 92);
      store<u16>(out + (<usize>(o + 1) << 1), 92);
      o += 2;
      k += 2;
      continue;
    }
    if (c != 92 || !jsEscapeIn(p, k, n, true)) {
      store<u16>(out + (<usize>o << 1), <u16>c);
      o++;
      k++;
      continue;
    }
    const v = escVal;
    if (v > 0xffff) {
      const x = v - 0x10000;
      store<u16>(out + (<usize>o << 1), <u16>(0xd800 + (x >> 10)));
      store<u16>(out + (<usize>(o + 1) << 1), <u16>(0xdc00 + (x & 0x3ff)));
      o += 2;
    } else {
      store<u16>(out + (<usize>o << 1), <u16>v);
      o++;
    }
    changed = true;
    k += escLen;
  }
  return changed ? o : -1;
}

/** Some rule the XSS detector reads is on (set per batch by scan_batch). */
let xssOn = true;

function anyXssRule(): bool {
  return enabledRule(K_HTML_TAG) >= 0 || enabledRule(K_HTML_EVENT_ATTR) >= 0 || enabledRule(K_HTML_ATTR_NAME) >= 0 ||
    enabledRule(K_URL_SCHEME) >= 0 || enabledRule(K_DATA_URL) >= 0 || enabledRule(K_CSS_EXPR) >= 0 ||
    enabledRule(K_ATTR_BREAKOUT) >= 0 || enabledRule(K_JS_BREAKOUT) >= 0;
}

export function scan_batch(): i32 {
  if (batch == 0) return -1;
  const count = load<u32>(batch);
  for (let i: u32 = 0; i < count; i++) if (!valueAt(i)) return -1;
  const rOversize = enabledRule(K_LIMIT_OVERSIZE);
  const rExcess = enabledRule(K_DECODE_EXCESS);
  xssOn = anyXssRule();
  for (let i: u32 = 0; i < count; i++) {
    valueAt(i);
    beginValue(<i32>i, vPtr, vLen);
    if (vLen > maxValueLength) {
      emit(rOversize, 0, vLen);
      continue;
    }
    if (vLen == 0) continue;
    const mark = arenaMark();
    // long values: the literal pass's first half classes the value (and finds the candidates
    // its second half verifies once the value is final); short ones are classed on their own
    let fronted = vLen >= VECTOR_MIN;
    let mask = fronted ? literalFront(vPtr, vLen, true) : classify(vPtr, vLen);
    let p = vPtr;
    let n = vLen;
    // (a front pass that stopped at an escape knows the value decodes: the classes it has so
    // far are enough to start the pipeline, which reads the whole value anyway)
    if (fronted && frontStopped) mask |= C_PCT;
    // a front pass that read the whole value looked at every '%' and '&' (none decodes): only
    // non-ASCII text still needs the pipeline (NFKC)
    const pipeline = fronted && !frontStopped ? (mask & C_NONASCII) != 0 : (mask & (C_PCT | C_AMP | C_NONASCII)) != 0;
    if (pipeline) {
      runPipelineClassified(vPtr, vLen, (mask & C_NONASCII) != 0 || (fronted && frontStopped));
      if (outPtr != vPtr) {
        store<u8>(changed + <usize>i, 1); // bit 0: the pipeline changed the value
        p = outPtr;
        n = outLen;
        fronted = n >= VECTOR_MIN;
        mask = fronted ? literalFront(p, n, false) : classify(p, n);
        setText(p, n);
      }
      // (never expected: an escape decodableAt accepts always decodes; read the value whole)
      else if (fronted && frontStopped) mask = literalFront(p, n, false);
      if (excess) emit(rExcess, 0, n);
    }

    // before scanPath: the literal pass notes hex-literal bytes for the path view
    if (fronted) literalVerify(-1);
    else scanLiterals(p, n, -1);
    // bit 2: a JSON object or array that may hold a listed key (after the literal pass: its quote bitmap serves)
    const json = (mask & C_DQ) != 0 && jsonStart(p, n);
    if (json && jsonKeyCandidate(p, n)) store<u8>(changed + <usize>i, load<u8>(changed + <usize>i) | 4);
    // operator keys written as JavaScript or query-string keys ({ $ne: 1 }, [$ne]=1, .$ne=1)
    if ((mask & C_DOLLAR) != 0 && (mask & (C_COLON | C_LBRACK | C_EQ)) != 0) scanOperatorText(p, n, json);
    // bit 1: URLs the bindings must judge, listed in `urls` (after the literal pass: its colon bitmap serves)
    // (or a value that is one URL without slashes: "http:127.0.0.1")
    if ((mask & C_COLON) != 0 && ((mask & (C_SLASH | C_BSLASH)) != 0 || startsWithLetter(p, n)) &&
      urlCandidates(p, n, urls + <usize>i * URL_ROW) > 0) store<u8>(changed + <usize>i, load<u8>(changed + <usize>i) | 2);
    // each detector only where the value holds characters it needs (a call that would return at
    // once costs a few ns: most of a short value's time is such calls)
    if (xssWanted(mask)) scanXss(p, n, mask);
    scanSql(p, n, mask);
    if (sstiWanted(n, mask)) scanSsti(p, n, mask);
    if ((mask & XXE_CLASSES) == XXE_CLASSES) scanXxe(p, n, mask);
    if (cmdWanted(p, n, mask)) scanCmd(p, n, mask);
    if (ldapWanted(mask)) scanLdap(p, n, mask);
    scanPath(p, n, mask);
    // (a value with a finding is already sanitized or refused whole: only a clean one needs them)
    if (p != vPtr && valueFindingCount() == 0) markupBeforeDecoding(p, n);
    if ((mask & C_BSLASH) != 0 && valueFindingCount() == 0) scriptEscapes(p, n);
    punctReset();
    arenaRelease(mark);
  }
  return resultCount();
}

export function decode_value(index: u32): i32 {
  punctReset();
  if (!valueAt(index)) return -1;
  runPipeline(vPtr, vLen);
  output = outPtr;
  return outLen;
}

export function sanitize_value(index: u32, flags: u32): i32 {
  punctReset();
  if (!valueAt(index)) return -1;
  const n = sanitize(vPtr, vLen, flags);
  output = sanitizedPtr();
  return n;
}
