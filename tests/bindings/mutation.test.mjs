// SPEC "Mutation test suite": every attack payload of the detector vector files (DETECTOR_FILES:
// xss, sql, path, ssti, xxe, command) through 8 mutators. A mutant counts only when it is still
// the same attack, judged by an independent reference decoder (tests/support/reference-decode.mjs,
// not the engine): fully decoded, it must equal the fully decoded original (case-insensitively
// for the two case mutators; for command payloads the letter of a written \n, \r or \t keeps its
// case: "\n" in a value is a line break to an application that unescapes it, "\N" is not). Each counted mutant must have at least one
// finding of its vector; at least 142 mutants must count.

import { describe, it, expect, afterAll } from 'vitest';
import { characterEntities } from 'character-entities';
import { scan } from '@shield/node';
import { loadVectors, DETECTOR_FILES, label } from '../support/vectors.mjs';
import { referenceDecode, decodeOnce } from '../support/reference-decode.mjs';

const MIN_CHECKS = 142;
const MAX_ROUNDS = 4; // SPEC: decode passes after normalization, at most 4

// ---------------------------------------------------------------- mutators

const isAlnum = (ch) => /^[0-9A-Za-z]$/.test(ch);
const utf8Pct = (ch) => [...new TextEncoder().encode(ch)].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');

/** Named reference for a character: the shortest name in the WHATWG table (lower case first on ties). */
const rankCase = (n) => (n === n.toLowerCase() ? 0 : 1);
const NAMED = (() => {
  const best = new Map();
  for (const [name, value] of Object.entries(characterEntities)) {
    if ([...value].length !== 1 || isAlnum(value)) continue;
    const cur = best.get(value);
    const better = !cur || name.length < cur.length || (name.length === cur.length && rankCase(name) < rankCase(cur)) ||
      (name.length === cur.length && rankCase(name) === rankCase(cur) && name < cur);
    if (better) best.set(value, name);
  }
  return best;
})();

let letterIndex = 0;
const MUTATORS = {
  'alternating case': (s) => {
    letterIndex = 0;
    return s.replace(/[A-Za-z]/g, (ch) => (letterIndex++ % 2 === 0 ? ch.toUpperCase() : ch.toLowerCase()));
  },
  uppercase: (s) => s.replace(/[a-z]/g, (ch) => ch.toUpperCase()),
  'URL-encode once': (s) => [...s].map((ch) => (isAlnum(ch) ? ch : utf8Pct(ch))).join(''),
  'URL-encode twice': (s) => MUTATORS['URL-encode once'](MUTATORS['URL-encode once'](s)),
  'HTML hex entity': (s) => [...s].map((ch) => (isAlnum(ch) ? ch : `&#x${ch.codePointAt(0).toString(16).toUpperCase()};`)).join(''),
  'HTML decimal entity': (s) => [...s].map((ch) => (isAlnum(ch) ? ch : `&#${ch.codePointAt(0)};`)).join(''),
  'HTML named entity': (s) => [...s].map((ch) => (NAMED.has(ch) ? `&${NAMED.get(ch)};` : ch)).join(''),
  'fullwidth ASCII': (s) => s.replace(/[\x21-\x7e]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)),
};
const CASE_MUTATORS = new Set(['alternating case', 'uppercase']);
/** Text compared without regard to case; for command payloads the letter of a written \n, \r or \t kept as it is. */
const foldCase = (t, vector) => (vector === 'command' ? t.replace(/\\[nrtNRT]|[A-Z]/g, (m) => (m.length === 2 ? m : m.toLowerCase())) : t.toLowerCase());

// ---------------------------------------------------------------- building the mutant table

const counted = []; // { file, vector, mutator, original, mutant }
const beyondRounds = []; // still the same attack, but only after more than 4 rounds
const notSame = []; // no longer the same attack: skipped
let noops = 0; // mutator changed nothing

for (const name of DETECTOR_FILES) {
  const file = loadVectors(name);
  for (const c of file.cases.filter((x) => x.attack)) {
    const ref = referenceDecode(c.input);
    for (const [mname, mutate] of Object.entries(MUTATORS)) {
      const mutant = mutate(c.input);
      if (mutant === c.input) { noops++; continue; }
      const mref = referenceDecode(mutant);
      const same = CASE_MUTATORS.has(mname) ? foldCase(mref.text, file.vector) === foldCase(ref.text, file.vector) : mref.text === ref.text;
      const row = { file: name, vector: file.vector, mutator: mname, original: c.input, mutant };
      if (!same) notSame.push(row);
      else if (mref.rounds > MAX_ROUNDS) beyondRounds.push(row);
      else counted.push(row);
    }
  }
}

afterAll(() => {
  console.log(`mutation suite: ${counted.length} counted checks, ${beyondRounds.length} beyond ${MAX_ROUNDS} rounds (checked for excess-encoding), ` +
    `${notSame.length} skipped as no longer the same attack, ${noops} mutators left the payload unchanged`);
  for (const r of notSame) console.log(`  skipped (${r.file} / ${r.mutator}): ${label(r.original, 60)} => ${label(r.mutant, 60)}`);
  for (const r of beyondRounds) console.log(`  beyond ${MAX_ROUNDS} rounds (${r.file} / ${r.mutator}): ${label(r.mutant, 80)}`);
});

// ---------------------------------------------------------------- the harness itself

describe('mutation harness', () => {
  it(`counts at least ${MIN_CHECKS} mutation checks`, () => {
    expect(counted.length).toBeGreaterThanOrEqual(MIN_CHECKS);
  });

  it('every mutator contributes counted checks for every vector', () => {
    for (const name of DETECTOR_FILES) {
      for (const m of Object.keys(MUTATORS)) {
        expect(counted.filter((r) => r.file === name && r.mutator === m).length, `${name} / ${m}`).toBeGreaterThan(0);
      }
    }
  });

  it('the mutators do what they say', () => {
    expect(MUTATORS['alternating case']('<script>')).toBe('<ScRiPt>');
    expect(MUTATORS.uppercase("' or 1=1--")).toBe("' OR 1=1--");
    expect(MUTATORS['URL-encode once']('<a b>')).toBe('%3Ca%20b%3E');
    expect(MUTATORS['URL-encode once']('．')).toBe('%EF%BC%8E');
    expect(MUTATORS['URL-encode twice']('<a')).toBe('%253Ca');
    expect(MUTATORS['HTML hex entity']('<a/')).toBe('&#x3C;a&#x2F;');
    expect(MUTATORS['HTML decimal entity']("'1")).toBe('&#39;1');
    expect(MUTATORS['HTML named entity']('<>"\'&()/:.=;')).toBe('&lt;&gt;&quot;&apos;&amp;&lpar;&rpar;&sol;&colon;&period;&equals;&semi;');
    expect(MUTATORS['fullwidth ASCII']('<a 1>')).toBe('＜ａ １＞');
  });

  it('the reference decoder decodes every mutator back', () => {
    const src = `<svg/onload=alert('x')> ../ ' OR 1=1-- é ＜`;
    for (const [m, f] of Object.entries(MUTATORS)) {
      const back = referenceDecode(f(src)).text;
      const want = referenceDecode(src).text;
      if (CASE_MUTATORS.has(m)) expect(back.toLowerCase(), m).toBe(want.toLowerCase());
      else expect(back, m).toBe(want);
    }
    expect(decodeOnce('&amp;lt;')).toBe('&lt;');
    expect(referenceDecode('%25253C').rounds).toBe(3);
  });

  it('a mutant that changes the meaning is not counted', () => {
    // an upper-cased named reference is no reference at all: &COLON; stays literal
    const row = notSame.find((r) => r.original.includes('&colon;') && CASE_MUTATORS.has(r.mutator));
    expect(row).toBeDefined();
    expect(counted.some((r) => r.mutant === row.mutant)).toBe(false);
  });
});

// ---------------------------------------------------------------- the checks

for (const name of DETECTOR_FILES) {
  for (const mname of Object.keys(MUTATORS)) {
    const rows = counted.filter((r) => r.file === name && r.mutator === mname);
    describe(`${name} / ${mname}`, () => {
      for (const r of rows) {
        it(`${label(r.original, 50)} => ${label(r.mutant, 60)}`, () => {
          const fs = scan(r.mutant);
          expect(fs.filter((f) => f.vector === r.vector).length,
            `mutant passed undetected (no ${r.vector} finding); got ${JSON.stringify(fs.map((f) => f.rule))}`).toBeGreaterThan(0);
        });
      }
    });
  }
}

describe('mutants that need more than 4 decoding rounds', () => {
  for (const r of beyondRounds) {
    it(`${r.file} / ${r.mutator}: ${label(r.mutant, 60)} is reported as excess encoding`, () => {
      expect(scan(r.mutant).map((f) => f.rule)).toContain('patterns.decode.excess-encoding');
    });
  }
});
