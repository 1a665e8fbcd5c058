// Rules of kind "substring": case-insensitive literals that are hostile wherever they occur
// (UTF-7 markup, base64 of "<script"). One pass over the value per rule with a first-character
// filter; literals are short, so the scan is linear in practice and bounded by
// value length x total literal length in the worst case.

import { at, lower } from './text';
import { K_SUBSTRING, firstRule, nextRule, ruleEnabled, paramCount, paramPtr, paramLen } from './rules';
import { emit } from './findings';

export function scanSubstrings(p: usize, n: i32): void {
  let r = firstRule(K_SUBSTRING);
  while (r >= 0) {
    if (ruleEnabled(r)) {
      const np = paramCount(r);
      let done = false;
      for (let i = 0; i < n && !done; i++) {
        const c = lower(at(p, i));
        for (let k = 0; k < np; k++) {
          const w = paramPtr(r, k);
          if (<u32>load<u8>(w) != c) continue;
          const wl = paramLen(r, k);
          if (i + wl > n) continue;
          let same = true;
          for (let j = 1; j < wl; j++) {
            if (lower(at(p, i + j)) != <u32>load<u8>(w + j)) { same = false; break; }
          }
          if (same) { emit(r, i, i + wl); done = true; break; }
        }
      }
    }
    r = nextRule(r);
  }
}
