// sanitizeLdap (RFC 4515 filter values) and sanitizeLdapDn (RFC 4514 DN attribute values):
// the shared vectors, the RFCs' own examples, and round-trip properties checked with small
// unescapers written here from the RFC grammars (they also refuse any special character
// left unescaped, so they double as the check that the output is safe to splice in).

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { sanitizeLdap, sanitizeLdapDn } from '../../dist/bindings/ldap.js';
import { loadVectors, label } from '../support/vectors.mjs';

const SEED = 42;
const FUNCTIONS = { sanitizeLdap, sanitizeLdapDn };
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * RFC 4515 section 3: `valueencoding = 0*(normal / escaped)`, `escaped = ESC HEX HEX`, and
 * `normal` excludes NUL ( ) * and backslash. Escaped bytes in a row are UTF-8. Returns the
 * value, or throws on anything the grammar refuses.
 */
function unescapeFilterValue(s) {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      const bytes = [];
      while (s[i] === '\\') {
        const h = s.slice(i + 1, i + 3);
        if (!/^[0-9a-fA-F]{2}$/.test(h)) throw new Error(`bad escape at ${i}`);
        bytes.push(parseInt(h, 16));
        i += 3;
      }
      out += utf8.decode(Uint8Array.from(bytes));
    } else if (c === '\u0000' || c === '(' || c === ')' || c === '*') {
      throw new Error(`unescaped ${JSON.stringify(c)} at ${i}`);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * RFC 4514 section 3: `pair = ESC (ESC / special / hexpair)`, special = `"+,;<>` SPACE `#` `=`;
 * `"+,;<>\` and NUL never appear bare; a bare SPACE or `#` may not lead and a bare SPACE may
 * not trail. sanitizeLdapDn also promises no bare `=`, so that is refused too.
 */
function unescapeDnValue(s) {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      const n = s[i + 1];
      if (n !== undefined && '\\"+,;<> #='.includes(n)) {
        out += n;
        i += 2;
        continue;
      }
      const bytes = [];
      while (s[i] === '\\' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
        bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
        i += 3;
      }
      if (bytes.length === 0) throw new Error(`bad escape at ${i}`);
      out += utf8.decode(Uint8Array.from(bytes));
    } else {
      if ('"+,;<>=\u0000'.includes(c)) throw new Error(`unescaped ${JSON.stringify(c)} at ${i}`);
      if (i === 0 && (c === ' ' || c === '#')) throw new Error(`unescaped leading ${JSON.stringify(c)}`);
      if (i === s.length - 1 && c === ' ') throw new Error('unescaped trailing space');
      out += c;
      i++;
    }
  }
  return out;
}

describe('vectors (tests/vectors/ldap.json)', () => {
  const { cases } = loadVectors('ldap');
  it.each(cases.map((c) => [c.function, label(c.input), c]))('%s %s', (_fn, _label, c) => {
    const out = FUNCTIONS[c.function](c.input);
    expect(out).toBe(c.expected);
    const unescape = c.function === 'sanitizeLdap' ? unescapeFilterValue : unescapeDnValue;
    expect(unescape(out)).toBe(c.input);
  });
  it('has hostile and benign cases for both functions', () => {
    for (const fn of Object.keys(FUNCTIONS)) {
      const mine = cases.filter((c) => c.function === fn);
      expect(mine.some((c) => c.expected === c.input)).toBe(true);
      expect(mine.some((c) => c.expected !== c.input)).toBe(true);
    }
  });
});

describe('RFC 4515 section 4 examples', () => {
  // [assertion value, the value as the RFC's example filter writes it]
  const examples = [
    ['Parens R Us (for all your parenthetical needs)', 'Parens R Us \\28for all your parenthetical needs\\29'],
    ['*', '\\2A'],
    ['C:\\MyFile', 'C:\\5cMyFile'],
    ['\u0000\u0000\u0000\u0004', '\\00\\00\\00\\04'],
    ['Lučić', 'Lu\\c4\\8di\\c4\\87'],
    ['\u0004\u0002Hi', '\\04\\02\\48\\69'],
  ];
  it.each(examples)('%j', (value, rfcForm) => {
    const out = sanitizeLdap(value);
    // The RFC escapes more than it must in places (\04, \48); both forms mean the same value.
    expect(unescapeFilterValue(rfcForm)).toBe(value);
    expect(unescapeFilterValue(out)).toBe(value);
  });
  it('writes the hex of escapes in lower case', () => {
    expect(sanitizeLdap('*()\\\u0000')).toBe('\\2a\\28\\29\\5c\\00');
  });
  it('keeps the RFC example filter intact when a value is spliced in', () => {
    expect(`(o=${sanitizeLdap('Parens R Us (for all your parenthetical needs)')})`).toBe(
      '(o=Parens R Us \\28for all your parenthetical needs\\29)',
    );
    expect(`(filename=${sanitizeLdap('C:\\MyFile')})`).toBe('(filename=C:\\5cMyFile)');
  });
});

describe('RFC 4514 section 4 examples', () => {
  // [attribute value, the value as the RFC's example DN writes it]
  const examples = [
    ['jsmith', 'jsmith'],
    ['J.  Smith', 'J.  Smith'],
    ['James "Jim" Smith, III', 'James \\"Jim\\" Smith\\, III'],
    ['Before\rAfter', 'Before\\0dAfter'],
    ['Lučić', 'Lu\\C4\\8Di\\C4\\87'],
    ['Sue, Grabbit and Runn', 'Sue\\, Grabbit and Runn'],
  ];
  it.each(examples)('%j', (value, rfcForm) => {
    const out = sanitizeLdapDn(value);
    expect(unescapeDnValue(rfcForm)).toBe(value);
    expect(unescapeDnValue(out)).toBe(value);
  });
  it('produces the RFC text exactly where the RFC escapes only what it must', () => {
    expect(`CN=${sanitizeLdapDn('James "Jim" Smith, III')},DC=example,DC=net`).toBe(
      'CN=James \\"Jim\\" Smith\\, III,DC=example,DC=net',
    );
    expect(sanitizeLdapDn('Sue, Grabbit and Runn')).toBe('Sue\\, Grabbit and Runn');
  });
  it('a leading # cannot turn the value into a BER hex string', () => {
    expect(sanitizeLdapDn('#04024869')).toBe('\\#04024869');
  });
  it('leading and trailing spaces', () => {
    expect(sanitizeLdapDn(' x ')).toBe('\\ x\\ ');
    expect(sanitizeLdapDn(' ')).toBe('\\ ');
  });
});

describe('escaping is applied once', () => {
  it('escaping twice is not idempotent, by design', () => {
    const once = sanitizeLdap('a*b');
    expect(once).toBe('a\\2ab');
    expect(sanitizeLdap(once)).toBe('a\\5c2ab');
    expect(unescapeFilterValue(unescapeFilterValue(sanitizeLdap(once)))).toBe('a*b');
    const dnOnce = sanitizeLdapDn('a,b');
    expect(sanitizeLdapDn(dnOnce)).toBe('a\\\\\\,b');
  });
  it('returns the same string when nothing needs escaping', () => {
    const s = 'plain value';
    expect(sanitizeLdap(s)).toBe(s);
    expect(sanitizeLdapDn(s)).toBe(s);
  });
});

describe('input that is not a string', () => {
  it.each([
    [42, '42'],
    [true, 'true'],
    [10n, '10'],
    [null, ''],
    [undefined, ''],
    [['*'], ''],
    [{ toString: () => '*)(' }, ''],
    [Symbol('x'), ''],
  ])('%s', (v, expected) => {
    expect(sanitizeLdap(v)).toBe(expected);
    expect(sanitizeLdapDn(v)).toBe(expected);
  });
});

// ------------------------------------------------------------------ properties

const specials = fc.constantFrom('*', '(', ')', '\\', '\u0000', '"', '+', ',', ';', '<', '>', '=', '#', ' ', 'a', 'é', '\ud800');
const ldapText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(specials, { maxLength: 20 }).map((a) => a.join('')),
  fc.string({ maxLength: 40 }),
);

describe('properties', () => {
  it('sanitizeLdap: the output unescapes (RFC 4515) to the input and has no bare special character', () => {
    fc.assert(fc.property(ldapText, (s) => unescapeFilterValue(sanitizeLdap(s)) === s), { seed: SEED, numRuns: 3000 });
  });
  it('sanitizeLdapDn: the output unescapes (RFC 4514) to the input and has no bare special character', () => {
    fc.assert(fc.property(ldapText, (s) => unescapeDnValue(sanitizeLdapDn(s)) === s), { seed: SEED, numRuns: 3000 });
  });
  it('neither throws on any value', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }), (v) => {
        return typeof sanitizeLdap(v) === 'string' && typeof sanitizeLdapDn(v) === 'string';
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
  it('the filter a value is spliced into keeps its shape', () => {
    // Balanced parentheses and no bare `*` beyond the template's own: the value stays one value.
    fc.assert(
      fc.property(ldapText, (s) => {
        const filter = `(&(uid=${sanitizeLdap(s)})(objectClass=person))`;
        let depth = 0;
        for (const ch of filter) {
          if (ch === '(') depth++;
          if (ch === ')') depth--;
          if (depth < 0) return false;
        }
        return depth === 0 && !filter.includes('*');
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
