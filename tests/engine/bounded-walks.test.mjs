// Inputs where a detector once read the same stretch of a value again from every anchor in it
// (every quote, ';', '<script>' or phrase word), so one value of a megabyte took minutes: each
// scan and sanitize of them must return (vitest's time-out fails a regression; the fixed engine
// takes milliseconds). The figures are in bench/README.md, "Walks bounded on 2026-11-21"; the
// linear-time probe of `npm run bench` times the same families. Then the rules the bounds
// introduced: a gap or phrase separator cut short counts as found, one below the bound does not.
import { describe, it, expect } from 'vitest';
import { Engine } from '@shield/node';

const rep = (unit, n) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const MB = 1 << 20;

// each was quadratic: [what re-read the stretch, the value]
const CASES = [
  ['a quote before an unclosed comment (JavaScript breakout gap)', rep("'+a/*", MB)],
  ['quotes inside a chain of comments (JavaScript breakout gap)', rep("/*'+a/**/ ", MB)],
  ["';' inside a line comment (SQL stacked query)", rep('x;--', MB)],
  ["';' inside a '#' comment after prose (SQL stacked query)", 'hello ' + rep(';#', MB)],
  ["';' inside each of a chain of line comments (SQL stacked query)", rep('\n#;', MB)],
  ["two ';' inside each of a chain of '--' comments (SQL stacked query)", rep('\n--;;', MB)],
  ['phrase words inside a chain of comments (SQL phrase)', rep('/*waitfor/**/ ', MB)],
  ['phrase words inside a chain of comments (SQL phrase, FROM)', rep('/*from/**/ ', MB)],
  ['listed calls before an unclosed comment (JavaScript call)', rep("'+alert/*", MB)],
  // 2 MB: the old sanitizer took about 19 s for 1 MB, under the time-out
  ['<script> tags before one unclosed </script (sanitizer)', rep('<script>', MB) + rep('</script ', MB)],
  // the white space before a window's first tokens is walked whole (tokenBefore): each run once
  ['comparisons after long white space runs (SQL windows)', rep('or' + ' '.repeat(1000) + '1=1\n', MB)],
  ['UNION after long white space runs (SQL windows)', rep(' '.repeat(4000) + 'union', MB)],
  // the command look reads the white space and the path after a separator whole: each run once
  ['separators before long white space runs (command)', rep(';' + ' '.repeat(1000) + 'x', MB)],
  ['separators before long paths (command)', rep('|' + '/'.repeat(1000) + 'x', MB)],
  ["substitutions before long runs of quotes (command)", rep('$(' + "'".repeat(1000) + 'x)', MB)],
  ['one separator before a megabyte of white space, quotes and slashes (command)', ';' + rep(" '+\t/", MB) + 'cat /etc/passwd'],
  // 4 MB (the old engine took about 8 s at 2 MB and four times that at 4 MB): each SQL window
  // ended on a string or line comment running to the far end, and the next window, starting
  // inside it, read it again to that end
  ['strings opened at the end of every window, closed once at the far end (SQL windows)',
    sqlWindows("\\'", "'", 4 * MB - 4096)],
  ['line comments opened at the end of every window, ended once at the far end (SQL windows)',
    sqlWindows('#', '\n', 4 * MB - 4096)],
  // not quadratic before, kept linear since (XSS judges of 2026-11-30): a style value decoded as
  // CSS into scratch memory, once per attribute; quotes before U+2028 (each look ends at the next
  // quote); unlisted 'on' names after quotes; a sink held in an object, read back to its key
  ['a style value of comments and CSS escapes (CSS decoding)', '<p style="' + rep('\\65 /*a*/ (:', MB)],
  ['style attributes with escapes, one after another (CSS decoding)', '<p ' + rep('style="a\\b" ', MB)],
  ['quotes before U+2028 and a sink (JavaScript breakout)', rep("'\u2028print ", MB)],
  ["quotes before unlisted 'on' names (attribute breakout)", rep('" onabcde=', MB)],
  ['sinks held in objects after white space (JavaScript breakout)', rep("'-{" + ' '.repeat(50) + 'x' + ' '.repeat(50) + ':alert ', MB)],
];

// 256-token SQL windows (the 302 '=1' first align them), each ending on `open`, `close` once at the end
function sqlWindows(open, close, n) {
  const seg = 'xx' + '=1'.repeat(126) + open;
  return 'xx' + '=1'.repeat(302) + open + seg.repeat(Math.floor(n / seg.length)) + close + ' x'.repeat(400);
}

describe('walks bounded on dense anchors', () => {
  const engine = new Engine({ maxValueLength: 4 * MB });
  for (const [what, value] of CASES) {
    it(`${Math.round(value.length / MB)} MB: ${what}: scan and sanitize return`, () => {
      expect(Array.isArray(engine.scan(value))).toBe(true);
      expect(typeof engine.sanitize(value)).toBe('string');
      expect(engine.faults).toBe(0);
    }, 30_000);
  }
});

// the SQL anchor loop searched from every UNION to the end of the value for the next ';' '='
// '*' when there was none: 300 ms at 1 MB, 16 s at 4 MB before the fix; 8 MB so that the old
// engine runs past the time-out (the fixed one takes about 0.2 s)
describe('the next punctuation is searched once per stretch', () => {
  it("8 MB: ';' then UNION anchors with no ';' '=' '*' after them (SQL anchor loop): scan and sanitize return", () => {
    const engine = new Engine({ maxValueLength: 8 * MB + 1 });
    const value = ';' + rep('(\\,union/', 8 * MB);
    expect(Array.isArray(engine.scan(value))).toBe(true);
    expect(typeof engine.sanitize(value)).toBe('string');
    expect(engine.faults).toBe(0);
  }, 30_000);
});

describe('the bounds, as rules', () => {
  const engine = new Engine();
  const rules = (v) => engine.scan(v).map((f) => f.rule);

  it('a UNION inside what an earlier window read as one long string still gets its own window', () => {
    // the prose anchor ("Union") opens a window that reads the breakout quote as a string running
    // to the next quote, over 256 units and among the window's last tokens; the real UNION inside
    // it is judged by a window of its own (an early fix skipped such a token whole)
    const ids = Array.from({ length: 32 }, (_, k) => k + 2).join(',');
    const value = `Navy Federal Credit Union, San Diego CA 92101' and id not in (${ids})` + ' '.repeat(200) +
      "union select password,2 from users where name in ('x','y') #";
    expect(rules(value)).toContain('patterns.sql.union');
  });

  it('what a window reads inside a string or comment after a breakout quote is read again from that quote', () => {
    // the quote context reads 64 tokens after the breakout quote and the list fills them; the
    // window of the prose word "Union" read that quote as opening a string up to ('x', so the real
    // UNION lay inside a string in every window (missed until 2026-11-22)
    const ids = Array.from({ length: 32 }, (_, k) => k + 2).join(',');
    const tail = "union select password,2 from users where name in ('x','y') #";
    const head = `Teachers Credit Union, Springfield IL 62701' and id not in (${ids})`;
    expect(rules(head + ' '.repeat(200) + tail)).toContain('patterns.sql.union');
    expect(rules(head + ' ' + tail)).toContain('patterns.sql.union');
    // the same with the other quote, and with a time-based call instead of the UNION
    expect(rules(head.replace("'", '"') + ' ' + tail.replace(/'/g, '"'))).toContain('patterns.sql.union');
    expect(rules(`Credit Union x' and 1 in (${ids}) and sleep(5) and 'a'='b`)).toContain('patterns.sql.time-based');
    // the double quote's breakout with single quotes in its SQL (the single quote's breakout is
    // not read inside any string there)
    expect(rules(`Credit Union x" and id not in (${ids}) union select password,2 from users where name<>'a'#`)).toContain('patterns.sql.union');
    expect(rules(`Credit Union x" and id not in (${ids}) and sleep(5) and 'a'<>'b'#`)).toContain('patterns.sql.time-based');
    // the value-start window reads the breakout as a string to the value's end
    expect(rules(`1' and id not in (${ids}) union select password,2 from users#`)).toContain('patterns.sql.union');
    expect(rules(`1' and id not in (${ids}); drop table users#`)).toContain('patterns.sql.stacked-query');
    expect(rules(`5 "x' and id not in (${ids}) union select password,2 from users#`)).toContain('patterns.sql.union');
    // the breakout inside a string of the other quote, a backtick, a line comment, an unclosed comment
    const after = ` and id not in (${ids}) union select password,2 from users#`;
    for (const lead of ['Credit Union "x\'', 'Credit Union `x\'', 'Credit Union #5, x\'', 'Credit Union /* x\'']) {
      expect(rules(lead + after)).toContain('patterns.sql.union');
    }
    // prose around it stays clean
    expect(rules("Credit Union's members can select a plan from the union benefits page (see 1, 2, 3)")).toEqual([]);
    expect(rules("Our credit union's rate is 5% - union dues don't apply (members only)")).toEqual([]);
  });

  it('a JavaScript breakout: a gap of comments over 512 units counts as the call; a shorter one is read to its end', () => {
    // under the bound the call's '(' decides
    expect(rules("'+alert" + '/**/ '.repeat(90) + '(1)')).toContain('patterns.xss.js-breakout');
    expect(rules("'+alert" + '/**/ '.repeat(90) + 'x')).not.toContain('patterns.xss.js-breakout');
    // over it: a listed sink counts, any other word does not
    expect(rules("'+alert" + '/**/ '.repeat(130) + 'x')).toContain('patterns.xss.js-breakout');
    expect(rules("'+hello" + '/**/ '.repeat(130) + 'x')).not.toContain('patterns.xss.js-breakout');
    // white space alone is read to its end, however long
    expect(rules("'+alert" + ' '.repeat(5000) + 'x')).not.toContain('patterns.xss.js-breakout');
    expect(rules("'+alert" + ' '.repeat(5000) + '(1)')).toContain('patterns.xss.js-breakout');
  });

  it('an SQL phrase: a separator over 514 units from its first comment counts as the phrase; a shorter one is read to its end', () => {
    expect(rules('waitfor' + '/**/ '.repeat(90) + "delay '0:0:5'")).toContain('patterns.sql.waitfor');
    expect(rules('waitfor' + '/**/ '.repeat(90) + 'hello')).not.toContain('patterns.sql.waitfor');
    expect(rules('waitfor' + '/**/ '.repeat(130) + 'hello')).toContain('patterns.sql.waitfor');
    expect(rules('waitfor' + ' '.repeat(5000) + 'hello')).not.toContain('patterns.sql.waitfor');
    // one comment of 512 units inside, as before
    expect(rules('waitfor/*' + 'x'.repeat(512) + '*/hello')).toContain('patterns.sql.waitfor');
    expect(rules('waitfor/*' + 'x'.repeat(511) + '*/hello')).not.toContain('patterns.sql.waitfor');
  });

  it('a command after a separator or substitution: the white space, quotes and path before it have no bound', () => {
    // the shell skips any amount of white space and reads //////bin/cat as /bin/cat (until
    // 2026-11-22 the look stopped after 64 units of white space and 256 of path)
    for (const n of [1, 64, 65, 1000, 100_000]) {
      expect(rules(`abc;${' '.repeat(n)}cat /etc/passwd`), `${n} spaces`).toContain('patterns.command.separated-command');
      expect(rules(`abc;${'+'.repeat(n)}cat+-la`), `${n} '+'`).toContain('patterns.command.separated-command');
      expect(rules(`abc|${'/'.repeat(n)}bin/cat /etc/passwd`), `${n} slashes`).toContain('patterns.command.separated-command');
      expect(rules(`abc&&${"'".repeat(n)}whoami`), `${n} quotes`).toContain('patterns.command.recon-command');
      expect(rules(`x=$(${' '.repeat(n)}whoami)`), `${n} spaces in $(`).toContain('patterns.command.substitution');
    }
    // and still no command where the run ends in prose
    expect(rules(`dog;${' '.repeat(1000)}cat`)).not.toContain('patterns.command.separated-command');
  });

  it('the sanitizer removes every phrase and script element of the dense inputs', () => {
    const phrases = engine.sanitize('1 ' + rep('/*waitfor/**/ ', 20_000) + " delay '0:0:5'");
    expect(rules(phrases)).not.toContain('patterns.sql.waitfor');
    const script = engine.sanitize(rep('<script>alert(1)', 20_000) + '</script >x');
    expect(script.toLowerCase()).not.toContain('<script');
    expect(rules(script)).toEqual([]);
  });

  // Until 2026-11-21 (night) each sanitizing step removed one link of a UNION SELECT chain (the
  // next one became a select list only once the one before it was replaced): 16 links or more
  // never settled within the 16 steps, and the value came back empty after 16 full steps.
  it('the sanitizer removes a chain of UNION SELECT in one step, however long', () => {
    for (const n of [3, 16, 40, 300]) {
      const out = engine.sanitize('union select '.repeat(n), { encode: false });
      expect(out).not.toBe('');
      expect(out.toLowerCase()).not.toContain('union');
      expect(out.split('[BLOCKED]').length - 1).toBe(n);
    }
    // with something after the chain, and inside prose
    for (const v of ['a ' + 'union all select '.repeat(50) + '1,2 from users', 'union select '.repeat(40) + 'x', 'union select union distinct select ('.repeat(20)]) {
      const out = engine.sanitize(v, { encode: false });
      expect(out.toLowerCase()).not.toContain('union');
      expect(rules(out)).toEqual([]);
      expect(engine.sanitize(out, { encode: false })).toBe(out);
    }
    // what detection reports is unchanged: one finding for the chain
    expect(rules('union select '.repeat(40))).toEqual(['patterns.sql.union']);
  });

  it('a lone UNION SELECT that is no finding stays, wherever the lexer windows fall', () => {
    for (const v of [
      'The union members and staff voted today that the local union select a new leader',
      'The union members and staff voted that the local union select a new leader',
      'members of each union select union reps',
      'members of each union select select few',
      'let the union select',
    ]) {
      expect(rules(v)).toEqual([]);
      expect(engine.sanitize(v, { encode: false })).toBe(v);
    }
  });

  it('white space before a comparison hides no OR, however long (it was walked 32 units back)', () => {
    for (const n of [1, 31, 32, 33, 100, 5000, 100_000]) {
      const gap = ' '.repeat(n);
      expect(rules(`x=1 or${gap}1=1`), `${n} spaces`).toContain('patterns.sql.tautology');
      expect(rules(`x=1 or\n${gap}\t1=1`), `${n} spaces and a line break`).toContain('patterns.sql.tautology');
      expect(rules(`id=5${gap}or${gap}1=1`), `${n} spaces twice`).toContain('patterns.sql.tautology');
    }
    // a form-encoded value: '+' is a space there, before the comparison too
    for (const n of [1, 2, 40]) {
      const plus = '+'.repeat(n);
      expect(rules(`x=1${plus}or${plus}1=1`), `${n} '+'`).toContain('patterns.sql.tautology');
      expect(rules(`abc${plus}or${plus}1=1`), `${n} '+' after a word`).toContain('patterns.sql.tautology');
    }
    expect(rules('q=cats+or+dogs')).toEqual([]);
    // prose with the same shapes stays clean
    expect(rules(`pick one or${' '.repeat(60)}the other`)).toEqual([]);
    expect(rules(`a = b or${' '.repeat(60)}c`)).toEqual([]);
  });

  it("line comments after ';' are judged as before: a statement after the comment's line break counts", () => {
    expect(rules('x;-- c\nselect * from users')).toContain('patterns.sql.stacked-query');
    expect(rules(rep('x;--', 4000) + '\ndrop table users')).toContain('patterns.sql.stacked-query');
    expect(rules(rep('x;--', 4000))).not.toContain('patterns.sql.stacked-query');
    // every ';' of a chain of comments leads to the same first token: the statement at the end
    expect(rules('x' + rep('\n#;', 3000) + '\ndrop table users')).toContain('patterns.sql.stacked-query');
    expect(rules('x' + rep('\n#;;', 3000) + '\ndrop table users')).toContain('patterns.sql.stacked-query');
    expect(rules('x' + rep('\n#;', 3000) + '\nhello there')).not.toContain('patterns.sql.stacked-query');
  });
});
