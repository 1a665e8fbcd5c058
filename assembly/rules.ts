// The rule table, loaded at init from a rule blob (see ABI.md). Detectors are code that knows
// a structure (HTML tags, SQL tokens, path segments); rules are data that say which names,
// words and schemes in that structure are hostile, so a rule change is a data change.

import { arenaInit, arenaAlloc } from './mem';
import { lower, hashLower, hashBytes } from './text';

export const MAX_RULES = 256;

// Matcher kinds. Their names (used in the blob) and parameter meanings: rules/README.md.
export const K_NONE = 0;
export const K_HTML_TAG = 1;
export const K_HTML_EVENT_ATTR = 2;
export const K_HTML_ATTR_NAME = 3;
export const K_URL_SCHEME = 4;
export const K_DATA_URL = 5;
export const K_CSS_EXPR = 6;
export const K_ATTR_BREAKOUT = 7;
export const K_JS_BREAKOUT = 8;
export const K_JS_CALL = 9;
export const K_SUBSTRING = 10;
export const K_SQL_TAUTOLOGY = 20;
export const K_SQL_UNION = 21;
export const K_SQL_STACKED = 22;
export const K_SQL_CALL = 23;
export const K_SQL_PHRASE = 24;
export const K_SQL_COMMENT = 25;
export const K_SQL_BREAKOUT = 26;
export const K_SQL_CONDITIONAL = 33;
export const K_SHELL_COMMAND = 27;
export const K_SHELL_RARE = 28;
export const K_SHELL_SUBST = 29;
export const K_SHELL_SWITCH = 34;
export const K_TEMPLATE_EXPR = 30;
export const K_TEMPLATE_NAME = 31;
export const K_SSTI_DUNDER = 32;
export const K_PATH_TRAVERSAL = 40;
export const K_PATH_FILE = 41;
export const K_PATH_WRAPPER = 42;
export const K_PATH_NUL = 43;
export const K_PATH_UNC = 44;
export const K_OBJECT_KEY = 45; // keys of objects: judged by the bindings' object walk, not by scan
export const K_URL_INTERNAL = 46; // URLs to internal hosts: judged by the bindings (validateUrl) on decoded text
export const K_URL_SMUGGLING = 47; // URLs of request-smuggling schemes: reported by the bindings
export const K_LDAP_FILTER = 48;
export const K_PATH_STREAM = 49;
export const K_XML_DOCTYPE = 50;
export const K_XML_ENTITY = 51;
export const K_XML_CDATA = 52;
export const K_DECODE_EXCESS = 60;
export const K_LIMIT_OVERSIZE = 61;
export const K_ENGINE_FAULT = 62;
export const K_COUNT = 64;

const KIND_NAMES: string[] = [
  'html-tag', 'html-event-attr', 'html-attr-name', 'url-scheme', 'data-url', 'css-expression',
  'attr-breakout', 'js-breakout', 'js-call', 'substring',
  'sql-tautology', 'sql-union', 'sql-stacked', 'sql-call', 'sql-phrase', 'sql-comment', 'sql-breakout', 'sql-conditional',
  'path-traversal', 'path-file', 'path-wrapper', 'path-nul', 'path-unc',
  'decode-excess', 'limit-oversize', 'engine-fault',
  'template-expression', 'template-name', 'ssti-dunder', 'xml-doctype', 'xml-entity', 'xml-cdata',
  'shell-command', 'shell-command-rare', 'shell-substitution', 'shell-switch', 'object-key', 'url-internal', 'url-smuggling',
  'ldap-filter', 'path-stream',
];
const KIND_CODES: i32[] = [
  K_HTML_TAG, K_HTML_EVENT_ATTR, K_HTML_ATTR_NAME, K_URL_SCHEME, K_DATA_URL, K_CSS_EXPR,
  K_ATTR_BREAKOUT, K_JS_BREAKOUT, K_JS_CALL, K_SUBSTRING,
  K_SQL_TAUTOLOGY, K_SQL_UNION, K_SQL_STACKED, K_SQL_CALL, K_SQL_PHRASE, K_SQL_COMMENT, K_SQL_BREAKOUT, K_SQL_CONDITIONAL,
  K_PATH_TRAVERSAL, K_PATH_FILE, K_PATH_WRAPPER, K_PATH_NUL, K_PATH_UNC,
  K_DECODE_EXCESS, K_LIMIT_OVERSIZE, K_ENGINE_FAULT,
  K_TEMPLATE_EXPR, K_TEMPLATE_NAME, K_SSTI_DUNDER, K_XML_DOCTYPE, K_XML_ENTITY, K_XML_CDATA,
  K_SHELL_COMMAND, K_SHELL_RARE, K_SHELL_SUBST, K_SHELL_SWITCH, K_OBJECT_KEY, K_URL_INTERNAL, K_URL_SMUGGLING,
  K_LDAP_FILTER, K_PATH_STREAM,
];

// Per-rule columns (static, MAX_RULES entries each).
const ruleKind = memory.data(MAX_RULES);
const ruleOn = memory.data(MAX_RULES);
const ruleParam0 = memory.data(MAX_RULES * 4); // u32 first param index
const ruleParamN = memory.data(MAX_RULES * 4); // u32 param count
const ruleNext = memory.data(MAX_RULES * 4); // i32 next rule of the same kind, -1 ends
const kindFirst = memory.data(K_COUNT * 4); // i32 first rule of each kind, -1 none
const ruleLenMask = memory.data(MAX_RULES * 4); // bit l set: a param of length l (31: longer)
const ruleFirstMask = memory.data(MAX_RULES * 4); // bit (c & 31) set: a param starts with c
const ruleLenFirst = memory.data(MAX_RULES * 32 * 4); // per length l (31: longer), bit (c & 31): a param of length l starts with c
const ruleBloom = memory.data(MAX_RULES * 8); // bit (hash & 63) set for each param's hash
const ruleTable = memory.data(MAX_RULES * 4); // u32 address of the rule's param hash table, or 0
const ruleTableMask = memory.data(MAX_RULES * 4); // u32 table size - 1

// Params: 12 bytes each {u32 ptr, u32 len, u32 hash}; ptr into the blob copy.
let paramBase: usize = 0;
let ruleCount: i32 = 0;

export function rulesLoaded(): i32 {
  return ruleCount;
}

@inline export function firstRule(kind: i32): i32 {
  return load<i32>(kindFirst + (<usize>kind << 2));
}

@inline export function nextRule(r: i32): i32 {
  return load<i32>(ruleNext + (<usize>r << 2));
}

@inline export function ruleKindOf(r: i32): i32 {
  return <i32>load<u8>(ruleKind + <usize>r);
}

@inline export function ruleEnabled(r: i32): bool {
  return load<u8>(ruleOn + <usize>r) != 0;
}

export function setRuleEnabled(r: i32, on: bool): void {
  if (r >= 0 && r < ruleCount) store<u8>(ruleOn + <usize>r, on ? 1 : 0);
  rulesChanged();
}

// The word filter of a kind (kindWordFilter): for every enabled rule of the kind, per param
// length l (31: longer) and first character f, a u32 whose bit (c & 31) is set when such a param
// ends with c. Remade when the rules or their switches have changed since. Few kinds ask for one:
// they share FILTER_SLOTS slots; a kind beyond them gets ALL_PASS (every bit set: a filter that
// refuses nothing, slower and still correct).
let rulesGen: u32 = 1; // bumped by loadRules and setRuleEnabled
const FILTER_BYTES = 32 * 32 * 4;
const FILTER_SLOTS = 8;
const kindFilter = memory.data(FILTER_SLOTS * FILTER_BYTES);
const kindSlot = memory.data(K_COUNT); // slot + 1 of each kind, 0: none yet
let slotsUsed = 0;
const ALL_PASS = memory.data(FILTER_BYTES);
let allPassReady = false;
const kindFilterGen = memory.data(K_COUNT * 4); // the rulesGen each kind's filter was made at (0: never)

/** Every kind's filter is stale. (After 2^32 changes the count wraps: the stamps are cleared then, so none matches by chance.) */
function rulesChanged(): void {
  rulesGen++;
  if (rulesGen == 0) {
    memory.fill(kindFilterGen, 0, K_COUNT * 4);
    rulesGen = 1;
  }
}

/** The filter of a kind for filterMayHave: no enabled rule of the kind has a param it refuses. */
export function kindWordFilter(kind: i32): usize {
  let slot = <i32>load<u8>(kindSlot + <usize>kind) - 1;
  if (slot < 0) {
    if (slotsUsed >= FILTER_SLOTS) {
      if (!allPassReady) { memory.fill(ALL_PASS, 0xff, FILTER_BYTES); allPassReady = true; }
      return ALL_PASS;
    }
    slot = slotsUsed++;
    store<u8>(kindSlot + <usize>kind, <u8>(slot + 1));
    store<u32>(kindFilterGen + (<usize>kind << 2), 0);
  }
  const f = kindFilter + <usize>slot * FILTER_BYTES;
  if (load<u32>(kindFilterGen + (<usize>kind << 2)) != rulesGen) {
    memory.fill(f, 0, FILTER_BYTES);
    let r = firstRule(kind);
    while (r >= 0) {
      if (ruleEnabled(r)) {
        const np = paramCount(r);
        for (let k = 0; k < np; k++) {
          const w = paramPtr(r, k);
          const l = paramLen(r, k);
          if (l <= 0) continue;
          const at = f + filterOffset(l, <u32>load<u8>(w));
          store<u32>(at, load<u32>(at) | (<u32>1 << (<u32>load<u8>(w + <usize>(l - 1)) & 31)));
        }
      }
      r = nextRule(r);
    }
    store<u32>(kindFilterGen + (<usize>kind << 2), rulesGen);
  }
  return f;
}

/**
 * Quick reject over a kind (filter from kindWordFilter): no enabled rule of it has a param of
 * this length, first and last character (ASCII case-insensitively, as paramIs compares).
 */
@inline export function filterMayHave(f: usize, p: usize, i: i32, len: i32): bool {
  if (len <= 0) return false;
  const d = lower(<u32>load<u16>(p + (<usize>(i + len - 1) << 1)));
  return ((load<u32>(f + filterOffset(len, lower(<u32>load<u16>(p + (<usize>i << 1))))) >> (d & 31)) & 1) != 0;
}

/** filterMayHave over two kinds' filters at once (one reading of the word). */
@inline export function filterPairMayHave(f: usize, g: usize, p: usize, i: i32, len: i32): bool {
  if (len <= 0) return false;
  const d = lower(<u32>load<u16>(p + (<usize>(i + len - 1) << 1)));
  const at = filterOffset(len, lower(<u32>load<u16>(p + (<usize>i << 1))));
  return (((load<u32>(f + at) | load<u32>(g + at)) >> (d & 31)) & 1) != 0;
}

/** The byte offset in a kind filter of the last-letter set of words of this length (31: longer) and first character. */
@inline function filterOffset(len: i32, first: u32): usize {
  return ((<usize>(len >= 31 ? 31 : len) << 5) | (<usize>first & 31)) << 2;
}

/** Some param of rule r may have this length and first character. */
@inline export function mayHave(r: i32, p: usize, i: i32, len: i32): bool {
  if (len <= 0) return false;
  const lb: usize = len >= 31 ? 31 : <usize>len;
  const c = lower(<u32>load<u16>(p + (<usize>i << 1)));
  return (load<u32>(ruleLenFirst + (<usize>r << 7) + (lb << 2)) & (1 << (c & 31))) != 0;
}

/** First enabled rule of a kind, or -1. For kinds with one rule and no parameters. */
export function enabledRule(kind: i32): i32 {
  let r = firstRule(kind);
  while (r >= 0) {
    if (ruleEnabled(r)) return r;
    r = nextRule(r);
  }
  return -1;
}

/** True when any enabled rule of this kind exists: lets a detector skip whole passes. */
export function kindActive(kind: i32): bool {
  return enabledRule(kind) >= 0;
}

@inline export function paramCount(r: i32): i32 {
  return load<i32>(ruleParamN + (<usize>r << 2));
}

@inline function paramAt(r: i32, k: i32): usize {
  return paramBase + (<usize>(load<u32>(ruleParam0 + (<usize>r << 2)) + <u32>k)) * 12;
}

@inline export function paramPtr(r: i32, k: i32): usize {
  return <usize>load<u32>(paramAt(r, k));
}

@inline export function paramLen(r: i32, k: i32): i32 {
  return <i32>load<u32>(paramAt(r, k) + 4);
}

/**
 * Index of the parameter of rule r equal (ASCII case-insensitively) to text[i, i+len), or -1.
 * `h` is hashLower of that text, computed once by the caller for all rules it asks.
 */
export function paramIndex(r: i32, p: usize, i: i32, len: i32, h: u32): i32 {
  // (its callers have asked mayHave first)
  if ((load<u64>(ruleBloom + (<usize>r << 3)) & (<u64>1 << (<u64>h & 63))) == 0) return -1;
  const table = <usize>load<u32>(ruleTable + (<usize>r << 2));
  if (table != 0) {
    // rules with many params: an open-addressing table of param indexes by hash
    const mask = load<u32>(ruleTableMask + (<usize>r << 2));
    let slot = h & mask;
    for (let probe: u32 = 0; probe <= mask; probe++) {
      const v = <i32>load<u16>(table + (<usize>slot << 1));
      if (v == 0) return -1;
      if (paramIs(r, v - 1, p, i, len, h)) return v - 1;
      slot = (slot + 1) & mask;
    }
    return -1;
  }
  const n = paramCount(r);
  for (let k = 0; k < n; k++) if (paramIs(r, k, p, i, len, h)) return k;
  return -1;
}

/** Param k of rule r equals text[i, i+len) (hash h), ASCII case-insensitively. */
@inline function paramIs(r: i32, k: i32, p: usize, i: i32, len: i32, h: u32): bool {
  const e = paramAt(r, k);
  if (load<u32>(e + 8) != h || <i32>load<u32>(e + 4) != len) return false;
  const w = <usize>load<u32>(e);
  for (let j = 0; j < len; j++) {
    if (lower(<u32>load<u16>(p + ((<usize>(i + j)) << 1))) != <u32>load<u8>(w + j)) return false;
  }
  return true;
}

const TABLE_MIN_PARAMS = 9; // fewer params: a linear search behind the bloom filter is as fast

/** Builds the hash table of every rule with many params (after loadRules, in the arena). */
function buildParamTables(): void {
  for (let r = 0; r < ruleCount; r++) {
    store<u32>(ruleTable + (<usize>r << 2), 0);
    const n = paramCount(r);
    if (n < TABLE_MIN_PARAMS || n > 32767) continue;
    let size: u32 = 16;
    while (size < <u32>n * 2) size <<= 1;
    const t = arenaAlloc(<usize>size << 1);
    memory.fill(t, 0, <usize>size << 1);
    const mask = size - 1;
    for (let k = 0; k < n; k++) {
      let slot = load<u32>(paramAt(r, k) + 8) & mask;
      while (load<u16>(t + (<usize>slot << 1)) != 0) slot = (slot + 1) & mask;
      store<u16>(t + (<usize>slot << 1), <u16>(k + 1));
    }
    store<u32>(ruleTable + (<usize>r << 2), <u32>t);
    store<u32>(ruleTableMask + (<usize>r << 2), mask);
  }
}

/** Like paramIndex, hashing only when the quick reject lets the word through. */
export function paramFind(r: i32, p: usize, i: i32, len: i32): i32 {
  if (!mayHave(r, p, i, len)) return -1;
  return paramIndex(r, p, i, len, hashLower(p, i, len));
}

/** The length filter of every enabled rule of a kind, OR-ed (bit l: some param has length l; 31: longer). */
export function kindLenMask(kind: i32): u32 {
  return kindMask(kind, ruleLenMask);
}

/** The first-character filter of every enabled rule of a kind, OR-ed (bit c & 31: some param may start with c). */
export function kindFirstMask(kind: i32): u32 {
  return kindMask(kind, ruleFirstMask);
}

/** A per-rule mask table (ruleLenMask, ruleFirstMask) OR-ed over the enabled rules of a kind. */
function kindMask(kind: i32, masks: usize): u32 {
  let m: u32 = 0;
  let r = firstRule(kind);
  while (r >= 0) {
    if (ruleEnabled(r)) m |= load<u32>(masks + (<usize>r << 2));
    r = nextRule(r);
  }
  return m;
}

/** Some param of rule r may start with c (a filter on c & 31: it may answer yes wrongly, never no). */
@inline export function mayStartWith(r: i32, c: u32): bool {
  return (load<u32>(ruleFirstMask + (<usize>r << 2)) & (1 << (lower(c) & 31))) != 0;
}

/** First enabled rule of `kind` having text[i, i+len) among its params, or -1. */
export function ruleWithWord(kind: i32, p: usize, i: i32, len: i32): i32 {
  let r = firstRule(kind);
  if (r < 0) return -1;
  let h: u32 = 0;
  let hashed = false;
  while (r >= 0) {
    if (ruleEnabled(r) && mayHave(r, p, i, len)) {
      if (!hashed) { h = hashLower(p, i, len); hashed = true; }
      if (paramIndex(r, p, i, len, h) >= 0) return r;
    }
    r = nextRule(r);
  }
  return -1;
}

function kindCode(p: usize, len: i32): i32 {
  for (let k = 0; k < KIND_NAMES.length; k++) {
    const name = KIND_NAMES[k];
    if (name.length != len) continue;
    let same = true;
    for (let j = 0; j < len; j++) {
      if (<u32>name.charCodeAt(j) != <u32>load<u8>(p + j)) { same = false; break; }
    }
    if (same) return KIND_CODES[k];
  }
  return -1;
}

/**
 * Parses a blob that the host wrote at [ptr, ptr+len). The blob stays where it is (params point
 * into it); the arena starts after whichever is higher, the blob or the param table.
 */
export function loadRules(ptr: usize, len: usize, scratch: usize): i32 {
  rulesChanged();
  ruleCount = 0;
  for (let k = 0; k < K_COUNT; k++) store<i32>(kindFirst + (<usize>k << 2), -1);
  const end = ptr + len;
  if (len < 8) return -3;
  if (load<u32>(ptr) != 0x42524853) return -1;
  if (load<u16>(ptr + 4) != 1) return -2;
  const n = <i32>load<u16>(ptr + 6);
  if (n > MAX_RULES) return -5;
  // First pass: count params to size the param table.
  let q = ptr + 8;
  let totalParams = 0;
  for (let r = 0; r < n; r++) {
    for (let s = 0; s < 3; s++) {
      if (q >= end) return -3;
      q += 1 + <usize>load<u8>(q);
    }
    if (q + 4 > end) return -3;
    const pc = <i32>load<u16>(q + 2);
    q += 4;
    for (let k = 0; k < pc; k++) {
      if (q >= end) return -3;
      q += 1 + <usize>load<u8>(q);
    }
    if (q > end) return -3;
    totalParams += pc;
  }
  paramBase = (scratch + 15) & ~<usize>15;
  arenaInit(paramBase + <usize>totalParams * 12);
  const lastOfKind = memory.data(K_COUNT * 4);
  for (let k = 0; k < K_COUNT; k++) store<i32>(lastOfKind + (<usize>k << 2), -1);
  q = ptr + 8;
  let pi: u32 = 0;
  for (let r = 0; r < n; r++) {
    q += 1 + <usize>load<u8>(q); // id: the host keeps ids; the engine reports indexes
    q += 1 + <usize>load<u8>(q); // vector
    const kl = <i32>load<u8>(q);
    const kind = kindCode(q + 1, kl);
    if (kind < 0) return -4;
    q += 1 + <usize>kl;
    const flags = load<u8>(q + 1);
    const pc = <u32>load<u16>(q + 2);
    q += 4;
    store<u8>(ruleKind + <usize>r, <u8>kind);
    store<u8>(ruleOn + <usize>r, flags & 1);
    store<u32>(ruleParam0 + (<usize>r << 2), pi);
    store<u32>(ruleParamN + (<usize>r << 2), pc);
    store<i32>(ruleNext + (<usize>r << 2), -1);
    let lenMask: u32 = 0;
    let firstMask: u32 = 0;
    let bloom: u64 = 0;
    const lenFirst = ruleLenFirst + (<usize>r << 7);
    memory.fill(lenFirst, 0, 32 * 4);
    for (let k: u32 = 0; k < pc; k++) {
      const l = <i32>load<u8>(q);
      lenMask |= 1 << (l >= 31 ? 31 : <u32>l);
      if (l > 0) {
        const bit: u32 = 1 << (<u32>load<u8>(q + 1) & 31);
        firstMask |= bit;
        const at = lenFirst + ((l >= 31 ? 31 : <usize>l) << 2);
        store<u32>(at, load<u32>(at) | bit);
      }
      const e = paramBase + <usize>pi * 12;
      store<u32>(e, <u32>(q + 1));
      store<u32>(e + 4, <u32>l);
      const hb = hashBytes(q + 1, l);
      store<u32>(e + 8, hb);
      bloom |= <u64>1 << (<u64>hb & 63);
      q += 1 + <usize>l;
      pi++;
    }
    store<u32>(ruleLenMask + (<usize>r << 2), lenMask);
    store<u32>(ruleFirstMask + (<usize>r << 2), firstMask);
    store<u64>(ruleBloom + (<usize>r << 3), bloom);
    const last = load<i32>(lastOfKind + (<usize>kind << 2));
    if (last < 0) store<i32>(kindFirst + (<usize>kind << 2), r);
    else store<i32>(ruleNext + (<usize>last << 2), r);
    store<i32>(lastOfKind + (<usize>kind << 2), r);
  }
  ruleCount = n;
  buildParamTables();
  return n;
}
