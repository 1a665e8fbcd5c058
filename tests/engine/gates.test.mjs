// scan_batch calls a detector only for values that hold a character it needs (XSS_CLASSES,
// XXE_CLASSES, sstiWanted, cmdWanted in assembly/), and the SQL look at a value's start skips a
// value of one word; rule filters answer "maybe" by (length, first character) of a parameter.
// Each gate at its edge: a value holding only the one character that opens it is still found,
// short (under the vector pass's 24 units) and long (the same value followed by 40 units of prose).
import { describe, it, expect } from 'vitest';
import { Engine } from '@shield/node';

const engine = new Engine();
const rules = (v) => engine.scan(v).map((f) => f.rule);
const PROSE = ' the weather is fine today and tomorrow';

// [what opens the gate, value, rule it must report]
const FOUND = [
  ['a line feed is the only separator among spaces (cmdWanted)', 'a b\nwhoami', 'patterns.command.recon-command'],
  ['a line feed with a path argument', 'x\ncat /etc/passwd', 'patterns.command.separated-command'],
  ["'$' alone opens the substitution search", 'a $(whoami) b', 'patterns.command.substitution'],
  ["'<' and '!' open the XML scan (XXE_CLASSES)", '<!ENTITY a SYSTEM "x">', 'patterns.xxe.entity'],
  ["'{' pairs open the template scan (sstiWanted)", 'a {{7*7}} b', 'patterns.ssti.template-expression'],
  ["'_' and letters open the dunder search (sstiWanted)", 'x.__class__', 'patterns.ssti.dunder'],
  ["':' alone opens the bare-scheme search (XSS_CLASSES)", 'javascript:alert(1)', 'patterns.xss.js-url'],
  ['a quote alone opens the breakout search (XSS_CLASSES)', '" onclick="go()', 'patterns.xss.attribute-breakout'],
  ['a listed call by its (length, first letter) filter', 'x sleep(5) y', 'patterns.sql.time-based'],
];

describe('detector gates never hide a finding', () => {
  for (const [what, value, rule] of FOUND) {
    it(`${what}: short`, () => {
      expect(value.length).toBeLessThan(24);
      expect(rules(value)).toContain(rule);
    });
    it(`${what}: long`, () => {
      expect(rules(value + PROSE)).toContain(rule);
    });
  }
});

describe('what the gates skip holds nothing', () => {
  it('a lone SQL keyword is no finding, and the same keyword opening a query is', () => {
    for (const w of ['select', 'drop', 'union', 'or', 'desc']) expect(rules(w)).toEqual([]);
    expect(rules('1 union select password from users')).toContain('patterns.sql.union');
  });
  it('prose with spaces and no line break passes the command detector', () => {
    expect(rules('red shoes size 9 and whoami too')).toEqual([]);
  });
});
