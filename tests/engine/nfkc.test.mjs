// The engine's NFKC fold, for EVERY code point 0..0x10FFFF except the surrogates, against the
// reference: String.fromCodePoint(cp).normalize('NFKC') with Default_Ignorable_Code_Point
// characters removed. Driven through the raw ABI (assembly/ABI.md) for speed: each code point is
// its own batch value and decode_value runs the pipeline on it. A single code point never forms
// an escape, and a code point whose NFKC form is '%' or '&' (U+FF05, U+FE6A, U+FF06, U+FE60) is
// that character alone, which decodes to nothing else, so the pipeline's URL/HTML decoding adds
// nothing here: the result is the fold alone.

import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';

const WASM = new URL('../../build/shield.wasm', import.meta.url);
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const CHUNK = 16384; // code points per batch

let ex;

beforeAll(() => {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(WASM)), { env: { abort() {} } });
  ex = instance.exports;
  expect(ex.abi_version()).toBe(1);
  expect(ex.init(ex.rules_default_ptr(), ex.rules_default_len())).toBeGreaterThan(0);
});

const expectedFold = (cp) => String.fromCodePoint(cp).normalize('NFKC').replace(DEFAULT_IGNORABLE, '');
const hex = (cp) => 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
const units = (s) => [...s].map((c) => hex(c.codePointAt(0))).join(' ');

/** Folds every code point in cps (one batch value each); returns the engine's results. */
function foldAll(cps) {
  const strs = cps.map((cp) => String.fromCodePoint(cp));
  const total = strs.reduce((n, s) => n + s.length, 0);
  const ptr = ex.batch_reserve(strs.length, total);
  let buf = ex.memory.buffer;
  let dv = new DataView(buf);
  dv.setUint32(ptr, strs.length, true);
  const text = ptr + 4 + 8 * strs.length;
  let off = 0;
  for (let i = 0; i < strs.length; i++) {
    const s = strs[i];
    dv.setUint32(ptr + 4 + 8 * i, off, true);
    dv.setUint32(ptr + 8 + 8 * i, s.length, true);
    for (let k = 0; k < s.length; k++) dv.setUint16(text + 2 * (off + k), s.charCodeAt(k), true);
    off += s.length;
  }
  const out = new Array(strs.length);
  let u16 = new Uint16Array(buf);
  for (let i = 0; i < strs.length; i++) {
    const n = ex.decode_value(i);
    if (n < 0) throw new Error(`decode_value(${i}) returned ${n} for ${hex(cps[i])}`);
    if (ex.memory.buffer !== buf) {
      buf = ex.memory.buffer; // memory grew
      u16 = new Uint16Array(buf);
    }
    const p = ex.output_ptr() >>> 1;
    out[i] = n === 0 ? '' : n === 1 ? String.fromCharCode(u16[p]) : String.fromCharCode.apply(null, u16.subarray(p, p + n));
  }
  return out;
}

describe('NFKC fold of every code point', () => {
  it('the reference and the ABI agree on a few known folds (self-check)', () => {
    const cases = [
      [0x41, 'A'], [0xff33, 'S'], [0x2126, '\u03a9'], [0xfb01, 'fi'], [0x017f, 's'], [0x00bd, '1\u20442'], [0xff05, '%'],
      [0xfe6a, '%'], [0xff06, '&'], [0x200b, ''], [0x00ad, ''], [0xfeff, ''], [0xffa0, ''], [0x1d400, 'A'], [0x2028, '\u2028'],
    ];
    const got = foldAll(cases.map(([cp]) => cp));
    cases.forEach(([cp, want], i) => {
      expect(expectedFold(cp), `reference ${hex(cp)}`).toBe(want);
      expect(got[i], `engine ${hex(cp)}`).toBe(want);
    });
  });

  it('matches String.prototype.normalize("NFKC") minus default-ignorables for all 1,112,064 scalar values', () => {
    const t0 = performance.now();
    const mismatches = [];
    let checked = 0;
    let changed = 0;
    for (let start = 0; start <= 0x10ffff; start += CHUNK) {
      const cps = [];
      for (let cp = start; cp < start + CHUNK && cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) cps.push(cp);
      if (cps.length === 0) continue;
      const got = foldAll(cps);
      for (let i = 0; i < cps.length; i++) {
        const want = expectedFold(cps[i]);
        if (want !== String.fromCodePoint(cps[i])) changed++;
        if (got[i] !== want) mismatches.push(`${hex(cps[i])}: engine [${units(got[i])}] reference [${units(want)}]`);
      }
      checked += cps.length;
    }
    const ms = performance.now() - t0;
    console.log(`nfkc: ${checked} code points (${changed} folded) in ${(ms / 1000).toFixed(2)} s`);
    expect(checked).toBe(0x110000 - 0x800);
    expect(changed).toBeGreaterThan(5000); // the reference really folds (NFKC changes ~5,700 code points, ignorables ~4,100)
    expect(mismatches.length, `${mismatches.length} mismatches, first: \n${mismatches.slice(0, 40).join('\n')}`).toBe(0);
  });
});
