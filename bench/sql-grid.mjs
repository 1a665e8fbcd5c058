// A recall probe for SQL injection: attack-shaped values built from our own parts, not from a
// public payload list. Most values are a lead (how the value leaves the application's string or
// number: nothing, "1", "-1", "1)", "x'", "x')", "x\"" ...), a connector, a payload core and a
// trailer (nothing, "--", "-- -", "#", "/*", ";--", "%00", a tail that balances the application's
// quote and parentheses such as " and 'a'='a", or one that leaves its quote open: " or '").
// Connectors and cores go together by family:
//   boolean:    " or ", " and ", "||", "&&", " xor " x 40 conditions (tautologies of several
//               forms, time calls, error functions, subqueries, blind substring/ascii probes,
//               hex and char() strings)
//   union:      " union [all|distinct] select " x 16 select lists
//   stacked:    ";", "; ", ";\n" x 18 statements (drop, insert, update, exec, declare, waitfor ...)
//   clause:     " order by ", " group by ", " having ", " limit " x their arguments
//   cut:        the lead and the trailer alone (admin'--, x')#)
//   expression: a whole expression as a sort column or list item ("id,(select 1)", "(case when ...")
//   values:     more values after a string, as in an INSERT (x', (select version()))--)
// about 32,000 values in all. A second grid takes finished attacks (a hand list, plus every
// connector and core after "1", "x'", "x')" and "id," ending in "--") and rewrites their spaces
// (/**/, /*x*/, +, %20, tab, line break, %0a, %09, two spaces, none next to punctuation, none
// between a number and a keyword), their case (upper, alternating) and URL-encodes them once and
// twice: about 14,000 values. A third, small set of benign values (prose and form values that use
// SQL words) shows what the engine flags that it should not.
// A value counts as found when scan() reports a finding of vector 'sql'. Nothing is asserted.
//
//   node bench/sql-grid.mjs [bindings] [--list] [--samples N] [--against <other bindings>]
//
// Misses are printed by each part, with N missed values per group (default 3). --list prints
// every missed value; --against prints the values the other build finds and this one misses (the
// check for a narrowing change: which attacks it gives up). Misses that another vector still
// reports (a "%00" tail is a path null byte) are counted: the value is flagged, but not as SQL.

import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    list: { type: 'boolean', default: false },
    samples: { type: 'string', default: '3' },
    against: { type: 'string' },
  },
});
const load = async (p) => new (await import(pathToFileURL(path.resolve(p)).href)).Engine();
const here = path.dirname(fileURLToPath(import.meta.url));
const bindings = positionals[0] ?? path.join(here, '../dist/bindings/index.js');
const engine = await load(bindings);
const other = opts.against ? await load(opts.against) : null;
const SAMPLES = Number(opts.samples);

// How the value leaves its context. The quote of a lead decides the balancing trailer.
const LEADS = ['', '1', '-1', '1 ', '1)', '1))', "1'", "x'", 'x"', "x')", "x'))", 'x")'];

const BOOL_CONNECTORS = [' or ', ' and ', '||', '&&', ' xor '];
const CONDITIONS = [
  // tautologies and contradictions
  '1=1', '2>1', '1<>2', '1!=2', '1', 'true', 'not false', '3-1=2', "'a'='a'", "'ab'<>'cd'", "'a' like 'a'",
  '1 like 1', '1 between 0 and 2', '1 in (1,2)', 'null is null', '1 is not null', 'id=id', '1=0',
  // time-based
  'sleep(5)', 'benchmark(5000000,md5(1))', 'pg_sleep(5)', '(select sleep(5))', '1=(select 1 from pg_sleep(5))',
  'if(1=1,sleep(5),0)', '(select 1 from (select(sleep(5)))a)',
  // error-based
  'extractvalue(1,concat(0x7e,version()))', 'updatexml(1,concat(0x7e,user()),1)', '1=convert(int,@@version)',
  '1=cast(version() as int)', 'exp(~(select * from (select user())a))',
  // boolean subqueries
  '(select 1)=1', 'exists(select 1)', '(select count(*) from users)>0',
  // blind probes
  'ascii(substring(user(),1,1))>64', 'substr(version(),1,1)=5', "mid(database(),1,1)='a'", 'length(database())>3',
  'ord(mid((select password from users limit 1),1,1))>50',
  // hex and char() strings
  'username=0x61646d696e', 'char(97,98)=char(97,98)',
];

const UNION_CONNECTORS = [' union select ', ' union all select ', ' union distinct select '];
const SELECT_LISTS = ['1', '1,2,3', 'null,null,null', 'null,version(),null', '1,user(),3', "'a','b'", '@@version,2',
  'table_name,2 from information_schema.tables', 'group_concat(table_name) from information_schema.tables',
  'username,password from users', '1,2 from dual', "load_file('/etc/passwd'),2", 'char(65),2', '0x41,2',
  'name from sysobjects', 'banner from v$version'];

const STACK_CONNECTORS = [';', '; ', ';\n'];
const STATEMENTS = ['drop table users', 'insert into users values(1,2)', "update users set role='admin'",
  'delete from users', "exec xp_cmdshell 'whoami'", "exec master..xp_cmdshell 'dir'", 'declare @a varchar(99)',
  "waitfor delay '0:0:5'", 'select pg_sleep(5)', 'select sleep(5)', 'shutdown', 'create table t(a int)',
  'truncate table logs', "grant all on *.* to 'x'@'%'", 'set @a=1', 'call p(1)', "copy t from program 'id'",
  'select * from users'];

const CLAUSES = {
  ' order by ': ['1', '3', '100', '1,2', '1 desc', 'sleep(5)', '(select 1)', 'if(1=1,1,2)', 'username'],
  ' group by ': ['1', '1,2', 'username having 1=1', '1 having count(*)>0'],
  ' having ': ['1=1', 'count(*)>0'],
  ' limit ': ['1', '1,1', '1 offset 1', "0,1 into outfile '/tmp/x'"],
};

const TRAILERS = ['', '--', '-- -', '#', '/*', ';--', '%00', 'balance', 'open'];

// Sort columns and select lists: the value is the expression itself, or follows a column.
const COLUMN_LEADS = ['', 'id,', 'id desc,', '1,', 'name '];
const EXPRESSIONS = ['(select 1)', '(select 1 from users)', '(select password from users limit 1)',
  '(case when 1=1 then 1 else 2 end)', '(case when (select 1)=1 then id else name end)',
  "(case when substring(user(),1,1)='r' then id else name end)", 'if(1=1,id,name)', '(select sleep(5))',
  '(select 1 union select 2)', 'extractvalue(1,concat(0x7e,version()))', '(select 1 from pg_sleep(5))',
  'ascii(substring(user(),1,1))', '(select count(*) from information_schema.tables)', 'rand(1=1)', '@@version'];
// Values after a string in a VALUES list.
const VALUES = ['(select version())', 'version()', '@@version', '(select password from users limit 1)', "'a'", '1',
  'sleep(5)', 'user()', "(select group_concat(table_name) from information_schema.tables)"];

/** A tail that leaves the application's own quote and parentheses balanced (" and 'a'='a"). */
function tail(lead, trailer) {
  if (trailer !== 'balance' && trailer !== 'open') return trailer;
  const q = lead.includes("'") ? "'" : lead.includes('"') ? '"' : '';
  const parens = '('.repeat((lead.match(/\)/g) ?? []).length);
  if (trailer === 'balance') return q ? ` and ${parens}${q}a${q}=${q}a` : parens ? ` and ${parens}1=1` : null;
  return q ? ` or ${parens}${q}` : null; // x' or 1=1 or '  (the application adds the closing quote)
}

const rows = [];
const seen = new Set();
function add(row) {
  if (seen.has(row.value)) return;
  seen.add(row.value);
  rows.push(row);
}
function family(name, connectors, coresFor) {
  for (const lead of LEADS) for (const connector of connectors) for (const core of coresFor(connector)) {
    for (const trailer of TRAILERS) {
      const t = tail(lead, trailer);
      if (t === null) continue;
      add({ family: name, lead, connector, core, trailer, value: lead + connector + core + t });
    }
  }
}
family('boolean', BOOL_CONNECTORS, () => CONDITIONS);
family('union', UNION_CONNECTORS, () => SELECT_LISTS);
family('stacked', STACK_CONNECTORS, () => STATEMENTS);
family('clause', Object.keys(CLAUSES), (c) => CLAUSES[c]);
// the lead and the trailer alone: admin'--, x')#
for (const lead of LEADS) for (const trailer of TRAILERS) {
  const t = tail(lead, trailer);
  if (lead && t) add({ family: 'cut', lead, connector: '', core: '', trailer, value: lead + t });
}
// a value that is a whole expression (a sort column, a select list): what follows the lead is
// SQL on its own
for (const lead of COLUMN_LEADS) for (const core of EXPRESSIONS) for (const trailer of ['', '--', '#', '-- -']) {
  add({ family: 'expression', lead, connector: '', core, trailer, value: lead + core + trailer });
}
// more values after a string, as in an INSERT's VALUES list: x', (select version()))--
for (const lead of ["x'", "1'", 'x"']) for (const connector of [',', ', ', '),(']) for (const core of VALUES) {
  for (const trailer of ['--', '#', '-- -', ';--', 'balance']) {
    const q = lead.endsWith('"') ? '"' : "'";
    const close = connector === '),(' ? '' : ')';
    const t = trailer === 'balance' ? `,${q}` : close + trailer;
    add({ family: 'values', lead, connector, core, trailer, value: lead + connector + core + t });
  }
}

// Finished attacks for the spacing, case and encoding grid.
const ATTACKS = [
  "x' or 1=1--", "x' or 'a'='a", 'x" or "a"="a', '1 or 1=1', "x') or ('a'='a", "x' and sleep(5)--", '1 and sleep(5)',
  "x' or pg_sleep(5)--", "1) and benchmark(5000000,md5(1))#", "x' and extractvalue(1,concat(0x7e,version()))--",
  "1 and updatexml(1,concat(0x7e,user()),1)", "x' and 1=convert(int,@@version)--", "x' and (select 1)=1--",
  "1 and ascii(substring(user(),1,1))>64", "x' and length(database())>3#", "x' or 1 between 0 and 2--",
  "x' or 1 in (1,2)--", "1 or null is null", "x' union select 1,2,3--", "-1 union select null,version(),null",
  "1 union all select username,password from users", "x' union select table_name,2 from information_schema.tables#",
  "1) union select 1,2,3--", "x')) union all select null,null--", "x'; drop table users--", "1; drop table users",
  "x'; insert into users values(1,2)--", "1; exec xp_cmdshell 'whoami'", "x'; waitfor delay '0:0:5'--",
  "1; declare @a varchar(99)", "x'; update users set role='admin'--", "1; select pg_sleep(5)", "1 order by 3",
  "x' order by 3--", "1 group by username having 1=1", "x' group by 1,2--", "1 limit 1,1", "x' having 1=1--",
  "x' xor 1=1--", "x'||'a'='a", "1 && 1=1", "1 || sleep(5)", "-1 or 2>1", "x' and 'ab'<>'cd'--",
  "x' and username=0x61646d696e--", "x' and char(97,98)=char(97,98)--", "1 and exists(select 1)",
  "x' and if(1=1,sleep(5),0)--",
];
const alternate = (s) => [...s].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
const SPACINGS = {
  'space': (v) => v,
  '/**/': (v) => v.replaceAll(' ', '/**/'),
  '/*x*/': (v) => v.replaceAll(' ', '/*x*/'),
  '+': (v) => v.replaceAll(' ', '+'),
  '%20': (v) => v.replaceAll(' ', '%20'),
  'tab': (v) => v.replaceAll(' ', '\t'),
  'newline': (v) => v.replaceAll(' ', '\n'),
  '%0a': (v) => v.replaceAll(' ', '%0a'),
  '%09': (v) => v.replaceAll(' ', '%09'),
  'double space': (v) => v.replaceAll(' ', '  '),
  'upper': (v) => v.toUpperCase(),
  'alternating case': alternate,
  'upper + /**/': (v) => v.toUpperCase().replaceAll(' ', '/**/'),
  'url-encoded': (v) => encodeURIComponent(v),
  'url-encoded twice': (v) => encodeURIComponent(encodeURIComponent(v)),
  // no space next to punctuation (x'or'a'='a), and a number glued to the keyword after it (1or 1=1)
  'no space by punctuation': (v) => v.replace(/ +(?=[^\w])|(?<=[^\w]) +/g, ''),
  'number glued to keyword': (v) => v.replace(/(\d) (?=[a-z])/gi, '$1'),
};
// and each connector and core of the families after three leads, ending in "--" (a trailer
// without a space: "-- -" with its space rewritten is no comment tail any more)
for (const r of rows) {
  if (['1', "x'", "x')", 'id,'].includes(r.lead) && r.trailer === '--' && (r.connector || r.core)) ATTACKS.push(r.value);
}
const spaced = [];
const spacedSeen = new Set();
for (const [spacing, f] of Object.entries(SPACINGS)) for (const attack of new Set(ATTACKS)) {
  const value = f(attack);
  if (spacing !== 'space' && value === attack) continue;
  if (spacedSeen.has(value)) continue;
  spacedSeen.add(value);
  spaced.push({ spacing, attack, value });
}

// Benign values that use SQL words, quotes and operators. None should be flagged.
const BENIGN = [
  'select a size', 'Please select a size and colour', 'order by price', 'Order by Friday or call us', "O'Brien and sons",
  "O'Reilly & Co", 'drop-off at 5', '1-2 or 3 days', 'Union Street 12', 'union select committee', 'Delete my account please',
  'update: shipped', "I'd like 1 or 2 of these", 'between 9 and 5', 'null and void', "It's 5 o'clock", 'rock & roll',
  'Tom & Jerry; Bugs Bunny', 'a=1&b=2', 'size>10 and colour=red', "Don't sleep (5 hours is not enough)", 'sleep 5 hours',
  'insert coin', 'Insert into slot B', 'table for 2', 'group by 3s', '100% cotton -- machine wash', 'C# or F#',
  'Q&A: where to go?', "Let's go; it's late", 'or else', 'and then some', '"Hello" or "Goodbye"', 'price: 1/2 off',
  "The 'best' deal -- really", 'SELECT * is not a good idea in prod, says the DBA', 'x = y or z', 'rating >= 4',
  "Mary's and John's", 'dinner at 8; drinks after', 'like 1 or 2', 'limit 1 per customer', 'having fun',
  "Fish 'n' chips", 'Benchmark (2024) results', 'id, name, email', 'Where is my order #1234?', '3 for 2 -- today only',
  'true or false?', 'my email is a.b@c.de', '(1) first; (2) second', 'declare your items', 'exec summary',
  "(see 'Notes') -- thanks", "Tom's;-- bye", "Rock 'n' roll (live)", "Size 'M', colour (blue)",
];

const isSql = (f) => f.vector === 'sql';
const found = (e, v) => e.scan(v).some(isSql);

function pick(list, n) {
  if (list.length <= n) return list;
  const out = [];
  for (let i = 0; i < n; i++) out.push(list[Math.floor((i * list.length) / n)]);
  return out;
}

function run(name, grid, keys) {
  let miss = 0;
  let elsewhere = 0;
  const by = keys.map(() => new Map());
  const totals = keys.map(() => new Map());
  const missed = [];
  const given = [];
  for (const row of grid) {
    keys.forEach((k, i) => totals[i].set(row[k], (totals[i].get(row[k]) ?? 0) + 1));
    const findings = engine.scan(row.value);
    if (findings.some(isSql)) continue;
    miss++;
    if (findings.length) elsewhere++;
    missed.push(row.value);
    keys.forEach((k, i) => {
      const g = by[i].get(row[k]) ?? [];
      g.push(row.value);
      by[i].set(row[k], g);
    });
    if (other && found(other, row.value)) given.push(row.value);
  }
  console.log(`\n${name}: ${miss} of ${grid.length} missed (${(100 * miss / grid.length).toFixed(1)}%); ` +
    `${elsewhere} of the misses have a finding of another vector`);
  keys.forEach((k, i) => {
    const top = [...by[i]].sort((a, b) => b[1].length - a[1].length);
    if (!top.length) return;
    console.log(`  misses by ${k}:`);
    for (const [v, list] of top) {
      const n = totals[i].get(v);
      console.log(`    ${JSON.stringify(v)} ${list.length}/${n} (${(100 * list.length / n).toFixed(0)}%)`);
      for (const s of pick(list, SAMPLES)) console.log(`        ${JSON.stringify(s)}`);
    }
  });
  if (opts.list) for (const v of missed) console.log('  ' + JSON.stringify(v));
  if (other) {
    console.log(`  found by ${opts.against} and missed here: ${given.length}`);
    for (const v of given) console.log('  ' + JSON.stringify(v));
  }
}

console.log(`bindings: ${bindings}`);
for (const f of ['boolean', 'union', 'stacked', 'clause', 'cut', 'expression', 'values']) {
  const keys = f === 'cut' ? ['lead', 'trailer'] : f === 'expression' ? ['core', 'lead', 'trailer'] : ['connector', 'lead', 'core', 'trailer'];
  run(`${f}: ${keys.map((k) => `${k}s`).join(' x ')}`, rows.filter((r) => r.family === f), keys);
}
const all = rows.length;
const allMissed = rows.filter((r) => !found(engine, r.value)).length;
console.log(`\nall families: ${allMissed} of ${all} missed (${(100 * allMissed / all).toFixed(1)}%)`);
run('spacing, case and encoding x attacks', spaced, ['spacing', 'attack']);

let flagged = 0;
console.log(`\nbenign controls: ${BENIGN.length}`);
for (const v of BENIGN) {
  const f = engine.scan(v);
  if (!f.length) continue;
  if (f.some(isSql)) flagged++;
  console.log(`  flagged ${JSON.stringify(v)}: ${f.map((x) => `${x.rule} ${JSON.stringify(x.matched)}`).join(', ')}`);
}
console.log(`  ${flagged} of ${BENIGN.length} flagged as sql`);
