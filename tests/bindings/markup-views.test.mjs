// The XSS detector reads the markup of a value as given, and of the text after the first decode
// pass, as well as the decoded text, when decoding made a quote or '>' (assembly/index.ts,
// markupBeforeDecoding). A browser
// reads the tags of the text it receives: an entity, an escape or a fullwidth character that the
// engine's decoding turns into a quote or '>' is, for the browser, part of an attribute value,
// so the decoded text alone can quote a live handler away.

import { describe, it, expect } from 'vitest';
import { scan, sanitizeString, decode } from '@shield/node';

const rules = (v) => scan(v).map((f) => f.rule);

describe('markup before decoding', () => {
  // Each attack: decoded, its handler sits inside a quoted value; as given, it is an attribute.
  const attacks = [
    ['an entity quote in an unquoted value', '"><svg x=&quot; y onload=" \\u0061lert(1)">'],
    ['a numeric entity quote', '<img src=x x=&#34; y onerror=" \\u0061lert(1)">'],
    ['an entity apostrophe', "<svg x=&#39; y onload=' \\u0061lert(1)'>"],
    ['an entity > that closes the tag only once decoded', '<svg x=&gt; onload=" \\u0061lert(1)">'],
    ['a fullwidth quote (NFKC makes it a quote, a browser does not)', '<svg x=\uff02 y onload=" print()">'],
    ['a small-form > (U+FE65)', '<svg x=\ufe65 onload=" print()">'],
    ['URL-encoded once: the text after the first decode pass', '%3Csvg x=&amp;quot; y onload=" \\u0061lert(1)"%3E'],
    ['URL-encoded with a fullwidth quote: the decode pass before NFKC', '%3Csvg%20x%3D%EF%BC%82%20y%20onload%3D%22%20print()%22%3E'],
    ['HTML-entity-encoded with a fullwidth quote', '&#60;svg x=&#65282; y onload=" print()"&#62;'],
  ];
  for (const [what, v] of attacks) {
    it(`finds the handler: ${what}`, () => {
      // (the decoded text alone quotes it away: the finding comes from another view)
      expect(rules(v)).toContain('patterns.xss.event-handler');
    });
  }

  it('the decoded text of these attacks holds no live handler: the views are what finds them', () => {
    // the same decoded text given directly has nothing to find
    const decoded = decode('"><svg x=&quot; y onload=" \\u0061lert(1)">');
    expect(decoded).toBe('"><svg x=" y onload=" \\u0061lert(1)">');
    expect(rules(decoded)).not.toContain('patterns.xss.event-handler');
  });

  it('a finding of another view spans the whole decoded value, so that offsets slice the decoded value', () => {
    const v = '"><svg x=&quot; y onload=" \\u0061lert(1)">';
    const decoded = decode(v);
    const f = scan(v).find((x) => x.rule === 'patterns.xss.event-handler');
    expect(f.start).toBe(0);
    expect(f.end).toBe(decoded.length);
    expect(decoded.slice(f.start, f.end).startsWith(f.matched)).toBe(true);
  });

  it('a rule that fired on the decoded text is not reported twice', () => {
    const found = rules('<svg x=&quot; y onload=alert(1)>');
    expect(found.filter((r) => r === 'patterns.xss.event-handler').length).toBeLessThanOrEqual(1);
    expect(new Set(found).size).toBe(found.length);
  });

  const benign = [
    '<p>Tom &amp; Jerry said &quot;hi&quot; &lt;3</p>',
    '<a href="/search?q=a&amp;b=c">results</a>',
    'Fish &amp; chips <b>only</b> today',
    '<img alt="x &quot;quoted&quot; y" src="/a.png">',
    '%3Cb%3Ebold%3C%2Fb%3E &amp; more',
  ];
  for (const v of benign) {
    it(`passes markup with entities and no script: ${v}`, () => {
      expect(scan(v)).toEqual([]);
    });
  }

  it('sanitizing such a value leaves no live handler in any view', () => {
    const out = sanitizeString('"><svg x=&quot; y onload=" \\u0061lert(1)">');
    expect(out).not.toMatch(/<svg/i);
    // (the text of the call stays, encoded: as in any value that names one, scriptEscapes reads it)
    const left = scan(out).map((f) => f.rule);
    expect(left).not.toContain('patterns.xss.event-handler');
    expect(left).not.toContain('patterns.xss.script-tag');
  });
});
