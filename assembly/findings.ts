// The result table of one batch (layout in ABI.md) and the per-value emit used by detectors.

import { MAX_RULES } from './rules';

export const MAX_PER_VALUE = 16;
export const MAX_PER_BATCH = 4096;
export const MATCH_CP = 80;
const ENTRY = 24;

let table: usize = 0; // u32 count, u32 dropped, entries
let strings: usize = 0; // matched-text area, MATCH_CP*2 units per entry
let capacity: i32 = 0;
let count: i32 = 0;
let dropped: i32 = 0;

// Current value context, set by the scan loop.
let curValue: i32 = 0;
let curText: usize = 0;
let curLen: i32 = 0;
let curCount: i32 = 0;
let stamp: u32 = 0;
const ruleStamp = memory.data(MAX_RULES * 4); // value stamp of the last emit per rule

/** Bytes a result region for `cap` findings needs. */
export function resultBytes(cap: i32): usize {
  return 8 + <usize>cap * (ENTRY + MATCH_CP * 4);
}

export function resultsInit(at: usize, cap: i32): void {
  table = at;
  capacity = cap;
  strings = at + 8 + <usize>cap * ENTRY;
  count = 0;
  dropped = 0;
  store<u32>(table, 0);
  store<u32>(table + 4, 0);
}

export function resultPtr(): usize {
  return table;
}

export function resultCount(): i32 {
  return count;
}

export function beginValue(index: i32, text: usize, len: i32): void {
  curValue = index;
  curText = text;
  curLen = len;
  curCount = 0;
  stamp++;
  if (stamp == 0) {
    memory.fill(ruleStamp, 0, MAX_RULES * 4);
    stamp = 1;
  }
}

/** Points later emits at a new decoded text of the same value (offsets refer to it). */
export function setText(text: usize, len: i32): void {
  curText = text;
  curLen = len;
}

/**
 * Findings read from another view of the value (its markup before decoding: scan_batch) span the
 * whole current text, so that offsets still slice the decoded value (the ABI's contract).
 */
let wholeSpan = false;

export function setWholeSpan(on: bool): void {
  wholeSpan = on;
}

/** Findings recorded for the current value so far. */
export function valueFindingCount(): i32 {
  return curCount;
}

/** True when rule r already fired for the current value (detectors may stop early). */
@inline export function fired(r: i32): bool {
  return load<u32>(ruleStamp + (<usize>r << 2)) == stamp;
}

/** Records rule r at [start, end) of the current value; first hit per rule and value only. */
export function emit(r: i32, start: i32, end: i32): void {
  if (r < 0) return;
  const slot = ruleStamp + (<usize>r << 2);
  if (load<u32>(slot) == stamp) return;
  store<u32>(slot, stamp);
  if (curCount >= MAX_PER_VALUE || count >= capacity) {
    dropped++;
    store<u32>(table + 4, <u32>dropped);
    return;
  }
  if (wholeSpan) {
    start = 0;
    end = curLen;
  }
  if (start < 0) start = 0;
  if (end > curLen) end = curLen;
  if (end < start) end = start;
  const e = table + 8 + <usize>count * ENTRY;
  // matched: at most MATCH_CP code points from start
  let units = 0;
  let cps = 0;
  while (start + units < end && cps < MATCH_CP) {
    const c = load<u16>(curText + ((<usize>(start + units)) << 1));
    let w = 1;
    if (c >= 0xd800 && c < 0xdc00 && start + units + 1 < end) {
      const d = load<u16>(curText + ((<usize>(start + units + 1)) << 1));
      if (d >= 0xdc00 && d < 0xe000) w = 2;
    }
    units += w;
    cps++;
  }
  const sp = strings + <usize>count * (MATCH_CP * 4);
  memory.copy(sp, curText + (<usize>start << 1), <usize>units << 1);
  store<u32>(e, <u32>curValue);
  store<u32>(e + 4, <u32>r);
  store<u32>(e + 8, <u32>start);
  store<u32>(e + 12, <u32>end);
  store<u32>(e + 16, <u32>sp);
  store<u32>(e + 20, <u32>units);
  count++;
  curCount++;
  store<u32>(table, <u32>count);
}

