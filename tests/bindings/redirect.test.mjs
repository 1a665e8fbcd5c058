// validateRedirect (bindings/redirect.ts):
//   - the vector file tests/vectors/redirect.json, case by case;
//   - option validation (TypeError naming the field) and inputs that are not strings;
//   - the WHATWG URL parser as the browser oracle: what is accepted stays on the origin;
//   - fast-check properties with a fixed seed: never throws; encoding once more never turns a
//     refusal into an acceptance; accepted targets stay on the origin after every decoding.

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { loadVectors, label } from '../support/vectors.mjs';
import { validateRedirect } from '../../dist/bindings/redirect.js';

const SEED = 20240604;
const REASONS = [
  'invalid', 'control-char', 'scheme', 'protocol-relative', 'userinfo', 'host-not-allowed', 'cross-origin', 'excess-encoding',
];
const BASES = ['https://app.example/', 'https://app.example/a/b/c?x=1#y', 'http://app.example:8080/deep/path/'];

/** Percent-encodes every character (UTF-8), or only those `pick` selects; `%` is always encoded. */
const encodeOnce = (s, pick = () => true) => {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if ((cp >= 0xd800 && cp <= 0xdfff) || (ch !== '%' && !pick(ch))) {
      out += ch;
      continue;
    }
    for (const b of new TextEncoder().encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
};

/** Test-side decoder: each complete run of escapes decoded if it is valid UTF-8. */
const decodeLoose = (s) => s.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
  try {
    return decodeURIComponent(run);
  } catch {
    return run;
  }
});

// ---------------------------------------------------------------- vectors

describe('tests/vectors/redirect.json', () => {
  const file = loadVectors('redirect');

  it('has the promised size and only documented reasons', () => {
    expect(file.vector).toBe('redirect');
    expect(file.cases.filter((c) => c.attack).length).toBeGreaterThanOrEqual(40);
    expect(file.cases.filter((c) => !c.attack).length).toBeGreaterThanOrEqual(25);
    for (const c of file.cases) {
      expect(typeof c.note).toBe('string');
      if (c.attack) expect(REASONS).toContain(c.reason);
      else expect(c.reason).toBeNull();
    }
  });

  it.each(file.cases.map((c) => [label(c.input), c]))('%s', (_, c) => {
    expect(validateRedirect(c.input, c.options)).toEqual({ ok: !c.attack, reason: c.reason });
  });

  it('every accepted relative vector stays on the origin for a browser (WHATWG oracle)', () => {
    for (const c of file.cases.filter((x) => !x.attack && !x.options)) {
      for (const base of BASES) expect(new URL(c.input, base).origin, c.input).toBe(new URL(base).origin);
    }
  });

  it('every raw protocol-relative vector really leaves the origin for a browser', () => {
    const raw = file.cases.filter((c) => c.reason === 'protocol-relative' && !c.input.includes('%') && !c.options);
    expect(raw.length).toBeGreaterThan(5);
    for (const c of raw) {
      const u = new URL(c.input, BASES[0]);
      const leaves = u.origin !== 'https://app.example' || u.pathname.startsWith('//');
      expect(leaves, c.input).toBe(true);
    }
  });
});

// ---------------------------------------------------------------- options and inputs

describe('options', () => {
  it.each([
    [{ allowedHosts: 'good.example' }, /validateRedirect: options\.allowedHosts must be an array/],
    [{ allowedHosts: ['good.example', ''] }, /options\.allowedHosts\[1\] must be a non-empty string/],
    [{ allowedHosts: ['good.example:443'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedHosts: ['https://good.example/'] }, /options\.allowedHosts\[0\] is not a hostname/],
    [{ allowedHosts: ['good.example.'] }, /options\.allowedHosts\[0\] ends with a dot/],
    [{ allowedHosts: ['*good.example'] }, /options\.allowedHosts\[0\]: '\*' is only allowed/],
    [{ allowedHost: ['good.example'] }, /validateRedirect: unknown option 'allowedHost'/],
    [{ allowedSchemes: ['https'] }, /validateRedirect: unknown option 'allowedSchemes'/],
    ['good.example', /validateRedirect: options must be an object/],
  ])('%j throws a TypeError naming the field', (options, message) => {
    expect(() => validateRedirect('/x', options)).toThrow(TypeError);
    expect(() => validateRedirect('/x', options)).toThrow(message);
  });

  it('without allowedHosts every absolute URL is refused; an empty list is the same', () => {
    expect(validateRedirect('https://good.example/')).toEqual({ ok: false, reason: 'host-not-allowed' });
    expect(validateRedirect('https://good.example/', { allowedHosts: [] })).toEqual({ ok: false, reason: 'host-not-allowed' });
    expect(validateRedirect('https://good.example/', null).ok).toBe(false);
  });

  it('hosts match as in validateUrl: exact, *.suffix (not the apex), IP literals, IDN', () => {
    const allowedHosts = ['good.example', '*.apps.example', '203.0.113.7', '::1', 'bücher.example'];
    expect(validateRedirect('https://good.example/x', { allowedHosts }).ok).toBe(true);
    expect(validateRedirect('https://a.b.apps.example/', { allowedHosts }).ok).toBe(true);
    expect(validateRedirect('https://apps.example/', { allowedHosts }).ok).toBe(false);
    expect(validateRedirect('http://203.0.113.7/', { allowedHosts }).ok).toBe(true);
    expect(validateRedirect('http://3405803783/', { allowedHosts }).ok).toBe(true); // 203.0.113.7 as a number
    expect(validateRedirect('http://[::1]/', { allowedHosts }).ok).toBe(true);
    expect(validateRedirect('https://xn--bcher-kva.example/', { allowedHosts }).ok).toBe(true);
    expect(validateRedirect('https://sub.good.example/', { allowedHosts }).ok).toBe(false);
  });
});

describe('inputs that are not strings', () => {
  it.each([[undefined], [null], [0], [{}], [['/a']], [new URL('https://app.example/')], [Symbol('x')]])('%s gives invalid', (v) => {
    expect(validateRedirect(v)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('long targets are judged in linear time', () => {
    expect(validateRedirect(`/${'a'.repeat(1 << 20)}`).ok).toBe(true);
    expect(validateRedirect(`/${'%25'.repeat(100000)}`).ok).toBe(true);
    expect(validateRedirect(`/${'%2525'.repeat(100000)}`).ok).toBe(true);
    expect(validateRedirect(`/${'%252525252F'.repeat(20000)}`).reason).toBe('excess-encoding');
    expect(validateRedirect(`${'/'.repeat(100000)}evil.example`).reason).toBe('protocol-relative');
  });
});

describe('decoding', () => {
  it.each([
    ['/%', true], ['/%2', true], ['/%zz', true], ['/%ff%fe', true], ['/%c3', true], ['/%ed%a0%80', true],
    ['/%f4%90%80%80', true], ['/%C3%A9', true], ['/%F0%9F%98%80', true], ['/%25', true], ['/%2525', true], ['/%252525', true],
    ['/%25252525', false],
  ])('%s accepted=%s', (target, ok) => {
    expect(validateRedirect(target).ok).toBe(ok);
  });

  it('a decoded %25 is not decoded again in the same round', () => {
    // %252F: one round gives %2F, the second /; both stay in the path.
    expect(validateRedirect('/a%252Fb').ok).toBe(true);
    // %25%32%46 is %2F after one round, / after two: judged at each.
    expect(validateRedirect('%25%32%46%25%32%46evil.example').reason).toBe('protocol-relative');
  });
});

// ---------------------------------------------------------------- properties

const FRAGMENTS = [
  '/', '//', '\\', '\\\\', '/\\', '.', '..', './', '../', ':', '@', '?', '#', '%', '%25', '%2f', '%2F', '%5c', '%5C', '%252f',
  '%25252f', '%2525252f', '%c0%af', '%e0%80%af', '%09', '%0a', '%0d', '%20', '%00', '\t', '\n', '\r', ' ', '\u0000', '\u00a0',
  '\u3000', '\u0085', 'javascript:', 'JaVaScRiPt:', 'java', 'script:', 'data:', 'vbscript:', 'http:', 'https:', 'HTTPS://',
  'evil.example', 'good.example', 'app', 'x', 'alert(1)', 'user', '@good.example', '%3a', '%40', 'ß', '／', '。', '\ud800',
];
const target = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 10 }).map((a) => a.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 16 }).map((a) => String.fromCharCode(...a)) },
);
const OPTS = [undefined, { allowedHosts: ['good.example', '*.good.example'] }];

describe('properties (fast-check, fixed seed)', () => {
  it('validateRedirect never throws and answers a documented reason', () => {
    fc.assert(
      fc.property(target, fc.constantFrom(...OPTS), (t, opts) => {
        const r = validateRedirect(t, opts);
        expect(r.ok).toBe(r.reason === null);
        if (!r.ok) expect(REASONS).toContain(r.reason);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('percent-encoding the target once more never turns a refusal into an acceptance', () => {
    fc.assert(
      fc.property(target, fc.constantFrom(...OPTS), fc.integer({ min: 0, max: 0xffff }), (t, opts, mask) => {
        if (validateRedirect(t, opts).ok) return;
        let k = 0;
        const partly = (ch) => ((mask >> (k++ % 16)) & 1) === 1; // a random subset; '%' always
        expect(validateRedirect(encodeOnce(t), opts).ok, encodeOnce(t)).toBe(false);
        expect(validateRedirect(encodeOnce(t, partly), opts).ok).toBe(false);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('an accepted target (no allowlist) stays on the origin, raw and after every decoding', () => {
    fc.assert(
      fc.property(target, (t) => {
        if (!validateRedirect(t).ok) return;
        let form = t;
        for (let round = 0; round < 4; round++) {
          expect(/^[\s\u0000-\u001f]/.test(form)).toBe(false);
          for (const base of BASES) {
            const u = new URL(form, base);
            expect(u.origin, form).toBe(new URL(base).origin);
          }
          form = decodeLoose(form);
        }
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('an accepted absolute target names a listed host', () => {
    const opts = OPTS[1];
    fc.assert(
      fc.property(target, (t) => {
        if (!validateRedirect(t, opts).ok) return;
        const u = new URL(t, BASES[0]);
        if (u.origin === 'https://app.example') return;
        expect(u.hostname === 'good.example' || u.hostname.endsWith('.good.example'), t).toBe(true);
        expect(u.username + u.password).toBe('');
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });
});
