// JavaScript escapes (assembly/index.ts, scriptEscapes): a value that lands in a script, or in a
// JavaScript string that becomes a URL, runs what its \uXXXX, \u{...}, \xXX and octal escapes
// spell. For a value with no other finding, the text with those escapes undone is read by the
// listed-call literals and the XSS detector.

import { describe, it, expect } from 'vitest';
import { scan } from '@shield/node';

const rules = (v) => scan(v).map((f) => f.rule);

describe('JavaScript escapes', () => {
  it.each([
    ['\\u0061lert(1)', 'patterns.xss.js-call', 'a unicode escape in a name calls alert'],
    ['1;\\u{61}lert(1)', 'patterns.xss.js-call', 'the braced form'],
    ['1;al\\u0065rt(1)', 'patterns.xss.js-call', 'an escape inside the name'],
    ['1;\\u0065val(name)', 'patterns.xss.js-call', 'eval'],
    ['javascript\\x3aprint()', 'patterns.xss.js-url', "a hex escape of the scheme's colon, in a string that becomes a URL"],
    ['javascript\\u003aprint()', 'patterns.xss.js-url', 'a unicode escape of the colon'],
    ['\\152avascript:print()', 'patterns.xss.js-url', 'an octal escape of a letter'],
    ['{"redirect":"javascript\\u003aprint()"}', 'patterns.xss.js-url', 'in a JSON value'],
    ['1;\\u00a0alert(1)', 'patterns.xss.js-call', 'an escaped no-break space (white space to JavaScript) before the call'],
    ['1;\\u3000alert(1)', 'patterns.xss.js-call', 'an escaped ideographic space'],
    ['\\u{0000061}lert(1)', 'patterns.xss.js-call', 'leading zeros in the braced form'],
  ])('%s: %s (%s)', (v, rule) => {
    expect(rules(v)).toContain(rule);
  });

  it('the same text without escapes is what they spell', () => {
    // (the escaped forms are found as these are)
    expect(rules('alert(1)')).toContain('patterns.xss.js-call');
    expect(rules('javascript:print()')).toContain('patterns.xss.js-url');
  });

  it('a finding spans the whole value, so that offsets slice the decoded value', () => {
    const v = '1;\\u0065val(name)';
    const f = scan(v).find((x) => x.rule === 'patterns.xss.js-call');
    expect(f.start).toBe(0);
    expect(f.end).toBe(v.length);
  });

  it.each([
    'C:\\Users\\john\\Documents\\report.docx',
    'C:\\123\\456\\notes.txt',
    '{"name":"Jos\\u00e9","city":"S\\u00e3o Paulo"}',
    '^\\d{3}-\\x20\\w+$',
    'Caf\\u00e9 au lait \\u2014 2 for \\x243',
    '\\\\u0061lert is an escaped backslash, not an escape',
    'printf("%d\\n", x); \\101\\102\\103',
  ])('passes: %s', (v) => {
    expect(scan(v)).toEqual([]);
  });
});
