// Removal spans collected by detectors in strip mode, applied by the sanitizer.

import { arenaAlloc } from './mem';

export let stripMode = false;
let base: usize = 0;
let cap: i32 = 0;
let count: i32 = 0;

export function spansBegin(capacity: i32): void {
  base = arenaAlloc(<usize>capacity * 8);
  cap = capacity;
  count = 0;
  stripMode = true;
}

export function spansEnd(): void {
  stripMode = false;
}

export function spanCount(): i32 {
  return count;
}

@inline export function spanStart(k: i32): i32 {
  return load<i32>(base + (<usize>k << 3));
}

@inline export function spanEnd(k: i32): i32 {
  return load<i32>(base + (<usize>k << 3) + 4);
}

/** Adds [s, e); when full, widens the last span instead (removes more, never less). */
export function addSpan(s: i32, e: i32): void {
  if (e <= s) return;
  if (count >= cap) {
    const k = count - 1;
    if (s < spanStart(k)) store<i32>(base + (<usize>k << 3), s);
    if (e > spanEnd(k)) store<i32>(base + (<usize>k << 3) + 4, e);
    return;
  }
  store<i32>(base + (<usize>count << 3), s);
  store<i32>(base + (<usize>count << 3) + 4, e);
  count++;
}

/** Sorts spans by start (insertion sort: spans arrive almost in order). */
export function sortSpans(): void {
  for (let i = 1; i < count; i++) {
    const s = spanStart(i);
    const e = spanEnd(i);
    let j = i - 1;
    while (j >= 0 && spanStart(j) > s) {
      store<i32>(base + (<usize>(j + 1) << 3), spanStart(j));
      store<i32>(base + (<usize>(j + 1) << 3) + 4, spanEnd(j));
      j--;
    }
    store<i32>(base + (<usize>(j + 1) << 3), s);
    store<i32>(base + (<usize>(j + 1) << 3) + 4, e);
  }
}
