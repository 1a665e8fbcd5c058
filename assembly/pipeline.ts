// The per-value pipeline (DESIGN 8): up to 4 rounds of {one URL + HTML-entity decode pass,
// then NFKC and removal of default-ignorables}, stopping when a round changes nothing.
// Values with nothing to decode or normalize (ASCII without '%' or '&') skip every pass.

import { at } from './text';
import { decodeOnce, decodeChanged, hasDecodable } from './decode';
import { foldLength, foldInto, foldChanged, foldNeeded, foldStopIn, foldStopOut, foldStopChanged } from './normalize';
import { arenaAlloc } from './mem';

export const MAX_ROUNDS = 4;

export let outPtr: usize = 0;
export let outLen: i32 = 0;
export let excess = false;

// Every text between the value and outPtr/outLen: after each round's decode pass and after its
// NFKC pass, when that pass changed the text (the last is the result itself). What an application
// that decodes fewer times than the engine, or does not normalize, would reflect: scan_batch
// reads the markup of the first one again (markupBeforeDecoding). In the arena, valid until the
// value's arena mark is released.
export let roundCount = 0;
const ROUND_PTRS = memory.data(MAX_ROUNDS * 2 * 4);
const ROUND_LENS = memory.data(MAX_ROUNDS * 2 * 4);

function noteRound(p: usize, n: i32): void {
  store<u32>(ROUND_PTRS + (<usize>roundCount << 2), <u32>p);
  store<i32>(ROUND_LENS + (<usize>roundCount << 2), n);
  roundCount++;
}

export function roundPtr(k: i32): usize {
  return <usize>load<u32>(ROUND_PTRS + (<usize>k << 2));
}

export function roundLen(k: i32): i32 {
  return load<i32>(ROUND_LENS + (<usize>k << 2));
}

function hasNonAscii(p: usize, n: i32): bool {
  for (let i = 0; i < n; i++) if (at(p, i) >= 0x80) return true;
  return false;
}

function needsWork(p: usize, n: i32): bool {
  for (let i = 0; i < n; i++) {
    const c = at(p, i);
    if (c >= 0x80 || c == 37 || c == 38) return true;
  }
  return false;
}

/** Runs the pipeline on p[0, n); the result is outPtr/outLen (p itself when nothing changed). */
export function runPipeline(p: usize, n: i32): void {
  outPtr = p;
  outLen = n;
  excess = false;
  roundCount = 0;
  if (!needsWork(p, n)) return;
  // the common case of a stray '&' or '%' in ASCII text: nothing decodes, nothing to normalize
  if (!hasNonAscii(p, n) && !hasDecodable(p, n)) return;
  decodeRounds(p, n);
}

/** Like runPipeline, with the classes of the value already known (no non-ASCII: skip that scan). */
export function runPipelineClassified(p: usize, n: i32, nonAscii: bool): void {
  outPtr = p;
  outLen = n;
  excess = false;
  roundCount = 0;
  if (!nonAscii && !hasDecodable(p, n)) return;
  decodeRounds(p, n);
}

function decodeRounds(p: usize, n: i32): void {
  let cur = p;
  let curLen = n;
  let rounds = 0;
  while (rounds < MAX_ROUNDS) {
    const a = arenaAlloc((<usize>curLen + 8) << 1);
    const la = decodeOnce(cur, curLen, a);
    const ch1 = decodeChanged;
    let b = a;
    let lb = la;
    let ch2 = false;
    // (already folded, as most non-ASCII text is: no second pass and no copy)
    if (foldNeeded(a, la)) {
      // one pass into room for the text's own length (most folds do not lengthen it: fullwidth
      // forms, NBSP, ideographic spaces); the exact length first only when it would not fit
      b = arenaAlloc((<usize>la + 8) << 1);
      lb = foldInto(a, la, b, la + 8, 0, 0, false);
      if (lb < 0) {
        // on from where it stopped, into room for the rest's exact length
        const si = foldStopIn;
        const so = foldStopOut;
        const lf = so + foldLength(a + (<usize>si << 1), la - si);
        const b2 = arenaAlloc((<usize>lf + 8) << 1);
        memory.copy(b2, b, <usize>so << 1);
        lb = foldInto(a, la, b2, lf, si, so, foldStopChanged);
        b = b2;
      }
      ch2 = foldChanged;
    }
    if (!ch1 && !ch2) break;
    if (ch1) noteRound(a, la);
    if (ch2) noteRound(b, lb);
    cur = b;
    curLen = lb;
    rounds++;
  }
  if (rounds == MAX_ROUNDS) excess = hasDecodable(cur, curLen);
  outPtr = cur;
  outLen = curLen;
}
