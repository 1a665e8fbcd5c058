// Deterministic benchmark inputs. Nothing here uses Math.random: every generator takes a fixed
// seed (mulberry32), so every run and every machine scans exactly the same bytes.

/** mulberry32: small, fast, deterministic 32-bit PRNG. Returns floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** UTF-8 length in bytes; the benchmark's "MB" is this / 1e6. */
export const utf8Bytes = (s) => Buffer.byteLength(s, 'utf8');

// 1. A request's worth of short query-like values (the common case: nothing to find).
export const SHORT_BATCH = Object.freeze([
  '42',
  'john.doe@example.com',
  'red shoes size 9',
  '2024-05-01',
  'desc',
  '9b1deb4d-3b7d',
  'page=2',
  'en-US',
]);

// 2. Benign prose. Ordinary English with punctuation, digits, a few apostrophes and a URL.
// The vocabulary deliberately contains everyday words that are also SQL/HTML keywords
// ("select", "from", "or", "and", "update", "order", "script", "drop", "table") because real
// prose does; a scanner that flags this text has a false-positive problem.
const WORDS = (
  'the of and to a in is it you that he was for on are with as I his they be at one have this ' +
  'from or had by word but what some we can out other were all there when up use your how said ' +
  'an each she which do their time if will way about many then them write would like so these ' +
  'her long make thing see him two has look more day could go come did number sound no most ' +
  'people my over know water than call first who may down side been now find any new work part ' +
  'take get place made live where after back little only round man year came show every good ' +
  'me give our under name very through just form sentence great think say help low line differ ' +
  'turn cause much mean before move right boy old too same tell does set three want air well ' +
  'also play small end put home read hand port large spell add even land here must big high such ' +
  'follow act why ask men change went light kind off need house picture try us again animal ' +
  'point mother world near build self earth father select order update table drop script ' +
  'customer delivery shipping invoice account password profile settings report weekly meeting ' +
  'schedule budget review release version feature request support ticket browser server'
).split(' ');
const CONTRACTIONS = ["don't", "it's", "we're", "can't", "isn't", "you'll", "they've", "that's"];
const URLS = [
  'https://www.example.com/docs/getting-started?lang=en&page=2',
  'https://shop.example.org/products/1234-red-shoes#reviews',
  'http://example.net/blog/2024/05/release-notes.html',
];

function sentence(rand) {
  const n = 6 + Math.floor(rand() * 13);
  const parts = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    let w;
    if (r < 0.04) w = CONTRACTIONS[Math.floor(rand() * CONTRACTIONS.length)];
    else if (r < 0.08) w = String(Math.floor(rand() * (rand() < 0.5 ? 100 : 10000)));
    else if (r < 0.085) w = `${1 + Math.floor(rand() * 28)}%`;
    else w = WORDS[Math.floor(rand() * WORDS.length)];
    if (i === 0) w = w[0].toUpperCase() + w.slice(1);
    parts.push(w);
    if (i < n - 1 && rand() < 0.08) parts.push(rand() < 0.8 ? ',' : ';');
  }
  let s = parts.join(' ').replace(/ ([,;])/g, '$1');
  if (rand() < 0.06) s += ' (see page ' + (1 + Math.floor(rand() * 300)) + ')';
  const end = rand();
  return s + (end < 0.85 ? '.' : end < 0.95 ? '?' : '!');
}

/** Exactly `bytes` bytes (ASCII, so also `bytes` UTF-16 units) of benign prose. */
export function benignText(bytes, seed = 0x5eed) {
  const rand = prng(seed);
  let out = '';
  let sinceUrl = 900; // first URL appears within the first few sentences
  let sentences = 0;
  while (out.length < bytes) {
    let s = sentence(rand);
    if (sinceUrl > 1000) {
      s = s.slice(0, -1) + ': ' + URLS[Math.floor(rand() * URLS.length)] + ' for details.';
      sinceUrl = 0;
    }
    sentences++;
    const sep = out.length === 0 ? '' : sentences % 6 === 0 ? '\n\n' : ' ';
    out += sep + s;
    sinceUrl += s.length + sep.length;
  }
  return out.slice(0, bytes);
}

// 3. Attack-dense text: tags, quotes, SQL fragments and ../ sequences, many per KB.
const ATTACKS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(document.cookie)>',
  '"><svg onload=alert(1)>',
  "<a href='javascript:alert(1)'>x</a>",
  '<iframe src="//evil.example/"></iframe>',
  "' OR 1=1 --",
  '" or ""="',
  "1' UNION SELECT username, password FROM users --",
  "1; DROP TABLE users; --",
  "admin'/*",
  "' AND SLEEP(5)#",
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2fetc%2fshadow',
  '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
  '&#60;script&#62;alert(1)&#60;/script&#62;',
  '<div style="background:url(javascript:alert(1))">',
  '<b>bold</b> <i>it</i> <p class="x">para</p>',
  "it's a 'quoted' \"string\"",
  'file:///etc/hosts',
];
const FILLER = ['id', 'name', 'value', 'search', 'q', 'redirect', 'next', 'user', 'comment', 'text'];

/** Exactly `bytes` bytes (ASCII) of attack-dense text: ~25-30 payload fragments per KB. */
export function attackText(bytes, seed = 0xa77ac) {
  const rand = prng(seed);
  let out = '';
  while (out.length < bytes) {
    const f = FILLER[Math.floor(rand() * FILLER.length)];
    out += `${f}=${ATTACKS[Math.floor(rand() * ATTACKS.length)]} `;
  }
  return out.slice(0, bytes);
}

// 4. Adversarial families for the linear-time probe. make(n) returns exactly n UTF-16 units.
const rep = (unit, n) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
export const FAMILIES = [
  { name: 'a', desc: "'a' repeated", make: (n) => rep('a', n) },
  { name: '{{{{', desc: "'{' repeated", make: (n) => rep('{', n) },
  { name: '${${', desc: "'${' repeated", make: (n) => rep('${', n) },
  { name: '....', desc: "'.' repeated", make: (n) => rep('.', n) },
  { name: 'ws;', desc: 'one whitespace run (space, tab, CR, LF) ending in ;', make: (n) => rep(' \t \r\n ', n - 1) + ';' },
  { name: '<<<<', desc: "'<' repeated, no '>'", make: (n) => rep('<', n) },
  { name: "''''", desc: "unterminated single quotes", make: (n) => rep("'", n) },
  { name: '"a"a', desc: 'unterminated double quotes: "a repeated', make: (n) => rep('"a', n) },
  { name: '/*/*', desc: "unterminated SQL/CSS comments: '/*' repeated", make: (n) => rep('/*', n) },
  { name: '<!--', desc: "unterminated HTML comments: '<!--' repeated", make: (n) => rep('<!--', n) },
  { name: '%2525', desc: "'%25' nesting: %252525... (one more URL-decoding layer per 2 chars)", make: (n) => '%' + rep('25', n - 1) },
  { name: '&#&#', desc: "'&#' repeated (unterminated char refs)", make: (n) => rep('&#', n) },
  { name: '<a ', desc: "'<a ' repeated (unclosed tags)", make: (n) => rep('<a ', n) },
  { name: '../', desc: "'../' repeated", make: (n) => rep('../', n) },
  { name: 'or 1=', desc: "'or 1=' repeated", make: (n) => rep('or 1=', n) },
  { name: '((((', desc: "'(' repeated", make: (n) => rep('(', n) },
  { name: '<style>', desc: "'<style>' repeated (style elements never closed)", make: (n) => rep('<style>', n) },
  { name: '0x2f', desc: "'..0x2f' repeated (hex-literal separators: the path view)", make: (n) => rep('..0x2f', n) },
  { name: 'ab1=', desc: "'a_b1=' repeated (SQL anchors inside word runs)", make: (n) => rep('a_b1=', n) },
  { name: '{{7*', desc: "'{{7*' repeated (template openers, no closer)", make: (n) => rep('{{7*', n) },
  { name: '{{}}', desc: "'{{1}}' repeated (many short template expressions)", make: (n) => rep('{{1}}', n) },
  { name: '____', desc: "'_' repeated (dunder search)", make: (n) => rep('_', n) },
  { name: '<!ENT', desc: `'<!ENTITY "' repeated (declarations with unterminated quotes)`, make: (n) => rep('<!ENTITY "', n) },
  { name: '<!DOC', desc: "'<!DOCTYPE [' repeated (internal subsets never closed)", make: (n) => rep('<!DOCTYPE [', n) },
  { name: ';cat', desc: "';cat' repeated (separators before command words, no argument)", make: (n) => rep(';cat', n) },
  { name: '````', desc: "'`' repeated (backtick runs and fences)", make: (n) => rep('`', n) },
  { name: '$($(', desc: "'$(' repeated (unclosed substitutions)", make: (n) => rep('$(', n) },
  { name: 'nl-ls', desc: 'a line break and ls, repeated (line separators before command words)', make: (n) => rep('\nls', n) },
  { name: 'url:', desc: "' http://e.co/?a:b' repeated (URLs with colons: the bindings' URL check)", make: (n) => rep(' http://e.co/?a:b', n) },
  // walks that once re-read the rest of the value from every anchor (quadratic until 2026-11-21)
  { name: "'+a/*", desc: "a quote, an operator, a word and an unclosed comment, repeated (the JavaScript breakout's gap)", make: (n) => rep("'+a/*", n) },
  { name: '/*\'+a', desc: "'/*'+a/**/ ' repeated (quotes inside a chain of comments)", make: (n) => rep("/*'+a/**/ ", n) },
  { name: 'x;--', desc: "'x;--' repeated (';' inside one line comment: SQL's stacked-query look)", make: (n) => rep('x;--', n) },
  { name: 'nl#;', desc: "a line break, '#' and ';' repeated (';' inside each of a chain of line comments)", make: (n) => rep('\n#;', n) },
  { name: '/*from', desc: "'/*from/**/ ' repeated (SQL phrase words inside a chain of comments)", make: (n) => rep('/*from/**/ ', n) },
  { name: 'urlrun', desc: "'http://a/' repeated (URLs with no white space between them: the bindings' SSRF check at every ':')", make: (n) => rep('http://a/', n) },
  { name: '{"a":', desc: `'{"a":' repeated (an unterminated JSON value: the bindings' JSON-key check)`, make: (n) => rep('{"a":', n) },
  // dense short tokens (2026-11-21): every unit pair opens a detector's look
  { name: ';x', desc: "';x' repeated (a separator before every one-letter word: the command and stacked-query looks)", make: (n) => rep(';x', n) },
  { name: '=1', desc: "'=1' repeated (a comparison at every other unit: SQL's constant-comparison windows)", make: (n) => rep('=1', n) },
];

// "One repeated character", for every character: each printable ASCII character, tab, CR, LF and
// four non-ASCII ones (a letter with an accent, NBSP, an ideographic space, a zero-width space),
// probed at 1 MB only (bench/run.mjs section 3b).
const SWEEP_CHARS = [...Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)), '\t', '\r', '\n', '\u00e9', '\u00a0', '\u3000', '\u200b'];
export const CHAR_FAMILIES = SWEEP_CHARS.map((ch) => ({
  name: `char ${JSON.stringify(ch)}`,
  desc: `${JSON.stringify(ch)} repeated`,
  make: (n) => ch.repeat(n),
}));
export const BENIGN_FAMILY = { name: 'benign', desc: 'benign prose (reference)', make: (n) => benignText(n) };

export const PROBE_SIZES = [1_000, 10_000, 100_000, 1_000_000];
