// sanitizeJsonpCallback: the shared vectors, the length limit, and a property comparing it
// with a reference check written here independently (split on dots, a regular expression per
// part, its own list of refused names, and the JavaScript parser itself as the last word).

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { sanitizeJsonpCallback, MAX_JSONP_CALLBACK_LENGTH } from '../../dist/bindings/jsonp.js';
import { loadVectors, label } from '../support/vectors.mjs';

const SEED = 42;

// Written out separately from the implementation's list on purpose.
const REFERENCE_REFUSED = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export extends false ' +
    'finally for function if implements import in instanceof interface let new null package private protected ' +
    'public return static super switch this throw true try typeof var void while with yield ' +
    'eval arguments __proto__ constructor prototype __defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__'
  ).split(' '),
);

function reference(name) {
  if (typeof name !== 'string' || name.length === 0 || name.length > 128) return false;
  for (const part of name.split('.')) {
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(part) || REFERENCE_REFUSED.has(part)) return false;
  }
  // The parser agrees that `name(data)` is one call of a member path in strict code.
  try {
    new Function(`"use strict"; return function () { ${name}({}); };`);
  } catch {
    return false;
  }
  return true;
}

describe('vectors (tests/vectors/jsonp.json)', () => {
  const { cases } = loadVectors('jsonp');
  it.each(cases.map((c) => [label(typeof c.input === 'string' ? c.input : JSON.stringify(c.input)), c]))('%s', (_l, c) => {
    expect(sanitizeJsonpCallback(c.input)).toBe(c.expected);
    expect(reference(c.input)).toBe(c.expected !== null);
  });
  it('has accepted and refused cases', () => {
    expect(cases.filter((c) => c.expected !== null).length).toBeGreaterThan(5);
    expect(cases.filter((c) => c.expected === null).length).toBeGreaterThan(5);
  });
});

describe('limits and types', () => {
  it('the documented limit is 128 characters', () => {
    expect(MAX_JSONP_CALLBACK_LENGTH).toBe(128);
    const ok = 'a'.repeat(MAX_JSONP_CALLBACK_LENGTH);
    expect(sanitizeJsonpCallback(ok)).toBe(ok);
    expect(sanitizeJsonpCallback(ok + 'a')).toBeNull();
  });
  it('a very long name is refused without scanning it', () => {
    expect(sanitizeJsonpCallback('a'.repeat(1 << 24))).toBeNull();
  });
  it.each([[new String('cb')], [{ toString: () => 'cb' }], [['cb']], [undefined], [42], [Symbol('cb')], [() => 0]])(
    'non-string %s is refused',
    (v) => {
      expect(sanitizeJsonpCallback(v)).toBeNull();
    },
  );
  it('every refused part is refused alone, first, in the middle and last', () => {
    for (const word of REFERENCE_REFUSED) {
      for (const name of [word, `${word}.a`, `a.${word}.b`, `a.${word}`]) expect(sanitizeJsonpCallback(name)).toBeNull();
    }
  });
});

// ------------------------------------------------------------------ properties

const part = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,8}$/) },
  { weight: 2, arbitrary: fc.constantFrom(...REFERENCE_REFUSED, 'Prototype', 'Constructor', 'proto', 'evals') },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '1a', 'a b', 'a(', 'a]', 'é', '\u0000', '\ud800', '\u200b', 'ａ') },
);
const names = fc.oneof(
  fc.array(part, { minLength: 1, maxLength: 6 }).map((a) => a.join('.')),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.stringMatching(/^[a-z.]{120,135}$/),
);

describe('properties', () => {
  it('returns null or the input unchanged, exactly when the reference check accepts it', () => {
    fc.assert(
      fc.property(names, (name) => {
        const out = sanitizeJsonpCallback(name);
        if (out !== null && out !== name) return false;
        return (out !== null) === reference(name);
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
  it('never throws on any value', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }), (v) => {
        const out = sanitizeJsonpCallback(v);
        return out === null || out === v;
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
