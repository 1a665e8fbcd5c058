// scan_batch calls a detector only for values that hold a character it needs (XSS_CLASSES,
// XXE_CLASSES, sstiWanted, cmdWanted in assembly/), and the SQL look at a value's start skips a
// value of one word; rule filters answer "maybe" by (length, first character) of a parameter.
// Each gate at its edge: a value holding only the one character that opens it is still found,
// short (under the vector pass's 24 units) and long (the same value followed by 40 units of prose).
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
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
  ['a listed call by its (length, first letter) filter', 'x sleep(5) and 1', 'patterns.sql.time-based'],
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

// The command detector reads runs of separators eight units at a time, keeping only those
// followed by a unit a command can start with (assembly/cmd.ts nextCandidate): a command after a
// run, at every offset of that step and in the last eight units (read one separator at a time),
// is still found; the runs alone are nothing.
describe('separator runs read eight units at a time', () => {
  const rep = (unit, n) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
  // (after the separator: a letter, '"', "'", '+', ' ', tab, '/')
  const COMMANDS = [';ls -la /', '&&ls -la /', '|"id" -a', '\ncat /etc/passwd', ';id -a', '||id -a', ";'id' -a", ';+id -a', '; id -a', ';\tid -a', ';/usr/bin/id'];
  const isSep = (c) => c === ';' || c === '&' || c === '|' || c === '\n';
  // the separator the finding starts at, by the loop's rule one unit at a time: a separator (or
  // && ||) followed by a letter, '/', ' ', tab, '+' or a quote; past any other (and past the
  // unit after it unless that unit is a separator itself)
  const firstCandidate = (v) => {
    for (let i = 0; i < v.length; ) {
      if (!isSep(v[i])) { i++; continue; }
      let j = i + 1;
      if ((v[i] === '&' || v[i] === '|') && v[j] === v[i]) j++;
      if (j < v.length && /[A-Za-z/ \t+'"]/.test(v[j])) return i;
      i = j < v.length && isSep(v[j]) ? j : j + 1;
    }
    return -1;
  };
  const commandStart = (v) => engine.scan(v).find((f) => f.vector === 'command')?.start ?? -1;
  // ('&' and '|' alone: runs of one character, passed to their last pair or single at once)
  for (const run of ['\n#;', '&#|', ';\n&', '&', '|', '&|']) {
    it(`after ${JSON.stringify(run)} runs of 0 to 40 units, every command is found at its separator`, () => {
      for (let k = 0; k <= 40; k++) {
        for (const cmd of COMMANDS) {
          const v = rep(run, k) + cmd;
          expect(firstCandidate(v)).toBeGreaterThanOrEqual(k - 1);
          expect(commandStart(v), JSON.stringify(v)).toBe(firstCandidate(v));
          // and the same with prose after it (the command no longer in the last units)
          expect(commandStart(v + PROSE), JSON.stringify(v + PROSE)).toBe(firstCandidate(v));
        }
      }
    });
    it(`after ${JSON.stringify(run)} runs of 0 to 40 units, a command word glued to a letter is none`, () => {
      for (let k = 0; k <= 40; k++) {
        for (const tail of ['xls -la /', 'wid -a', 'bcat /etc/passwd']) {
          expect(commandStart(rep(run, k) + tail), JSON.stringify(rep(run, k) + tail)).toBe(-1);
        }
      }
    });
    it(`${JSON.stringify(run)} repeated holds no command`, () => {
      for (const n of [7, 8, 9, 17, 3000]) expect(rules(rep(run, n)).filter((r) => r.startsWith('patterns.command.'))).toEqual([]);
    });
  }
});

// The SQL lexer and its look at a value's start pass runs of white space eight units at a time
// (assembly/text.ts skipBlanks: ' ' and \t \n \v \f \r; U+00A0 and a form-encoded '+' one at a time).
describe('white space runs read eight units at a time', () => {
  const BLANKS = ' \t\r\n\v\f';
  const run = (k, extra = '') => Array.from({ length: k }, (_, i) => (extra && i % 5 === 4 ? extra : BLANKS[i % BLANKS.length])).join('');
  const tautology = (v) => engine.scan(v).filter((f) => f.rule === 'patterns.sql.tautology').map((f) => [f.start, f.end]);
  it('a tautology after 0 to 40 units of white space is found where it stands', () => {
    for (let k = 0; k <= 40; k++) {
      expect(tautology(run(k) + '1 or 1=1'), `k=${k}`).toEqual([[k + 2, k + 8]]);
      expect(tautology(run(k, '\u00a0') + '1 or 1=1'), `k=${k} with U+00A0`).toEqual([[k + 2, k + 8]]);
      // inside a value too, between tokens
      expect(tautology(`x=1${run(k + 1)}or${run(k + 1)}1=1`), `k=${k} between tokens`).not.toEqual([]);
    }
  });
  it('a value of white space alone holds nothing', () => {
    for (const k of [1, 7, 8, 9, 16, 4000]) expect(rules(run(k))).toEqual([]);
  });
});

// The substitution search passes a run of '{' to its last '{' (assembly/cmd.ts substitutions):
// inside a run neither brace expansion nor the shellshock prefix can start.
describe("runs of '{'", () => {
  const subst = (v) => engine.scan(v).filter((f) => f.rule === 'patterns.command.substitution').map((f) => [f.start, f.end]);
  it('brace expansion after a run is found at the run\'s last brace; the shellshock prefix before one at its start', () => {
    for (let k = 1; k <= 40; k++) {
      const run = '{'.repeat(k);
      expect(subst(`x${run}cat,/etc/passwd}`), `k=${k}`).toEqual([[k, k + 5]]);
      expect(subst(`() ${run} :; }; echo`), `k=${k}`).toEqual([[0, 4]]);
    }
  });
  it('a run alone, or before prose, is nothing', () => {
    for (const k of [1, 2, 3, 8, 9, 4000]) {
      expect(subst('{'.repeat(k))).toEqual([]);
      expect(subst('{'.repeat(k) + ' cats, dogs}')).toEqual([]);
    }
  });
});

// Runs of one character passed at once: ';' by the SQL anchors (a walk from inside the run stops
// at the next ';'), and a '%' or '&' not followed by a letter, digit or '#' by the escape check.
describe('runs of one character', () => {
  it("a statement after a run of ';' is found at the run's last ';'", () => {
    for (let k = 1; k <= 40; k++) {
      const v = 'x' + ';'.repeat(k) + 'drop table users';
      const f = engine.scan(v).filter((x) => x.rule === 'patterns.sql.stacked-query').map((x) => [x.start, x.end]);
      expect(f, `k=${k}`).toEqual([[k, k + 11]]);
    }
    expect(rules(';'.repeat(5000)).filter((r) => r.startsWith('patterns.sql.'))).toEqual([]);
  });
  it("an escape after a run of '%' or '&' is decoded", () => {
    for (let k = 0; k <= 40; k++) {
      expect(engine.decode('%'.repeat(k) + '%3cscript%3e'), `k=${k}`).toBe('%'.repeat(k) + '<script>');
      expect(engine.decode('&'.repeat(k) + '&lt;b'), `k=${k}`).toBe('&'.repeat(k) + '<b');
      expect(engine.decode('&'.repeat(k) + '&#62;'), `k=${k}`).toBe('&'.repeat(k) + '>');
      expect(engine.decode('%'.repeat(k) + '%u003c'), `k=${k}`).toBe('%'.repeat(k) + '<');
      expect(rules('%'.repeat(k) + '%3cscript%3ealert(1)%3c/script%3e')).toContain('patterns.xss.script-tag');
    }
    expect(engine.decode('%'.repeat(5000))).toBe('%'.repeat(5000));
    expect(engine.decode('&'.repeat(5000) + '#')).toBe('&'.repeat(5000) + '#');
  });
});

// The command detector and SQL's stacked-query look first test the word after a separator
// against a filter of the enabled rules' words by (length, first letter), made per kind
// (kindWordFilter in assembly/rules.ts) and remade whenever a rule is switched (";x;x...": the
// full judgement of every such word cost most of the scan). Every listed word still counts,
// after a long run of words the filter refuses, and a rule switched off and on again is seen.
describe('the word filters after separators', () => {
  const kinds = JSON.parse(readFileSync(new URL('../../assembly/rules/command.json', import.meta.url), 'utf8'));
  const sqlRules = JSON.parse(readFileSync(new URL('../../assembly/rules/sql.json', import.meta.url), 'utf8'));
  const list = (doc) => (Array.isArray(doc) ? doc : doc.rules);
  const params = (doc, kind) => list(doc).filter((r) => r.kind === kind).flatMap((r) => r.params);
  const RUN = ';x;ab;q'.repeat(3000); // words no filter lets through: the same path as the listed ones

  it('every listed command is found glued to a separator, after the run', () => {
    const words = [...params(kinds, 'shell-command'), ...params(kinds, 'shell-command-rare')];
    expect(words.length).toBeGreaterThan(100);
    for (const w of words) {
      const found = rules(`${RUN};${w} -la /tmp`);
      expect(found.some((r) => r.startsWith('patterns.command.')), w).toBe(true);
    }
  });
  it('every statement keyword is found after a ";", after the run', () => {
    const words = params(sqlRules, 'sql-stacked');
    expect(words.length).toBeGreaterThan(20);
    // the run is placed after a value start SQL does not judge, so the stacked look decides
    const SHAPES = ['table users--', '--', '* from users--', '@a = 1--', 'into t values(1)--', 't set a=1--', 'from t--',
      "delay '0:0:5'--", 'all on t to u--', 'p(1)--', "data infile 'x' into table t--", "database d to disk='x'--", 't open--',
      't using s on 1=1--', "t to 'x'--", 't(a) values(1)--', 'x as (select 1) delete from t--', '$$begin null; end$$--',
      'p as select 1--', "insert t from 'f'--", 'users;--', 'tables--'].map((rest) => (w) => `${w} ${rest}`);
    let found = 0;
    for (const w of words) {
      let any = false;
      for (const shape of SHAPES) {
        const short = rules(`1;${shape(w)}`).includes('patterns.sql.stacked-query');
        const long = rules(`${RUN};1;${shape(w)}`).includes('patterns.sql.stacked-query');
        expect(long, shape(w)).toBe(short);
        // glued to the run: the ';' before the keyword ends a chain of refused words
        const glued = rules(`${RUN};${shape(w)}`).includes('patterns.sql.stacked-query');
        expect(glued, shape(w)).toBe(short);
        any ||= short;
      }
      if (any) found++;
    }
    expect(found).toBe(words.length); // each keyword is found in some shape
  });
  it('every listed command, its last letter in upper case, is found after near misses of it', () => {
    // the filter is keyed by length, first and last letter: each near miss shares the first two
    // with the listed word and differs in the last (refused, or looked up and not found)
    const words = [...params(kinds, 'shell-command'), ...params(kinds, 'shell-command-rare')];
    const listed = new Set(words);
    for (const w of words) {
      const near = [...'qxzjk'].map((c) => w.slice(0, -1) + c).filter((x) => !listed.has(x));
      const run = near.map((x) => `;${x}&${x}|${x}`).join('').repeat(50);
      const upperLast = w.slice(0, -1) + w.slice(-1).toUpperCase();
      const found = rules(`${run};${upperLast} -la /tmp`);
      expect(found.some((r) => r.startsWith('patterns.command.')), upperLast).toBe(true);
    }
  });
  it('every statement keyword, its last letter in upper case, is found after near misses of it', () => {
    const words = params(sqlRules, 'sql-stacked');
    const listed = new Set(words);
    for (const w of words) {
      const near = [...'qxzjk'].map((c) => w.slice(0, -1) + c).filter((x) => !listed.has(x));
      const run = near.map((x) => `;${x}`).join('').repeat(50);
      const upperLast = w.slice(0, -1) + w.slice(-1).toUpperCase();
      for (const rest of ['table users--', '* from users--', 't set a=1--', "delay '0:0:5'--", 'p(1)--']) {
        const short = rules(`1;${w} ${rest}`).includes('patterns.sql.stacked-query');
        expect(rules(`1${run};${upperLast} ${rest}`).includes('patterns.sql.stacked-query'), `${upperLast} ${rest}`).toBe(short);
      }
    }
  });
  it('every statement keyword is found after a word, a ";" and white space, after near misses', () => {
    // the walk over white space after ';' tests the word against the same filter
    const words = params(sqlRules, 'sql-stacked');
    const SHAPES = ['table users--', '* from users--', 't set a=1--', "delay '0:0:5'--", 'p(1)--', 'all on t to u--',
      'into t values(1)--', '@a = 1--', "data infile 'x' into table t--", "database d to disk='x'--", 't open--',
      't using s on 1=1--', "t to 'x'--", 't(a) values(1)--', 'from users--', '--', 'x as (select 1) delete from t--',
      '$$begin null; end$$--', 'p as select 1--', "insert t from 'f'--", 'users;--', 'tables--'];
    let found = 0;
    for (const w of words) {
      const near = [...'qxzjk'].map((c) => w.slice(0, -1) + c).filter((x) => !words.includes(x));
      const run = near.map((x) => `; ${x}`).join('').repeat(20);
      const upperLast = w.slice(0, -1) + w.slice(-1).toUpperCase();
      let any = false;
      for (const rest of SHAPES) {
        const plain = rules(`abc; ${w} ${rest}`).includes('patterns.sql.stacked-query');
        expect(rules(`abc${run};\t${upperLast} ${rest}`).includes('patterns.sql.stacked-query'), `${upperLast} ${rest}`).toBe(plain);
        any ||= plain;
      }
      if (any) found++;
    }
    expect(found).toBe(words.length);
  });
  it('a chain of refused words stops at a UNION or listed name inside it', () => {
    expect(rules(`${RUN};x;union select 1,2--`)).toContain('patterns.sql.union');
    expect(rules(`${RUN};sleep(5)--`)).toContain('patterns.sql.time-based');
    expect(rules('a;x;x;sleep(5);x')).toContain('patterns.sql.time-based');
    expect(rules(`${RUN};x.y;drop table t--`)).toContain('patterns.sql.stacked-query');
    expect(rules(`${RUN}&x|cat /etc/passwd`)).toContain('patterns.command.separated-command');
  });
  it('every listed attribute name is found after a run of refused attributes', () => {
    const listed = engine.rules.filter((r) => r.kind === 'html-attr-name');
    expect(listed.flatMap((r) => r.params).length).toBeGreaterThan(5);
    const run = 'b=1 x=2 src=y '.repeat(1000);
    for (const r of listed) for (const name of r.params) expect(rules(`<a ${run}${name}=x>`), name).toContain(r.id);
  });
  it('every JavaScript sink is found after a quote and an operator, after a run of refused words', () => {
    const sinks = engine.rules.filter((r) => r.kind === 'js-breakout').flatMap((r) => r.params);
    expect(sinks.length).toBeGreaterThan(20);
    const run = "'=1'+a'-q".repeat(2000);
    for (const w of sinks) {
      // "$" counts only before a member: "$(" is a shell's substitution
      const use = /[a-z]/.test(w) ? `${w}(1)` : `${w}.getScript(1)`;
      expect(rules(`x${run}'+${use}+'`), w).toContain('patterns.xss.js-breakout');
    }
  });
  it('a rule switched on at the ABI after a scan without it is used (the filter is remade)', () => {
    const cases = [
      ['patterns.command.separated-command', ';x;cat /etc/passwd'],
      ['patterns.command.recon-command', ';x;whoami'],
      ['patterns.sql.stacked-query', '1;x;drop table users--'],
    ];
    for (const [id, value] of cases) {
      // off from the start: the first scan makes the filter without the rule's words
      const e = new Engine({ rules: { disable: [id] } });
      const idx = e.rules.findIndex((r) => r.id === id);
      expect(idx).toBeGreaterThanOrEqual(0);
      const has = () => e.scan(value).some((f) => f.rule === id);
      expect(has(), id).toBe(false);
      e.ex.set_rule_enabled(idx, 1);
      expect(has(), id).toBe(true);
      e.ex.set_rule_enabled(idx, 0);
      expect(has(), id).toBe(false);
    }
  });
});
