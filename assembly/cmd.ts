// Command injection, judged by shell structure: a separator (; & | && || or a line break), then
// a command word (a rule param, or the last segment of a path such as /usr/bin/id), then
// something only a shell reads: an option, a path, a variable, a redirection, a quote, a
// number, another separator. Words of prose ("dog; cat", "R&D", "copy & paste") and markdown
// table cells ("| id |") pass. Command substitution ($(cmd, `cmd`), $IFS, brace expansion
// ({cat,/etc/passwd}) and the shellshock function prefix are reported on their own.
// The sanitizer (SPEC) strips ; & | ` $( ${ >> << and C0 control characters wherever they are.
// Linear: every separator and substitution start is read once. The look past a start reads the
// white space and the path after it, which end at the next start: no unit is read from two starts.

import { at, lower, isAlpha, isAlnum, isDigit, find1, find4, findP, splat16, P_CMD, P_DEC } from './text';
import { K_SHELL_COMMAND, K_SHELL_RARE, K_SHELL_SUBST, K_SHELL_SWITCH, firstRule, enabledRule, ruleWithWord, kindWordFilter, filterMayHave, filterPairMayHave } from './rules';
import { emit } from './findings';
import { stripMode, addSpan } from './spans';
import { C_SEMI, C_AMP, C_PIPE, C_BQ, C_DOLLAR, C_LBRACE, C_SPACE, C_CTRL, C_NUL, C_LT, C_GT, C_BSLASH, C_COLON, C_PCT, C_SLASH, plusIsSpaceIn } from './classes';

let txt: usize = 0;
let len = 0;
let plusSpace = false;

const MAX_WORD = 32; // command names are short; a longer run is not one

@inline function gap(c: u32): bool {
  return c == 32 || c == 9 || (c == 43 && plusSpace);
}

/** A space, a tab or '+' (a form-encoded space, even in a value that also holds spaces): skipped before a command. */
@inline function blank(c: u32): bool {
  return c == 32 || c == 9 || c == 43;
}

@inline function isQuote(c: u32): bool {
  return c == 39 || c == 34;
}


@inline function wordChar(c: u32): bool {
  return isAlnum(c) || c == 95 || c == 45 || c == 46;
}

/**
 * The command at i (after a separator or substitution start): white space, quotes and a path
 * are skipped; the word is [cmdS, cmdE). False when no word of at most MAX_WORD characters is there.
 */
let cmdS = 0;
let cmdE = 0;
function commandAt(i: i32): bool {
  const t = txt; // (locals: the loops below read them at every unit)
  const n = len;
  const i0 = i;
  // white space, quotes and '+' (a form-encoded space, even in a value that also holds spaces),
  // however many: the shell skips them all ("; " + 100 spaces + "cat" runs cat)
  while (i < n) {
    const c = at(t, i);
    // (and a backslash before a letter: the shell drops it, "\\cat" runs cat)
    if (!(blank(c) || isQuote(c) || (c == 92 && i + 1 < n && isAlpha(at(t, i + 1))))) break;
    i++;
  }
  // a path: its last segment is the command (/usr/bin/id, c:\windows\system32\cmd.exe is not
  // judged), however long (//////bin/cat is /bin/cat)
  let s = i;
  let k = i;
  while (k < n) {
    const c = at(t, k);
    if (c == 47) { s = k + 1; k++; continue; }
    if (c < 128 && load<u8>(WORD_OR_QUOTE + c) != 0) { k++; continue; }
    break;
  }
  // an absolute path that stops at '?' or '*': globPathAt may judge it
  globAt = k < n && (at(t, k) == 63 || at(t, k) == 42) && at(t, i) == 47 ? i : -1;
  // the word: letters, digits, '_', '-', '.', quotes inside it dropped by the shell (c'a't);
  // every unit of [s, k) is one of those (the path loop passed only them after the last '/')
  let e = s;
  let letters = 0;
  quoted = false;
  while (e < k && e - s < MAX_WORD + 8) {
    if (isQuote(at(t, e))) quoted = true;
    else letters++;
    e++;
  }
  // a trailing quote closes the value's own string, it is not part of the word
  while (e > s && isQuote(at(t, e - 1))) e--;
  if (letters == 0 || letters > MAX_WORD || !isAlpha(at(t, at(t, s) == 92 && s + 1 < e ? s + 1 : s))) return false;
  cmdS = s;
  cmdE = e;
  pathAt = i;
  absolute = at(t, i) == 47; // the command came as an absolute path (/bin/ls)
  glued = i == i0 || (i == i0 + 1 && at(t, i0) == 92); // nothing (or a dropped backslash) between the separator and the command (;id, ;\\id)
  return true;
}

/**
 * commandAt(i) may be true: the unit at i is one it skips or reads (white space, a quote, '\\',
 * '/', a word unit). One look, without a call ("$($($(...": every '$(' asked commandAt).
 */
@inline function mayCommandAt(i: i32): bool {
  if (i >= len) return false;
  const c = at(txt, i);
  return c < 128 && (load<u8>(WORD_OR_QUOTE + c) != 0 || blank(c) || c == 47 || c == 92);
}

// Units of a command word (wordChar: 1) or a quote inside it (isQuote: 2), by table.
const WORD_OR_QUOTE = memory.data(128);

/** Fills the command detector's table (init). */
export function initCmdTables(): void {
  for (let c: u32 = 0; c < 128; c++) store<u8>(WORD_OR_QUOTE + c, wordChar(c) ? 1 : isQuote(c) ? 2 : 0);
}
let quoted = false; // the word holds quotes (c'a't)
let globAt = -1; // set by commandAt: where an absolute path that stops at '?' or '*' starts, or -1
let glued = false;
let hasBacktick = false;
let absolute = false;
let pathAt = 0; // where the command's path (or the word, without one) starts

/**
 * After a line break, the path commandAt read is a line of base64 (a PEM body, a MIME part, an
 * image pasted into a field), not a program: every unit of the path and the command word is in
 * the base64 alphabet (no quotes, dots or dashes), the line ends right after the word (or after
 * more of the alphabet that starts with '+', or after the padding '=' or '=='), and either a directory segment of the path is one no system has (20
 * units or more holding an upper-case letter, a small letter and a digit:
 * "a/uNLPg5Kml5yItjb722Nl9y.../wc") or the path is absolute and the padding is glued to the word
 * ("/Ls=": the shell's word is "Ls=", no program). Paths after ';' '&' '|' are never refused, nor
 * ones through real directories ("\nbin/sh", "\n/usr/bin/id", "\npublic/../../bin/sh"). Reads
 * the path once (commandAt has just walked it).
 */
function base64Line(): bool {
  if (cmdS == pathAt) return false;
  let e = cmdE;
  // (the line may go on with '+' and more of the alphabet: "/TR+2", "/Dd+upx0q43", a '+' the
  // command look reads as a form-encoded space)
  if (e < len && at(txt, e) == 43) {
    let k = e + 1;
    while (k < len && k - e < 128) {
      const c = at(txt, k);
      if (!(isAlnum(c) || c == 43 || c == 47)) break;
      k++;
    }
    if (k < len && at(txt, k) != 10 && at(txt, k) != 13 && at(txt, k) != 61) return false;
    e = k;
  }
  const eqFrom = e;
  while (e < len && e < eqFrom + 2 && at(txt, e) == 61) e++;
  const padded = e > eqFrom;
  if (e < len && at(txt, e) != 10 && at(txt, e) != 13) return false;
  let segStart = pathAt;
  let upper = false, small = false, digit = false, strange = false;
  for (let k = pathAt; k < cmdE; k++) {
    const c = at(txt, k);
    if (c == 47) {
      if (k < cmdS && k - segStart >= 20 && upper && small && digit) strange = true;
      segStart = k + 1;
      upper = false;
      small = false;
      digit = false;
      continue;
    }
    if (c - 65 < 26) upper = true;
    else if (c - 97 < 26) small = true;
    else if (c - 48 < 10) digit = true;
    else return false; // '.', '-', '_', a quote: not base64
  }
  return strange || (absolute && padded && eqFrom == cmdE);
}

/**
 * An absolute path at j that the shell expands with '?' or '*' into a program's path
 * ("/???/??t", "/usr/bin/wh?ami", "/bin/ca*"): two or more segments of letters, digits, '.', '_',
 * '-', '?' and '*', a '?' or '*' in a directory segment, or in the last one before a letter or
 * digit, or a '*' ending it; no segment empty or all '*' (an empty SQL comment between two words), and not a
 * URL's query ("/api/users?id=1", "/docs/faq?"). Where the path ends, or -1. Reads at most 64 units.
 */
function globPathAt(j: i32): i32 {
  if (j >= len || at(txt, j) != 47) return -1;
  const stop = j + 64 < len ? j + 64 : len;
  let k = j;
  let segs = 0;
  let glob = false;
  let segGlob = false; // the current segment holds '?' or '*'
  let stars = 0; // the current segment's units: all '*' is an empty SQL comment, not a path
  let units = 0;
  while (k < stop) {
    const c = at(txt, k);
    if (c == 47) {
      if (k > j && (units == 0 || stars == units)) return -1;
      if (segGlob) glob = true;
      segGlob = false;
      stars = 0;
      units = 0;
      segs++;
      k++;
      continue;
    }
    units++;
    if (c == 42) stars++;
    if (c == 63 || c == 42) {
      const d: u32 = k + 1 < len ? at(txt, k + 1) : 0;
      if (c == 42 || isAlnum(d) || d == 63 || d == 42 || d == 47) segGlob = true;
      k++;
      continue;
    }
    if (isAlnum(c) || c == 46 || c == 95 || c == 45) { k++; continue; }
    break;
  }
  if (segGlob) glob = true;
  // (a '?' that ends the path, as a question mark ends a URL, globs when the path is a program
  // in a system program directory: "/bin/ca? /et?/passwd"; not a question, "; /usr/local?")
  else if (k > j && at(txt, k - 1) == 63 && units > 1 && programDirAt(j + 1)) glob = true;
  if (!glob || segs < 2 || units == 0 || stars == units || (k < len && at(txt, k) == 61)) return -1;
  return k;
}

/** The path segment at j is bin/ or sbin/ (any case: macOS's file system ignores it). */
function programDirAt(j: i32): bool {
  if (j + 4 >= len) return false;
  const a = lower(at(txt, j)), b = lower(at(txt, j + 1)), c = lower(at(txt, j + 2)), d = lower(at(txt, j + 3));
  if (d == 47) return a == 98 && b == 105 && c == 110;
  return a == 115 && b == 98 && c == 105 && d == 110 && at(txt, j + 4) == 47;
}

/** A unit that may drop out of a command word in a shell: '\\' '^' '$' '`' (obfuscatedAt reads what follows). */
@inline function dropStart(c: u32): bool {
  return c == 92 || c == 94 || c == 36 || c == 96;
}

/**
 * The word at j, with the units a shell or cmd.exe drops taken out, names a command of either
 * kind: a backslash before a letter or digit (c\\at), '^' before one (w^h^o^a^m^i in cmd.exe),
 * "$@" and "$*" (empty outside a function), "${name}" (an unset variable: c${u}at), "$()" and
 * "``" (empty substitutions), and quotes (c''at), with at least one of them other than a quote
 * (quoted words are commandAt's). No prose writes a command's name that way, so the word counts
 * whatever follows it. The rule (cmdS, cmdE: the span read), or -1. Reads at most 64 units.
 */
function obfuscatedAt(j: i32, fRare: usize, fCmd: usize): i32 {
  const stop = j + 64 < len ? j + 64 : len;
  let k = j;
  let n = 0;
  let drops = 0;
  while (k < stop && n < MAX_WORD) {
    const c = at(txt, k);
    if (isAlnum(c) || c == 95 || c == 45 || c == 46) {
      store<u16>(WORD + (<usize>n << 1), <u16>c);
      n++;
      k++;
      continue;
    }
    if (isQuote(c)) { k++; continue; }
    const d: u32 = k + 1 < stop ? at(txt, k + 1) : 0;
    if ((c == 92 || c == 94) && isAlnum(d)) { drops++; k++; continue; }
    if (c == 96 && d == 96) { drops++; k += 2; continue; }
    if (c == 36) {
      // (and a positional parameter, empty outside a script: "i$9d")
      if (d == 64 || d == 42 || isDigit(d)) { drops++; k += 2; continue; }
      if (d == 40 && k + 2 < stop && at(txt, k + 2) == 41) { drops++; k += 3; continue; }
      if (d == 123) {
        let q = k + 2;
        while (q < stop && q - k < 34 && (isAlnum(at(txt, q)) || at(txt, q) == 95)) q++;
        if (q > k + 2 && q < stop && at(txt, q) == 125) { drops++; k = q + 1; continue; }
      }
    }
    break;
  }
  if (drops == 0 || n == 0 || !isAlpha(<u32>load<u16>(WORD)) || !filterPairMayHave(fRare, fCmd, WORD, 0, n)) return -1;
  let r = ruleWithWord(K_SHELL_RARE, WORD, 0, n);
  if (r < 0) r = ruleWithWord(K_SHELL_COMMAND, WORD, 0, n);
  if (r < 0) return -1;
  cmdS = j;
  cmdE = k;
  return r;
}

/** The command word [cmdS, cmdE) names a rule of `kind`, quotes inside it ignored; the rule, or -1. */
function commandRule(kind: i32): i32 {
  if (!quoted) return ruleWithWord(kind, txt, cmdS, cmdE - cmdS);
  // copy the word without quotes into a small buffer of units for the lookup
  let n = 0;
  for (let k = cmdS; k < cmdE && n < MAX_WORD; k++) {
    const c = at(txt, k);
    if (isQuote(c)) continue;
    store<u16>(WORD + (<usize>n << 1), <u16>c);
    n++;
  }
  return ruleWithWord(kind, WORD, 0, n);
}
const WORD = memory.data(MAX_WORD * 2 + 16);

// Listed commands that are also words, abbreviations or tool names prose writes with a quote or
// a number after them ("Hi; who \"cares\"", "Round 2; last 10", "web01; ip 10.0.0.3", "Admin
// panel | git 2.40"): they count only after an injection's lead (leadOnlyCounts), never for
// what follows them, and are no brace expansion ("{last,first}").
const LEAD_ONLY: string[] = ['pwd', 'uptime', 'who', 'which', 'last', 'ip', 'ss', 'git', 'docker', 'kubectl', 'gdb', 'man', 'init', 'command', 'gci', 'ver', 'route', 'calc'];

/** The command word [cmdS, cmdE) is one of LEAD_ONLY, quotes inside it dropped ("wh''o": a quoted word a dropped unit may cut goes on to obfuscatedAt). */
function leadOnly(): bool {
  return commandIn(LEAD_ONLY);
}

/** The command word [cmdS, cmdE), quotes inside it dropped, is one of list (lower case), letters compared case-insensitively. */
function commandIn(list: string[]): bool {
  const n = cmdE - cmdS;
  if (n > 16) return false;
  const c0 = lower(at(txt, cmdS));
  for (let w = 0; w < list.length; w++) {
    const s = list[w];
    // (a quick no: the length, when the word holds no quote, and the first letter)
    if ((!quoted && s.length != n) || (!isQuote(c0) && <u32>s.charCodeAt(0) != c0)) continue;
    let j = 0;
    let k = cmdS;
    for (; k < cmdE; k++) {
      const c = at(txt, k);
      if (isQuote(c)) continue;
      if (j >= s.length || lower(c) != <u32>s.charCodeAt(j)) break;
      j++;
    }
    if (k == cmdE && j == s.length) return true;
  }
  return false;
}

// Commands an injection runs bare to see that it ran, and that end the value then ("& id",
// "google.com; id"): what counts after a lead that prose writes too (a single '&' at the start,
// a host name).
const PROBES: string[] = ['id', 'pwd', 'ls', 'ps', 'dir', 'set', 'env', 'ver', 'calc', 'hostname', 'uptime', 'who', 'uname', 'whoami', 'ifconfig', 'ipconfig', 'printenv', 'netstat', 'tasklist', 'systeminfo'];
// The probes that are no word of English or SQL ("update||set", "Ready&&set"): after a word or a name.
const WORDLESS_PROBES: string[] = ['id', 'pwd', 'ls', 'ps', 'hostname', 'uptime', 'uname', 'whoami', 'ifconfig', 'ipconfig', 'printenv', 'netstat', 'tasklist', 'systeminfo'];
// Commands that print their words: an injection's proof that it ran ("| echo hacked"), after a
// single '|' or '&' that starts the value whatever follows.
const ECHOES: string[] = ['echo', 'printf'];
// Commands that print a file: with a file name after them and nothing else ("example.com; cat
// flag.txt"); after a plain word only those that are no English word ("x; cat index.php", not
// "Docs | more README.md", "Note & type notes.txt").
const READERS: string[] = ['cat', 'tac', 'nl', 'head', 'tail', 'more', 'less', 'type', 'strings', 'base64', 'xxd', 'od'];
const WORD_READERS: string[] = ['cat', 'tac', 'nl', 'base64', 'xxd'];

/**
 * After the command word (at cmdE) comes what such a lead's injection ends with: a WORDLESS_PROBES command
 * and the value's end, or a READERS command and one file name (a word with a dot inside it or
 * before it: "flag.txt", ".env", "index.php") and the value's end; white space, quotes and a
 * shell comment that ends the value aside (after a plain word, anyLead, only WORD_READERS). Reads
 * at most one word after the command.
 */
function probeEnds(anyLead: bool): bool {
  let k = cmdE;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
  if (endsAt(k)) return commandIn(WORDLESS_PROBES);
  if (k == cmdE || !commandIn(anyLead ? WORD_READERS : READERS)) return false;
  const s = k;
  let dot = false;
  while (k < len && k - s < 64) {
    const c = at(txt, k);
    if (c == 46) { if (k + 1 < len && isAlnum(at(txt, k + 1))) dot = true; k++; continue; }
    if (isAlnum(c) || c == 95 || c == 45) { k++; continue; }
    break;
  }
  if (!dot) return false;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
  return endsAt(k);
}

/**
 * The command line ends at k: the value ends, or a shell comment or a separator that only white
 * space, quotes and line breaks follow ("...; id #", "...; id;", "... flag.txt &").
 */
function endsAt(k: i32): bool {
  if (k >= len) return true;
  const c = at(txt, k);
  if (c == 35) return commentEnds(k + 1);
  if (!(c == 59 || c == 38 || c == 124)) return false;
  return commentEnds(k + 1 < len && at(txt, k + 1) == c ? k + 2 : k + 1);
}

/**
 * The value before e, white space and quotes aside, is a host name a ping or lookup form takes:
 * two or more labels of letters, digits and '-' joined by '.', the last of two or more letters
 * ("google.com", "attacker.example.co.uk"), in at most HOST_LEAD_MAX units. Or, when any is
 * true, one word of letters, digits, '_', '-' and '.' ("x"). Reads at most HOST_LEAD_MAX units back.
 */
function nameBefore(e: i32, any: bool): bool {
  if (e > HOST_LEAD_MAX) return false;
  let k = e;
  let labels = 1;
  let last = 0; // letters of the last label, or -1 when it holds anything else
  while (k > 0) {
    const c = at(txt, k - 1);
    if (c == 46) {
      if (k == e || at(txt, k) == 46) return false;
      labels++;
      k--;
      continue;
    }
    if (!(isAlnum(c) || c == 45 || c == 95)) break;
    if (labels == 1) last = isAlpha(c) && last >= 0 ? last + 1 : -1;
    k--;
  }
  if (k == e) return false;
  const name = labels >= 2 && last >= 2 && at(txt, k) != 46 && at(txt, k) != 45;
  if (!(name || any)) return false;
  while (k > 0 && (blank(at(txt, k - 1)) || isQuote(at(txt, k - 1)))) k--;
  return k == 0;
}

/**
 * A LEAD_ONLY command after the separator at sepAt counts: an option, a path, a variable or a
 * redirection follows it ("x;pwd -P", "x; ip -4 a", "x;git >/tmp/o"; not "man -- what a day"), or
 * nothing but an injection's lead stands before the separator (strongBefore: "; pwd", ";which
 * python", "127.0.0.1 | who"), or the word is glued to it at the value's end after one
 * (lastCommand: "'|pwd").
 */
function leadOnlyCounts(sep: u32, sepAt: i32): bool {
  let a = cmdE;
  while (a < len && blank(at(txt, a))) a++;
  if (a > cmdE && a + 1 < len) {
    const c = at(txt, a);
    const d = at(txt, a + 1);
    if (c == 45 && (isAlnum(d) || (d == 45 && a + 2 < len && isAlnum(at(txt, a + 2))))) return true;
    if ((c == 47 && (isAlnum(d) || d == 46 || d == 95)) || (c == 36 && (isAlpha(d) || d == 123 || d == 40)) || c == 62 || c == 60) return true;
  }
  if (strongBefore(sepAt, sep)) return true;
  if (!glued) return false;
  let k = cmdE;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
  // (not after a number alone: "152|uptime" is a row of pipe-separated data; "152|id" counts,
  // as a probe after a number always has)
  return k >= len && !digitsBefore(sepAt) && lastCommand(sepAt, sep);
}

/** Only digits (white space and quotes aside) stand before `sepAt` from the value's start. */
function digitsBefore(sepAt: i32): bool {
  let digits = false;
  for (let i = 0; i < sepAt; i++) {
    const c = at(txt, i);
    if (isDigit(c)) digits = true;
    else if (!(blank(c) || isQuote(c))) return false;
  }
  return digits;
}

/** After the command word: something only a shell reads (not the end of the value, not a word of prose). */
function shellArgument(e: i32, sep: u32, sepAt: i32): bool {
  let i = e;
  let spaced = false;
  while (i < len && blank(at(txt, i))) { i++; spaced = true; }
  // the value's end; a shell comment that ends the value (";id #", not a hashtag: "; more #fun",
  // nor a note: "10.0.0.5|mail # relay"); after ';' '&' '|' that follow a word or a number, a
  // line break that more text follows ("dog & cat\nfish" is a line of a list, "code|zip|tail\n
  // 98990|..." a CSV header; "x;id\n" is no list, "127.0.0.1 | id\nls" no line of one)
  const c0: u32 = i < len ? at(txt, i) : 0;
  if (i >= len || (spaced && c0 == 35 && commentEnds(i + 1)) || (sep != 10 && (c0 == 10 || c0 == 13) && lineGoesOn(i) && wordLead(sepAt))) {
    return glued ? lastCommand(sepAt, sep) : strongBefore(sepAt, sep);
  }
  const c = c0;
  // a markdown table cell: "| id |"
  if (sep == 124 && spaced && c == 124) return false;
  if (c == 45) return i + 1 < len && (isAlnum(at(txt, i + 1)) || at(txt, i + 1) == 45); // -x, --opt
  // another separator, the command glued to both (;id; |id| a);id;'): after a word, only when
  // nothing but white space, quotes or a comment follow that separator, not a column list or a
  // CSV row ("name|email|id|created", "5;start;Dublin", "date|time|type"; a next item that is
  // itself a listed command says nothing: column names are often command words); a list in
  // prose ("our; call; father") only after an injection's lead
  if (c == 124 || c == 38 || c == 59) {
    if (glued && !spaced && (!wordLead(sepAt) || listEnds(i))) return true;
    return strongBefore(sepAt, sep);
  }
  if (c == 47 || c == 92 || c == 126 || c == 36 || c == 62 || c == 60 || c == 96 || isQuote(c) || c == 37) return true;
  // (a dot file that ends the value after an injection's lead: "; more .env", ";cat .env"; not
  // "; more .NET tips")
  if (c == 46) return i + 1 < len && (at(txt, i + 1) == 46 || at(txt, i + 1) == 47 || at(txt, i + 1) == 92 ||
    (isAlpha(at(txt, i + 1)) && valueEndsAfter(wordEnd(i + 1)) && strongBefore(sepAt, sep)));
  if (c == 10 || c == 13) return true;
  if (isDigit(c)) {
    // a number as the argument (sleep 5, ping 127.0.0.1), not the start of a phrase (sleep 8 hours);
    // an address counts as it is, another number only after the value's first separator of its
    // kind ("db01;10.0.0.3;id 7", "a | b | id 7" are lists), and, with white space after the
    // separator, only after an injection's lead ("| sleep 5", "127.0.0.1 & sleep 5"; "ref 7; id 99")
    let k = i;
    let dots = 0;
    while (k < len && (isDigit(at(txt, k)) || at(txt, k) == 46 || at(txt, k) == 58)) {
      if (at(txt, k) == 46) dots++;
      k++;
    }
    if (dots < 3 && sep != 10 && !gluedSeen) {
      if (firstOf(sep) < sepAt && !numberLead()) return false;
    }
    const ne = k;
    while (k < len && blank(at(txt, k))) k++;
    if (k >= len) return true;
    // (not '/': "mail 3464/udp"; not a markdown cell: "| id 42 |", but "|sleep 5 |",
    // "|| sleep 10 ||", "127.0.0.1 | sleep 10 |" and "x' | sleep 5 | x" are no cells)
    const d = at(txt, k);
    if (d == 124 && sep == 124 && !glued && k > ne && !(k + 1 < len && at(txt, k + 1) == 124)) {
      if (!(sepAt + 1 < len && at(txt, sepAt + 1) == 124) && !addressBefore(leadBefore(sepAt), false) && !breakoutBefore(sepAt)) return false;
    }
    // (an address and a port: "nc 10.0.0.1 4444", "telnet 10.0.0.1 25")
    if (dots == 3 && k > ne && isDigit(d)) return true;
    // (a path after the number and a space, after an injection's lead: "; chmod 777 /etc/shadow";
    // not "3464/udp", nor "Relax; sleep 8 /night")
    if (d == 47 && k > ne && k + 1 < len && (isAlnum(at(txt, k + 1)) || at(txt, k + 1) == 46 || at(txt, k + 1) == 95)) return strongBefore(sepAt, sep);
    return d == 59 || d == 38 || d == 124 || d == 45 || d == 62 || d == 60 || d == 35 || d == 96 || d == 10 || d == 13 || isQuote(d);
  }
  // a drive: c:\ or c:/
  if (isAlpha(c) && i + 2 < len && at(txt, i + 1) == 58 && (at(txt, i + 2) == 92 || at(txt, i + 2) == 47)) return true;
  // a plain word, or punctuation prose also writes ("; cat food", "ps aux", "id #"): only where
  // nothing but an injection's lead stands before the separator
  return strongBefore(sepAt, sep);
}

/**
 * From i to the next separator or line break (at most 96 units): white space, then '/', one to
 * twelve letters, then white space, a quote, ':' or the end ("/add", "/c", "/grant:r"): an option
 * of a Windows command. Not "and/or" or a date: the '/' follows white space. Each call reads only the
 * command's own segment (it stops at the next separator), so the calls of one value read each
 * unit at most once.
 */
function windowsSwitchAfter(i: i32): bool {
  const stop = i + 96 < len ? i + 96 : len;
  for (let k = i; k + 1 < stop; k++) {
    const c = at(txt, k);
    if (c == 59 || c == 38 || c == 124 || c == 10 || c == 13) return false;
    if (c != 47 || !blank(at(txt, k - 1))) continue;
    let e = k + 1;
    while (e < len && e - k <= 13 && isAlpha(at(txt, e))) e++;
    const l = e - k - 1;
    if (l < 1 || l > 12) continue;
    // (a value after ':' too: "/active:yes", "/grant:r")
    if (e >= len || blank(at(txt, e)) || isQuote(at(txt, e)) || at(txt, e) == 58) return true;
  }
  return false;
}

// The first ';', '&' and '|' of the value, found when first asked for (-2: not yet)
let firstSemi = -2;
let firstAmp = -2;
let firstBar = -2;

let numberLeadIs = -2; // numberLead's answer (-2: not yet)
let gluedSeen = false; // a listed command glued to an earlier separator of the value ("x;id;sleep 5")

/**
 * The value starts with an address or a number and a separator after it ("1;id;sleep 5",
 * "127.0.0.1;ls;sleep 5"), white space and quotes aside. Read once per value.
 */
function numberLead(): bool {
  if (numberLeadIs == -2) {
    let k = 0;
    while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
    const s = k;
    while (k < len && (isDigit(at(txt, k)) || at(txt, k) == 46 || at(txt, k) == 58)) k++;
    const d = k > s;
    while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
    const c: u32 = k < len ? at(txt, k) : 0;
    numberLeadIs = d && (c == 59 || c == 38 || c == 124) ? 1 : 0;
  }
  return numberLeadIs == 1;
}

// A host, its port and the white space and quotes before it fit in this many units: a separator
// further on is not after a host lead, and costs no look back (every line of "1.2.3.4\nAb..."
// would read an address again).
const HOST_LEAD_MAX = 40;

/**
 * The value before e, white space and quotes aside, is "localhost", a port allowed
 * ("localhost:8080"). Reads at most HOST_LEAD_MAX units back.
 */
function localhostBefore(e: i32): bool {
  if (e > HOST_LEAD_MAX) return false;
  let k = e;
  let p = k;
  while (p > 0 && isDigit(at(txt, p - 1)) && k - p < 5) p--;
  if (p < k && p > 0 && at(txt, p - 1) == 58) k = p - 1;
  if (k < 9) return false;
  const s = k - 9;
  const w = 'localhost';
  for (let j = 0; j < 9; j++) if (lower(at(txt, s + j)) != <u32>w.charCodeAt(j)) return false;
  return leadBefore(s) == 0;
}

/**
 * The value before e, white space and quotes aside, is a host a ping or lookup form takes: a
 * dotted-quad IPv4 address or localhost, a port allowed ("127.0.0.1:80"). What an injection into
 * such a form writes before its separator ("127.0.0.1 | id", "localhost; cat flag.txt"), in at
 * most HOST_LEAD_MAX units from the value's start. Host names are left out: "node.js;java" and
 * "asp.net | vue.js" are lists of skills.
 */
function hostBefore(e: i32): bool {
  return e <= HOST_LEAD_MAX && (addressBefore(e, true) || localhostBefore(e));
}

/** The line break at i follows a host that is the whole value before it (hostBefore), a CR, white space and quotes aside. */
function afterHostLead(i: i32): bool {
  const z = leadBefore(i > 0 && at(txt, i - 1) == 13 ? i - 1 : i);
  return z > 0 && hostBefore(z);
}

/**
 * After the command word ending at e comes a plain word of letters and then the value's end,
 * white space or prose punctuation ("1.2.3.4; host unreachable", "10.0.0.1 | mail relay"), or a
 * note after '#' ("10.0.0.5|mail # relay"): the line reads as a log or inventory line, not as a
 * command with a file or an option. A '#' with no letter or digit after it on its line is no note
 * but a shell comment that cuts off the rest of the line ("127.0.0.1; id #", "... #\n", "... ##").
 * Reads at most the next word, or 64 units after a '#'.
 */
function plainWordAfter(e: i32): bool {
  let k = e;
  while (k < len && blank(at(txt, k))) k++;
  if (k >= len) return false;
  const c = at(txt, k);
  if (c == 35) return noteAfter(k + 1);
  if (!isAlpha(c)) return false;
  while (k < len && isAlpha(at(txt, k))) k++;
  if (k >= len) return true;
  const d = at(txt, k);
  return blank(d) || d == 44 || d == 33 || d == 63 || d == 41;
}

/** After a '#' (at i - 1), a letter or digit before the line's end (at most 64 units read): a note ("# relay", "#5"). */
function noteAfter(i: i32): bool {
  const end = i + 64 < len ? i + 64 : len;
  for (let k = i; k < end; k++) {
    const c = at(txt, k);
    if (c == 10 || c == 13) return false;
    if (isAlnum(c)) return true;
  }
  return false;
}

/** The first unit sep (';', '&' or '|') of the value: one search per value and kind. */
function firstOf(sep: u32): i32 {
  if (sep == 59) { if (firstSemi == -2) firstSemi = find4(txt, 0, len, 59, 59, 59, 59); return firstSemi; }
  if (sep == 38) { if (firstAmp == -2) firstAmp = find4(txt, 0, len, 38, 38, 38, 38); return firstAmp; }
  if (firstBar == -2) firstBar = find4(txt, 0, len, 124, 124, 124, 124);
  return firstBar;
}

/**
 * After a spaced '#' (at i - 1): the value ends there, white space, line breaks and quotes aside
 * ("; id #", "|id # '", "; id #\n"): a shell comment that hides the rest of the command line.
 * Not a note that goes on ("10.0.0.5|mail # relay", "|File # |Date|"). Reads the run of white
 * space and quotes once.
 */
function commentEnds(i: i32): bool {
  let k = i;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)) || at(txt, k) == 10 || at(txt, k) == 13)) k++;
  return k >= len;
}

/**
 * After the line break at i, text goes on ("dog & cat\nfish": a line of a list), not only white
 * space, quotes, line breaks or a comment ("x | id\n", "x & id\n#", "x' && id\n'"). Reads the
 * run of white space once.
 */
function lineGoesOn(i: i32): bool {
  let k = i;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)) || at(txt, k) == 10 || at(txt, k) == 13)) k++;
  return k < len && at(txt, k) != 35;
}

/** A quote, a backtick or ')' stands right before the separator at sepAt, white space aside ("x' | id"). */
function breakoutBefore(sepAt: i32): bool {
  let k = sepAt;
  while (k > 0 && blank(at(txt, k - 1))) k--;
  if (k == 0) return false;
  const b = at(txt, k - 1);
  return isQuote(b) || b == 96 || b == 41;
}

/**
 * The separator at sepAt follows a word or a number ("name|id|", "x;id;", "5;start;Dublin", a line
 * of a CSV text: "937\r\nnet|Seoul"), not the value's start, an address that is the whole value
 * before it, a quote, ')' or a line break.
 */
function wordLead(sepAt: i32): bool {
  let k = sepAt;
  while (k > 0 && (blank(at(txt, k - 1)) || (at(txt, sepAt) == 10 && at(txt, k - 1) == 13))) k--;
  if (k == 0) return false;
  const b = at(txt, k - 1);
  if (!(isAlnum(b) || b == 95 || b == 45 || b == 46)) return false;
  return !addressBefore(k, true);
}

/**
 * After the separator at i that follows a command (a double '&&' '||' as one): the value ends, or
 * only quotes, a comment, a line break or another separator come next, white space aside: the
 * separator ends an injected command, not an item of a list.
 */
function listEnds(i: i32): bool {
  const s = at(txt, i);
  let k = i + 1;
  if (k < len && at(txt, k) == s && s != 59) k++;
  while (k < len && blank(at(txt, k))) k++;
  if (k >= len) return true;
  const d = at(txt, k);
  return isQuote(d) || d == 35 || d == 59 || d == 38 || d == 124 || d == 10 || d == 13 || d == 96;
}

/**
 * Before the separator at sepAt (';', '&&' or '||') stands nothing but white space and quotes from
 * the value's start, or, before '&&' and '||', a dotted-quad address (a port allowed) that is the
 * whole value before it ("127.0.0.1 && id"): then a listed command right after it counts whatever
 * follows it ("; ps aux"). Left out: a line break (a text that starts with an empty line may go on
 * with "type", "more" or "find" as prose), and a single '&' ("& more") or '|' (a markdown table row:
 * "| file size |") unless the value ends with ';' or '&' ("|getent hosts x.example.&").
 */
function strongBefore(sepAt: i32, sep: u32): bool {
  const double = sep != 10 && sepAt + 1 < len && at(txt, sepAt + 1) == sep;
  // the command is the first thing after the separator (white space, quotes and a path aside)
  let w = sepAt + (double ? 2 : 1);
  while (w < len && (blank(at(txt, w)) || isQuote(at(txt, w)) || at(txt, w) == 92)) w++;
  if (w < (wrapAt >= 0 ? wrapAt : cmdS) && at(txt, w) != 47) return false;
  // a host that is the whole value before the separator, any separator ("127.0.0.1 | id",
  // "localhost; cat flag.txt", "10.0.0.1\ncat config.php"), unless a plain word or a note follows
  // the command
  const z = leadBefore(sep == 10 && sepAt > 0 && at(txt, sepAt - 1) == 13 ? sepAt - 1 : sepAt);
  if (z > 0 && hostBefore(z) && (!plainWordAfter(cmdE) || adminVerbAfter())) return true;
  // a line break that starts the value, then a probe or a file read that ends the line ("\npwd #",
  // "%0acat flag.txt"; not "\nmore notes.txt", "\nid card")
  if (sep == 10) return z == 0 && probeEnds(true);
  // a host name, or a file read after one word ("google.com; id", "example.com | id",
  // "x; cat index.php"; not "node.js; java", "asp.net | vue.js", "dog; cat")
  if (z > 0 && z <= HOST_LEAD_MAX && (nameBefore(z, false) ? probeEnds(false) : !commandIn(WORDLESS_PROBES) && probeEnds(true) && nameBefore(z, true))) return true;
  // a single '|' or '&' that the value starts with, no other of its kind after the command (no
  // markdown row: "| id | name |"; not "& this & that") and no plain word after it ("| id",
  // "& cat flag.txt"; not "| more info below", "| net profit", "& more to come"), a bare command
  // after '&' only when it is a probe ("& id", "& dir"; not "& more"), or a Windows tool and its
  // verb ("| net user", "& reg query HKLM\SAM")
  if ((sep == 124 || sep == 38) && !double && z == 0 && !(cmdE < len && at(txt, cmdE) == 61) && find1(txt, cmdE, len, sep) >= len &&
    ((!plainWordAfter(cmdE) && (sep == 124 || !valueEndsAfter(cmdE) || commandIn(PROBES))) || adminVerbAfter() || commandIn(ECHOES))) return true;
  if ((sep == 38 || sep == 124) && !double && (!terminated() || (cmdE < len && at(txt, cmdE) == 61))) return false;
  return z == 0 || (double && addressBefore(z, true));
}

// Windows tools that prose names too ("net profit", "sc" for a state, "route"), each with a verb that
// makes the word the tool: "net user", "reg query", "sc query", "route print" (one blank in each entry).
const ADMIN_VERBS: string[] = [
  'net user', 'net users', 'net localgroup', 'net group', 'net view', 'net share', 'net stop', 'net start', 'net use',
  'net session', 'net accounts', 'net config',
  'reg query', 'reg add', 'reg save', 'reg delete', 'reg export', 'reg import', 'reg load', 'reg copy',
  'sc query', 'sc queryex', 'sc qc', 'sc create', 'sc config', 'sc start', 'sc stop', 'sc delete', 'sc sdset',
  'route print', 'route add', 'route delete'
];

/** The letters from s are w's units [from, to), compared case-insensitively, and a non-letter (or the end) follows. */
function wordAt(s: i32, w: string, from: i32, to: i32): bool {
  const n = to - from;
  if (s + n > len || (s + n < len && isAlnum(at(txt, s + n)))) return false;
  for (let j = 0; j < n; j++) if (lower(at(txt, s + j)) != <u32>w.charCodeAt(from + j)) return false;
  return true;
}

/**
 * The command word [cmdS, cmdE) is a Windows tool of ADMIN_VERBS and one of its verbs follows
 * after white space, then the value's end or white space ("| net user", "& net localgroup
 * administrators"; not "| net profit", "| net users' growth"). Reads at most two short words.
 */
function adminVerbAfter(): bool {
  const n = cmdE - cmdS;
  if (n > 5) return false;
  // (a switch on the line: the windows-switch rule's, "& net user x P@ss1 /add")
  if (enabledRule(K_SHELL_SWITCH) >= 0 && windowsSwitchAfter(cmdE)) return false;
  let k = cmdE;
  while (k < len && blank(at(txt, k))) k++;
  if (k == cmdE) return false;
  for (let v = 0; v < ADMIN_VERBS.length; v++) {
    const w = ADMIN_VERBS[v];
    const sp = w.indexOf(' ');
    if (sp != n || !wordAt(cmdS, w, 0, sp)) continue;
    const e = k + w.length - sp - 1;
    if (wordAt(k, w, sp + 1, w.length) && (e >= len || blank(at(txt, e)))) return fewWordsAfter(e);
  }
  return false;
}

/**
 * From i to the value's end (at most 64 units read), at most one plain word of letters ("user
 * administrator", "stop windefend"), other tokens aside ("query HKLM\SAM", "user x P@ss1"): no
 * phrase of prose goes on ("| net view of the market").
 */
function fewWordsAfter(i: i32): bool {
  const stop = i + 64 < len ? i + 64 : len;
  let words = 0;
  let k = i;
  while (k < stop) {
    while (k < stop && blank(at(txt, k))) k++;
    if (k >= stop) break;
    let plain = true;
    while (k < stop && !blank(at(txt, k))) {
      if (!isAlpha(at(txt, k))) plain = false;
      k++;
    }
    if (plain && ++words > 1) return false;
  }
  return true;
}

let terminatedIs = -2; // terminated's answer (-2: not yet)

/**
 * The value ends with ';' or '&', white space and quotes aside: a command line an injection closes
 * ("|getent hosts x.example.&"), not a markdown row ("| file size | 3 MB |") or "& more". Read once
 * per value.
 */
function terminated(): bool {
  if (terminatedIs == -2) {
    let k = len;
    while (k > 0 && (blank(at(txt, k - 1)) || isQuote(at(txt, k - 1)) || at(txt, k - 1) == 10 || at(txt, k - 1) == 13)) k--;
    terminatedIs = k > 0 && (at(txt, k - 1) == 59 || at(txt, k - 1) == 38) ? 1 : 0;
  }
  return terminatedIs == 1;
}

/** Where the file-name units (letters, digits, '_', '-', '.') from i end, at most 64 read. */
function wordEnd(i: i32): i32 {
  let k = i;
  while (k < len && k - i < 64 && (isAlnum(at(txt, k)) || at(txt, k) == 95 || at(txt, k) == 45 || at(txt, k) == 46)) k++;
  return k;
}

/** From i on only white space and quotes. */
function valueEndsAfter(i: i32): bool {
  let k = i;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
  return k >= len;
}

/** Where the text before b ends, the white space and quotes right before b aside. */
function leadBefore(b: i32): i32 {
  let k = b;
  while (k > 0 && (blank(at(txt, k - 1)) || isQuote(at(txt, k - 1)))) k--;
  return k;
}

/**
 * A listed command glued to the separator at sepAt ends the value, and what comes before the
 * separator is what an injection leaves there: nothing but white space or quotes from the value's
 * start (";id", "'|id"), an IPv4 address (with a port) or a value that is one number ("127.0.0.1|id",
 * "1;id"), and, for ';' '|' '&' (not a line break), a quote or backtick that leaves the value's
 * own quotes of that kind unbalanced ("x';id"), a ')' that closes more than was opened, or
 * '&&' '||' after anything but a plain word. Lists, parameters and prose stay prose: "dog;cat",
 * "name|email|id", "c++;java", "theme=dark;id", "I love \"C++\";java", ":)|more", "tea&&more".
 * Reads the value before the separator once (the value's end is reached once).
 */
function lastCommand(sepAt: i32, sep: u32): bool {
  const double = sepAt + 1 < len && at(txt, sepAt + 1) == sep && sep != 59 && sep != 10;
  // the word itself, not the end of a relative path (";etc/passwd"), a dropped backslash aside
  let w = sepAt + (double ? 2 : 1);
  if (w < len && at(txt, w) == 92) w++;
  if (cmdS != w && wrapAt != w) return false;
  let b = sepAt;
  if (sep == 10 && b > 0 && at(txt, b - 1) == 13) b--; // CR LF
  // white space right before the separator
  let k = b;
  while (k > 0 && blank(at(txt, k - 1))) k--;
  // from the value's start: white space and quotes only
  const z = leadBefore(k);
  if (z == 0) return true;
  // an address, quotes around it aside ("'127.0.0.1'|id"), or localhost
  if (addressBefore(z, false) || localhostBefore(z)) return true;
  if (sep == 10) return false;
  // a host name before a probe ("google.com;id"; not "name;id", a column list)
  if (z <= HOST_LEAD_MAX && commandIn(WORDLESS_PROBES) && nameBefore(z, false)) return true;
  const c = at(txt, k - 1);
  // (a probe after any word: "x&&id", "x||id"; not "tea&&more")
  if (double) return !plainWordBefore(k) || commandIn(WORDLESS_PROBES);
  if (isQuote(c) || c == 96) return (countBefore(c, k) & 1) == 1;
  if (c == 41) {
    // (after a word, number or quote: ":)" and ";)" are faces)
    let q = k - 1;
    while (q > 0 && at(txt, q - 1) == 41) q--;
    if (q == 0 || !(isAlnum(at(txt, q - 1)) || isQuote(at(txt, q - 1)))) return false;
    return countBefore(41, k) > countBefore(40, k);
  }
  return false;
}

// Running counts of ' " ` ( ) over [0, cntAt): callers ask at positions that mostly grow (one per
// separator, left to right), so the counts move forward from the last answer and the value is read
// about once; a smaller position starts over from 0 (a rare backward ask).
let cntAt = 0;
let cntSq = 0;
let cntDq = 0;
let cntBq = 0;
let cntOpen = 0;
let cntClose = 0;

/** How many units c (one of ' " ` ( )) lie before e. */
function countBefore(c: u32, e: i32): i32 {
  if (e < cntAt) { cntAt = 0; cntSq = cntDq = cntBq = cntOpen = cntClose = 0; }
  for (let k = cntAt; k < e; k++) {
    const d = at(txt, k);
    if (d == 39) cntSq++;
    else if (d == 34) cntDq++;
    else if (d == 96) cntBq++;
    else if (d == 40) cntOpen++;
    else if (d == 41) cntClose++;
  }
  cntAt = e;
  return c == 39 ? cntSq : c == 34 ? cntDq : c == 96 ? cntBq : c == 40 ? cntOpen : cntClose;
}

/** The letters before e are a plain word: they start the value or follow white space or a separator. */
function plainWordBefore(e: i32): bool {
  let k = e;
  while (k > 0 && isAlpha(at(txt, k - 1))) k--;
  if (k == e) return false;
  if (k == 0) return true;
  const b = at(txt, k - 1);
  return blank(b) || b == 59 || b == 124 || b == 38 || b == 44 || b == 10 || b == 13;
}

/**
 * The value before e, white space and quotes aside, is a dotted-quad IPv4 address, a port after it
 * allowed ("127.0.0.1:80"), or (unless quad) one number.
 */
function addressBefore(e: i32, quad: bool): bool {
  let k = e;
  // a port
  let p = k;
  while (p > 0 && isDigit(at(txt, p - 1)) && k - p < 5) p--;
  if (p < k && p > 0 && at(txt, p - 1) == 58) k = p - 1;
  const end = k;
  let dots = 0;
  for (let g = 0; g < 4; g++) {
    let d = 0;
    while (k > 0 && isDigit(at(txt, k - 1)) && d < 3) { k--; d++; }
    if (d == 0) break;
    if (g < 3) {
      if (k == 0 || at(txt, k - 1) != 46) break;
      k--;
      dots++;
    }
  }
  if (!(dots == 3 && k < end && isDigit(at(txt, k)))) {
    if (quad) return false;
    // or one number
    k = e;
    while (k > 0 && isDigit(at(txt, k - 1))) k--;
    if (k == e) return false;
  }
  // the whole value before it, white space and quotes aside ("servers: 10.0.0.1;host" is prose)
  while (k > 0 && (blank(at(txt, k - 1)) || isQuote(at(txt, k - 1)))) k--;
  return k == 0;
}

let found = false; // a separator rule was reported for this value

function hit(r: i32, s: i32, e: i32): void {
  if (r < 0) return;
  if (stripMode) return; // the sanitizer strips characters, not findings (see stripAll)
  found = true;
  emit(r, s, e);
}

/**
 * A written line break at i: a backslash and 'n' ("\\n" in JSON), as an application that unescapes
 * the value reads it (not 'N': no unescaper reads "\\N" as a line break; "\\Ncat\\ncat.exe" is a path).
 */
@inline function writtenBreak(i: i32): bool {
  return i >= 0 && i + 1 < len && at(txt, i) == 92 && at(txt, i + 1) == 110;
}

/**
 * The written "\\n" at k ends a command's line: the value ends after it, or white space, a quote,
 * a separator, another backslash escape or a listed command follows ("\\nid\\n", "\\nid\\nls"); not a
 * path's next segment or a word ("\\ncat\\ncat.exe", "\\nmore\\ntext"). Reads at most one word.
 */
function lineEndAt(k: i32): bool {
  if (!writtenBreak(k)) return false;
  const j = k + 2;
  if (j >= len) return true;
  const c = at(txt, j);
  if (blank(c) || isQuote(c) || c == 59 || c == 38 || c == 124 || c == 92 || c == 10 || c == 13) return true;
  if (!isAlpha(c)) return false;
  const e = glancedWord(j);
  if (e < 0) return false;
  return ruleWithWord(K_SHELL_COMMAND, txt, j, e - j) >= 0 || ruleWithWord(K_SHELL_RARE, txt, j, e - j) >= 0;
}

/**
 * A written "\n" read as a line break before a command, as an application that unescapes the value
 * reads it: "\nid\n", "'\n/bin/ls -al\n'". The backslash starts the value or follows white space
 * (not '+': "\s+\nset"), a quote, a separator, another written "\n" or an address that is the
 * whole value before it (in a Windows path, "C:\ncat\ncat.exe", it follows ':' or a letter); the
 * command is glued to it. A rare command counts as it is (a line of prose, a capital and a small
 * letter, only as rareLine says), a listed one when given by its absolute path, or when only white
 * space, quotes, separators and written "\n" stand before it from the value's start (or an
 * address) and the line ends or a shell argument follows. Each backslash is looked at once;
 * commandAt's walk stops at the next one.
 */
function writtenBreaks(rRare: bool, rCmd: bool): void {
  const fRare = kindWordFilter(K_SHELL_RARE);
  wrapAt = -1;
  let i = 0;
  while (i + 2 < len) {
    // (the next backslash by hand when it is right there: "\\n\\n\\n..." would start a search at every one)
    if (at(txt, i) != 92) i = find4(txt, i, len, 92, 92, 92, 92);
    if (i + 2 >= len) return;
    if (at(txt, i + 1) != 110) { i++; continue; }
    const a = at(txt, i + 2);
    if (!(isAlpha(a) || a == 47)) { i += 2; continue; }
    const b: u32 = i > 0 ? at(txt, i - 1) : 32;
    const lead = b == 32 || b == 9 || isQuote(b) || b == 59 || b == 38 || b == 124 || b == 10 || b == 13 || writtenBreak(i - 2) || (isDigit(b) && addressBefore(i, true));
    // a line of prose starts with a capital and a small letter ("\nThat ..."): only a rare
    // command prose does not use followed by a shell argument ("\nPowerShell -enc ...")
    if (lead && a - 65 < 26 && i + 3 < len && at(txt, i + 3) - 97 < 26) {
      const r = rRare ? rareLine(i + 2, fRare) : -1;
      if (r >= 0) { hit(r, i, cmdE); return; }
      i += 2;
      continue;
    }
    if (lead && commandAt(i + 2) && glued) {
      let r = rRare ? commandRule(K_SHELL_RARE) : -1;
      if (r < 0 && rCmd) {
        r = commandRule(K_SHELL_COMMAND);
        let k = cmdE;
        while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
        // only after an injection's lead ("\nid\n", "127.0.0.1\nid", "';\nid"; not "see the
        // \nmore\nlink", "Run this: \nls -la"), and where the line ends (the value, or a written
        // "\n" as lineEndAt says) or a shell argument other than a backslash follows (quotes
        // aside: "{\"a\":\"\nstart\"}"; a backslash is the next escape: "\nid\tname")
        if (r >= 0 && !absolute && k < len) {
          const c = at(txt, k);
          if (c == 92 ? !lineEndAt(k) : !shellArgument(k, 10, i + 1)) r = -1;
        }
        if (r >= 0 && !absolute && !lineLead(i)) r = -1;
      }
      if (r >= 0) { hit(r, i, cmdE); return; }
    }
    i += 2;
  }
}

/**
 * Before the written "\\n" at i stand nothing but white space, quotes, separators and other written
 * "\\n" from the value's start, or an address or a number that is the whole value before them. Reads the
 * run before i once (its candidates follow a word, so runs are not read twice).
 */
function lineLead(i: i32): bool {
  let k = i;
  while (k > 0) {
    const c = at(txt, k - 1);
    if (blank(c) || isQuote(c) || c == 59 || c == 38 || c == 124) { k--; continue; }
    if (k >= 2 && writtenBreak(k - 2)) { k -= 2; continue; }
    break;
  }
  return k == 0 || addressBefore(k, false);
}

/**
 * The value starts with a listed command, white space and a drive's root, and the value ends
 * there or a separator follows, white space and quotes aside: "dir c:\\", "+dir+c:\\+|" (not
 * "Copy C:\\ to D:\\").
 */
function driveAtStart(rCmd: bool): void {
  if (!rCmd) return;
  let j = 0;
  while (j < len && (blank(at(txt, j)) || isQuote(at(txt, j)))) j++;
  if (j >= len || !isAlpha(at(txt, j))) return;
  const k = glancedWord(j);
  if (k < 0 || k >= len || !blank(at(txt, k))) return;
  let a = k;
  while (a < len && blank(at(txt, a))) a++;
  if (a + 2 >= len || !isAlpha(at(txt, a)) || at(txt, a + 1) != 58 || at(txt, a + 2) != 92) return;
  const d = a + 3;
  let q = d;
  while (q < len && (blank(at(txt, q)) || isQuote(at(txt, q)))) q++;
  if (q < len) {
    const c = at(txt, q);
    if (!(c == 59 || c == 38 || c == 124 || c == 10 || c == 13)) return;
  }
  cmdS = j;
  cmdE = k;
  quoted = false;
  hit(commandRule(K_SHELL_COMMAND), j, d);
}

/**
 * The line at j starts with a word that names a shell-command-rare rule (PowerShell, CertUtil)
 * followed by white space and an option or a path: that rule (cmdS, cmdE set), or -1. Reads at
 * most the word and the white space after it (a line is judged once).
 */
function rareLine(j: i32, fRare: usize): i32 {
  const k = glancedWord(j);
  if (k < 0 || k >= len || !filterMayHave(fRare, txt, j, k - j)) return -1;
  cmdS = j;
  cmdE = k;
  quoted = false;
  const r = commandRule(K_SHELL_RARE);
  if (r < 0) return -1;
  let a = k;
  while (a < len && blank(at(txt, a)) && a - k < 64) a++;
  if (a == k || a >= len) return -1;
  const c = at(txt, a);
  return (c == 45 && a + 1 < len && isAlnum(at(txt, a + 1))) || c == 47 || c == 92 ? r : -1;
}

// Words that run the command after them (wrappedAt: time, nice, call, sudo, exec, doas, nohup,
// command, builtin); their own arguments are not read ("time -p" is left to the listed words' rules).
let wrapAt = -1; // where the wrapper before the command [cmdS, cmdE) starts, or -1

/** The command word is [s, e), unquoted, no path; glued to its separator or not. */
function plainCommand(s: i32, e: i32, g: bool): void {
  cmdS = s;
  cmdE = e;
  quoted = false;
  absolute = false;
  glued = g;
}
let wrappedEnd = 0;

/**
 * The word [t, k) is a wrapper (time, nice, call, sudo, exec, doas, nohup, command, builtin), and white space and a word that names a command of either
 * kind follow it: where that word starts (wrappedEnd: where it ends), or -1. Reads the two words once.
 */
function wrappedAt(t: i32, k: i32, fRare: usize, fCmd: usize): i32 {
  const n = k - t;
  if (n < 4 || n > 7 || k + 1 >= len || !blank(at(txt, k))) return -1;
  // (one candidate by length and first letter, no walk over the list: most words after a separator are none)
  const f = lower(at(txt, t));
  let w = '';
  if (n == 4) w = f == 116 ? 'time' : f == 110 ? 'nice' : f == 99 ? 'call' : f == 115 ? 'sudo' : f == 101 ? 'exec' : f == 100 ? 'doas' : '';
  else if (n == 5) w = f == 110 ? 'nohup' : '';
  else if (n == 7) w = f == 99 ? 'command' : f == 98 ? 'builtin' : '';
  if (w.length == 0 || !wordAt(t, w, 0, n)) return -1;
  let a = k;
  while (a < len && blank(at(txt, a))) a++;
  if (a >= len || !isAlpha(at(txt, a))) return -1;
  const e = glancedWord(a);
  if (e < 0 || !mayBeCommand(fRare, fCmd, a, e)) return -1;
  if (ruleWithWord(K_SHELL_RARE, txt, a, e - a) < 0 && ruleWithWord(K_SHELL_COMMAND, txt, a, e - a) < 0) return -1;
  wrappedEnd = e;
  return a;
}

/**
 * The command [pathAt, cmdE) that commandAt read is a program given by its path: an absolute path
 * with a directory before the name ("/tmp/x", "/dev/shm/.a"; not "/x") or one from the working
 * directory ("./x", "../bin/x"), what an injection runs after dropping a file. It counts after an
 * injection's lead (strongBefore, from: where the command as written starts, the '.' of ". /tmp/x";
 * not after a single '|': "| /api/users" is a table's cell) when the value ends after it or a
 * separator, a redirection, a comment that ends the value or an option follows (white space and
 * quotes aside); the path holds only letters, digits, '/', '.', '_' and '-'.
 * Reads the path once and the white space after it.
 */
function programPath(sep: u32, sepAt: i32, from: i32): bool {
  if (sep == 124 && !(sepAt + 1 < len && at(txt, sepAt + 1) == 124)) return false;
  // (every lead strongBefore takes ends within HOST_LEAD_MAX units of the value's start)
  if (leadBefore(sepAt) > HOST_LEAD_MAX) return false;
  const p = pathAt;
  if (cmdS <= p || cmdS > cmdE || quoted) return false;
  const c = at(txt, p);
  // (the path's units: letters, digits, '/', '.', '_', '-'; a quote cuts no file name)
  let dir = false;
  for (let k = p; k < cmdE; k++) {
    const u = at(txt, k);
    if (isAlnum(u)) { if (k < cmdS) dir = true; continue; }
    if (!(u == 47 || u == 46 || u == 95 || u == 45)) return false;
  }
  if (c == 47) {
    if (!dir) return false;
  } else if (!(c == 46 && (at(txt, p + 1) == 47 || (at(txt, p + 1) == 46 && p + 2 < len && at(txt, p + 2) == 47)))) return false;
  let k = cmdE;
  while (k < len && (blank(at(txt, k)) || isQuote(at(txt, k)))) k++;
  if (k < len) {
    const d = at(txt, k);
    if (!(d == 59 || d == 38 || d == 124 || d == 10 || d == 13 || d == 62 || (d == 35 && commentEnds(k + 1)) || (d == 45 && k + 1 < len && isAlnum(at(txt, k + 1))))) return false;
  }
  const w = wrapAt;
  wrapAt = from;
  const ok = strongBefore(sepAt, sep);
  wrapAt = w;
  return ok;
}

/**
 * At t a variable name ends at k with '=', a command of either kind is its value, and right after
 * the separator that ends the assignment the variable runs as a command: ";u=id;$u", "; a=cat;
 * $a /etc/passwd" (a shell idiom; not "theme=dark;$theme", "sort=id;$order"). Where the use of the
 * variable ends, or -1. Reads the two words and the name once.
 */
function assignedCommand(t: i32, k: i32): i32 {
  const n = k - t;
  for (let q = t; q < k; q++) if (!(isAlnum(at(txt, q)) || at(txt, q) == 95)) return -1;
  const v = k + 1;
  if (!isAlpha(at(txt, v))) return -1;
  const ve = glancedWord(v);
  if (ve < 0 || ve >= len) return -1;
  if (ruleWithWord(K_SHELL_RARE, txt, v, ve - v) < 0 && ruleWithWord(K_SHELL_COMMAND, txt, v, ve - v) < 0) return -1;
  let q = ve;
  const s = at(txt, q);
  if (!(s == 59 || s == 38 || s == 124 || s == 10)) return -1;
  q++;
  if (q < len && (s == 38 || s == 124) && at(txt, q) == s) q++;
  while (q < len && blank(at(txt, q))) q++;
  if (q + n >= len || at(txt, q) != 36) return -1;
  // (letters compared case-insensitively: a value whose case was changed on its way is judged as it was)
  for (let j = 0; j < n; j++) if (lower(at(txt, q + 1 + j)) != lower(at(txt, t + j))) return -1;
  const e = q + 1 + n;
  if (e < len) {
    const c = at(txt, e);
    if (!(blank(c) || c == 59 || c == 38 || c == 124 || c == 10 || c == 13 || isQuote(c))) return -1;
  }
  return e;
}

/** Separators followed by a command. */
function separators(): void {
  const rCmd = firstRule(K_SHELL_COMMAND) >= 0;
  const rRare = firstRule(K_SHELL_RARE) >= 0;
  if (!rCmd && !rRare) return;
  const fRare = kindWordFilter(K_SHELL_RARE);
  const fCmd = kindWordFilter(K_SHELL_COMMAND);
  let i = 0;
  let fenceAt = hasBacktick ? nextFence(0) : len; // the next ``` at or after the search position
  let inFence = false;
  while (i < len) {
    let sep = at(txt, i);
    if (!(sep == 59 || sep == 38 || sep == 124 || sep == 10)) {
      i = findP(txt, i, len, P_CMD, 59, 38, 124, 10);
      if (i >= len) return;
      sep = at(txt, i);
    }
    // a separator no command can follow: on to the next one that may start one (runs of them
    // read eight units at a time)
    if (i + 1 < len && !mayStartAfter(sep, i)) {
      i = nextCandidate(i + 1);
      if (i >= len) return;
      sep = at(txt, i);
    }
    // markdown code fences: the lines of a fenced block are documentation, not input to a shell
    while (fenceAt < i) { inFence = !inFence; fenceAt = nextFence(fenceAt + 3); }
    if (sep == 10 && inFence) { i++; continue; }
    // a line of prose starts with a capital and a small letter ("That ..."): no command, unless
    // it is a command prose does not use followed by a shell argument ("PowerShell -enc ...")
    // (not after an address that is the whole value before it: "127.0.0.1\nType flag.txt")
    if (sep == 10 && i + 2 < len && at(txt, i + 1) - 65 < 26 && at(txt, i + 2) - 97 < 26 && !afterHostLead(i)) {
      const r = rRare ? rareLine(i + 1, fRare) : -1;
      if (r >= 0) { hit(r, i, cmdE); return; }
      // (a probe or a file read that ends the line after a line break that starts the value, whatever
      // its case: "\nPwD #")
      if (rCmd && leadBefore(i > 0 && at(txt, i - 1) == 13 ? i - 1 : i) == 0) {
        const k = glancedWord(i + 1);
        if (k > 0) {
          cmdS = i + 1;
          cmdE = k;
          quoted = false;
          if (probeEnds(true)) { hit(enabledRule(K_SHELL_COMMAND), i, cmdE); return; }
        }
      }
      i++;
      continue;
    }
    let j = i + 1;
    if ((sep == 38 || sep == 124) && j < len && at(txt, j) == sep) {
      j++; // && ||
      // a run of three or more: the steps below would go two units at a time through it, each a
      // pair followed by the same character (no command); on to the run's last pair or single
      if (j < len && at(txt, j) == sep) {
        let r = j + 1;
        while (r < len && at(txt, r) == sep) r++;
        i = ((r - i) & 1) == 0 ? r - 2 : r - 1;
        continue;
      }
    }
    // a command starts with a letter or '/', after white space, quotes or '+': a quick "no" for &# |= ;)
    const c0: u32 = j < len ? at(txt, j) : 0;
    // ('.' only where programPath may find a lead: near the value's start)
    if (!commandStart(c0) && !slashedLetter(j) && !(dotPathAt(j) && leadBefore(i) <= HOST_LEAD_MAX)) {
      // past c0 too, unless it is a separator itself ("&#&#...": one step per '&', no search)
      i = c0 == 59 || c0 == 38 || c0 == 124 || c0 == 10 ? j : j + 1;
      continue;
    }
    // the common shapes, a word glued to the separator or after spaces, tabs or '+', and ended by
    // a unit that is neither '/' nor a quote, are the word commandAt would find: taken here
    // without its walk (";x;x...", "; x; x...": that walk cost most of the scan)
    let glance = false;
    wrapAt = -1;
    let t = j;
    if (blank(c0)) {
      t = j + 1;
      while (t < len && blank(at(txt, t))) t++;
    }
    // after the run, a unit that is neither a word character, a quote nor '/': no command there
    // (commandAt would say so after the same walk; "; ; ; ...")
    if (t > j && (t >= len || !(startsCommandWord(at(txt, t)) || slashedLetter(t)))) { i = t; continue; }
    // a backslash before a letter: the shell drops it (commandAt's walk skips it too; ";\\x" repeated);
    // so does cmd.exe a caret ("& ^w^h^o^a^m^i": obfuscatedAt reads the rest)
    if (slashedLetter(t)) t++;
    if (t < len && isAlpha(at(txt, t))) {
      const k = glancedWord(t);
      // a word a dropped unit cuts ("c\\at", "w^h^o^a^m^i", "c${u}at")
      if (k >= 0 && k < len && dropStart(at(txt, k))) {
        const r = obfuscatedAt(t, fRare, fCmd);
        if (r >= 0) { hit(r, i, cmdE); return; }
      }
      // a command stored in a variable and run by it (";u=id;$u")
      if (k >= 0 && k + 1 < len && at(txt, k) == 61 && rCmd) {
        const e = assignedCommand(t, k);
        if (e >= 0) { hit(enabledRule(K_SHELL_COMMAND), i, e); return; }
      }
      // a wrapper that runs the command after it ("; time id", ";nice id", "& call whoami"): that
      // command is judged, as a LEAD_ONLY one is
      const a = k >= 0 ? wrappedAt(t, k, fRare, fCmd) : -1;
      if (a >= 0) {
        wrapAt = t;
        plainCommand(a, wrappedEnd, t == j || (t == j + 1 && slashedLetter(j)));
        glance = true;
      } else if (k >= 0) {
        // most words after a separator have a length, first and last letter no listed command has
        if (!mayBeCommand(fRare, fCmd, t, k)) { i = refusedRun(k, fRare, fCmd); continue; }
        plainCommand(t, k, t == j || (t == j + 1 && slashedLetter(j)));
        glance = true;
      }
    }
    // a file sourced by its path (". /tmp/x", ". ./x"): programPath judges it
    if (c0 == 46 && j + 1 < len && blank(at(txt, j + 1))) {
      let q = j + 1;
      while (q < len && blank(at(txt, q))) q++;
      if (rCmd && q < len && (at(txt, q) == 47 || at(txt, q) == 46) && commandAt(q) && programPath(sep, i, j)) { hit(enabledRule(K_SHELL_COMMAND), i, cmdE); return; }
      i = q;
      continue;
    }
    const word = glance || commandAt(j);
    // a path the shell globs into a program's ("; /???/??t flag.txt", "x; /usr/bin/wh?ami")
    if (!glance && globAt >= 0 && rCmd) {
      const g = globPathAt(globAt);
      if (g >= 0) { hit(enabledRule(K_SHELL_COMMAND), i, g); return; }
    }
    // a program given by its path, not a listed word ("; /tmp/x", ";./x")
    if (word && !glance && rCmd && programPath(sep, i, pathAt) && commandRule(K_SHELL_RARE) < 0 && commandRule(K_SHELL_COMMAND) < 0) {
      hit(enabledRule(K_SHELL_COMMAND), i, cmdE);
      return;
    }
    if (word) {
      // a word a dropped unit cuts after a path, which the glance does not take ("; /bin/c\\at
      // /etc/passwd"): before the word filter, which sees only the part before the cut (a quoted
      // word skips that filter; it is read below)
      if (!glance && !quoted && cmdE < len && dropStart(at(txt, cmdE))) {
        const r = obfuscatedAt(cmdS, fRare, fCmd);
        if (r >= 0) { hit(r, i, cmdE); return; }
      }
      if (!glance && ((!quoted && !mayBeCommand(fRare, fCmd, cmdS, cmdE)) || (sep == 10 && base64Line()))) {
        i = cmdE > j ? cmdE : j;
        continue;
      }
      let r = rRare ? commandRule(K_SHELL_RARE) : -1;
      if (r < 0 && rCmd) {
        r = commandRule(K_SHELL_COMMAND);
        // a listed command given by its absolute path (/usr/bin/id) needs no argument
        if (r >= 0 && !absolute && !shellArgument(cmdE, sep, i)) {
          // a Windows administration tool (a windows-switch param) after a single '&' or '|', with
          // a switch on its line: "& net user x P@ss1 /add" ("Rent & move in for $900 /mo" passes)
          r = (sep == 38 || sep == 124) && !quoted ? ruleWithWord(K_SHELL_SWITCH, txt, cmdS, cmdE - cmdS) : -1;
          if (r >= 0 && !windowsSwitchAfter(cmdE)) r = -1;
          if (r < 0 && glued && sep != 10) gluedSeen = true;
        } else if (r >= 0 && !absolute && (wrapAt >= 0 || leadOnly()) && !leadOnlyCounts(sep, i)) r = -1;
      }
      if (r >= 0) { hit(r, i, cmdE); return; }
      // a quoted word a dropped unit cuts ("wh''o\\ami")
      if (quoted && cmdE < len && dropStart(at(txt, cmdE))) {
        r = obfuscatedAt(cmdS, fRare, fCmd);
        if (r >= 0) { hit(r, i, cmdE); return; }
      }
      i = cmdE > j ? cmdE : j;
      continue;
    }
    i = j;
  }
}

/**
 * The word glued to a separator at j (a letter there), when it ends at a unit that is neither
 * '/' nor a quote: then it is the word commandAt would find, and this returns its end without
 * that walk (";x;x...": the walk cost most of the scan). -1: commandAt decides.
 */
@inline function glancedWord(j: i32): i32 {
  let k = j + 1;
  while (k < len && k - j <= MAX_WORD) {
    const c = at(txt, k);
    if (c < 128 && load<u8>(WORD_OR_QUOTE + c) == 1) k++;
    else break;
  }
  const d: u32 = k < len ? at(txt, k) : 0;
  if (k - j <= MAX_WORD && d != 47 && !(d < 128 && load<u8>(WORD_OR_QUOTE + d) != 0)) return k;
  return -1;
}

/** A command word or path can start at c (commandAt's walk goes on there): a word character, a quote or '/'. */
@inline function startsCommandWord(c: u32): bool {
  return c == 47 || (c < 128 && load<u8>(WORD_OR_QUOTE + c) != 0);
}

/** The word [s, e) passes the word filter of the rare or of the listed commands (fRare, fCmd: kindWordFilter). */
@inline function mayBeCommand(fRare: usize, fCmd: usize, s: i32, e: i32): bool {
  return filterPairMayHave(fRare, fCmd, txt, s, e - s);
}

/**
 * From k, past each further ';' '&' '|' glued to a word the filters refuse: the steps the loop
 * in separators would take there (the fence and line-break rules concern '\n' only, and an
 * '&' or '|' before a letter is no '&&' or '||'), without its other tests. Returns where the
 * loop goes on.
 */
function refusedRun(k: i32, fRare: usize, fCmd: usize): i32 {
  while (k + 1 < len) {
    const s = at(txt, k);
    if (!(s == 59 || s == 38 || s == 124)) break;
    // the word glued to it, or after a backslash the shell drops (";x;x...", ";\\x;\\x...")
    const w = slashedLetter(k + 1) ? k + 2 : k + 1;
    if (!isAlpha(at(txt, w))) break;
    const e = glancedWord(w);
    if (e < 0 || mayBeCommand(fRare, fCmd, w, e)) break;
    k = e;
  }
  return k;
}

/** A command can start at a unit c after a separator: a letter, '/', ' ', tab, '+', a quote (the vector step of nextCandidate tests the same set, and slashedLetter). */
@inline function commandStart(c: u32): bool {
  return isAlpha(c) || c == 47 || blank(c) || isQuote(c);
}

/** At j: "./", "../" or '.' and white space (a program's path from the working directory, or a sourced file: programPath judges them). */
@inline function dotPathAt(j: i32): bool {
  if (j + 1 >= len || at(txt, j) != 46) return false;
  const d = at(txt, j + 1);
  return d == 47 || blank(d) || (d == 46 && j + 2 < len && at(txt, j + 2) == 47);
}

/** A backslash or a caret and a letter at j: the shell drops the backslash ("\\cat" runs cat), cmd.exe the caret ("^w^h^o^a^m^i"). */
@inline function slashedLetter(j: i32): bool {
  return j + 1 < len && (at(txt, j) == 92 || at(txt, j) == 94) && isAlpha(at(txt, j + 1));
}

/** The units after the separator at i may start a command, or are the separator's double (&& ||). */
@inline function mayStartAfter(s: u32, i: i32): bool {
  const d = at(txt, i + 1);
  // ('.' only near the value's start, where programPath may find a lead: the first separator, which
  // the vector step of nextCandidate never passes, as no separator stands before it)
  return commandStart(d) || (d == s && (s == 38 || s == 124)) || slashedLetter(i + 1) || (d == 46 && leadBefore(i) <= HOST_LEAD_MAX);
}

/**
 * The next separator at or after i that the loop above must look at, or len: one followed by a
 * unit a command can start with (a letter, '/', ' ', tab, '+', a quote, a backslash) or by its own double
 * (&& ||). Runs of separators are read eight units at a time ("\n#;\n#;...": one step of the loop
 * per separator cost more than the rest of the scan); a separator in the last nine units is
 * returned as it is, and the loop's own checks judge it.
 */
function nextCandidate(i: i32): i32 {
  const n = len;
  while (i < n) {
    const c = at(txt, i);
    if (!(c == 59 || c == 38 || c == 124 || c == 10)) {
      i = findP(txt, i, n, P_CMD, 59, 38, 124, 10);
      if (i >= n) return n;
    }
    // the separator found, by itself first (a lone one needs no vector step)
    if (i + 1 >= n) return i;
    if (mayStartAfter(at(txt, i), i)) return i;
    i++;
    while (i + 10 <= n) {
      const q = txt + (<usize>i << 1);
      const a = v128.load(q);
      const b = v128.load(q, 2);
      const amp = i16x8.eq(a, i16x8.splat(38));
      const bar = i16x8.eq(a, i16x8.splat(124));
      const sep = v128.or(v128.or(i16x8.eq(a, i16x8.splat(59)), i16x8.eq(a, i16x8.splat(10))), v128.or(amp, bar));
      if (!v128.any_true(sep)) break;
      const letter = i16x8.le_u(i16x8.sub(v128.or(b, i16x8.splat(32)), i16x8.splat(97)), i16x8.splat(25));
      const other = v128.or(v128.or(v128.or(i16x8.eq(b, i16x8.splat(47)), i16x8.eq(b, i16x8.splat(32))),
        v128.or(i16x8.eq(b, i16x8.splat(9)), i16x8.eq(b, i16x8.splat(43)))),
        v128.or(v128.or(i16x8.eq(b, i16x8.splat(39)), i16x8.eq(b, i16x8.splat(34))),
          v128.and(i16x8.eq(b, a), v128.or(amp, bar))));
      // a backslash before a letter ("\\cat": the shell drops it)
      const c = v128.load(q, 4);
      const slashed = v128.and(v128.or(i16x8.eq(b, i16x8.splat(92)), i16x8.eq(b, i16x8.splat(94))), i16x8.le_u(i16x8.sub(v128.or(c, i16x8.splat(32)), i16x8.splat(97)), i16x8.splat(25)));
      const m = i16x8.bitmask(v128.and(sep, v128.or(v128.or(letter, other), slashed)));
      if (m != 0) return i + <i32>ctz(m);
      i += 8;
    }
    // the last units: the next separator as it is (the loop's own checks judge it)
    if (i + 10 > n) return findP(txt, i, n, P_CMD, 59, 38, 124, 10);
  }
  return n;
}

/** The next "```" at or after i, or len. */
function nextFence(i: i32): i32 {
  while (i + 2 < len) {
    i = find4(txt, i, len, 96, 96, 96, 96);
    if (i + 2 >= len) return len;
    if (at(txt, i + 1) == 96 && at(txt, i + 2) == 96) return i;
    i++;
  }
  return len;
}

/**
 * A unit where the look below may find something: a backtick; '$' before '(', '{', 'i' or a quote ($(,
 * ${IFS}, $IFS, $'\x41'); '{' before a letter or '/' (brace expansion) or after ')' or a gap (the shellshock prefix
 * "() {"). Anything else the look passes at once.
 */
@inline function substitutionAt(i: i32): bool {
  const c = at(txt, i);
  if (c == 96) return true;
  if (c != 36 && c != 123) return false;
  const d: u32 = i + 1 < len ? at(txt, i + 1) : 0;
  if (c == 36) return d == 40 || d == 123 || (d | 32) == 105 || d == 39;
  if (isAlpha(d) || d == 47) return true;
  const b: u32 = i > 0 ? at(txt, i - 1) : 0;
  return b == 41 || b == 32 || b == 9 || b == 43;
}

/**
 * The next unit at or after i where substitutionAt holds, or len: eight units by hand first (dense
 * input, "$($(...", would set the vector search up at every one), then eight units a step, each
 * unit tested with the units before and after it ("{{1}}{{1}}...": every '{' was a step of the
 * look, a third of the scan).
 */
function nextSubstitution(i: i32): i32 {
  const n = len;
  const hand = i + 8 < n ? i + 8 : n;
  for (; i < hand; i++) if (substitutionAt(i)) return i;
  if (i + 9 > n) {
    while (i < n && !substitutionAt(i)) i++;
    return i;
  }
  const kDollar = splat16(36);
  const kTick = splat16(96);
  const kBrace = splat16(123);
  const kLp = splat16(40);
  const kRp = splat16(41);
  const kI = splat16(105);
  const kSq = splat16(39);
  const kSp = splat16(32);
  const kTab = splat16(9);
  const kPlus = splat16(43);
  const kSlash = splat16(47);
  const kA = splat16(97);
  const k25 = splat16(25);
  while (i + 9 <= n) {
    const q = txt + (<usize>i << 1);
    const v = v128.load(q);
    const vn = v128.load(q, 2);
    const vp = v128.load(q - 2);
    const vnl = v128.or(vn, kSp);
    const dollar = v128.and(i16x8.eq(v, kDollar), v128.or(v128.or(v128.or(i16x8.eq(vn, kLp), i16x8.eq(vn, kBrace)), i16x8.eq(vnl, kI)), i16x8.eq(vn, kSq)));
    const brace = v128.and(i16x8.eq(v, kBrace), v128.or(v128.or(i16x8.le_u(i16x8.sub(vnl, kA), k25), i16x8.eq(vn, kSlash)),
      v128.or(v128.or(i16x8.eq(vp, kRp), i16x8.eq(vp, kSp)), v128.or(i16x8.eq(vp, kTab), i16x8.eq(vp, kPlus)))));
    const m = <u32>i16x8.bitmask(v128.or(v128.or(i16x8.eq(v, kTick), dollar), brace));
    if (m != 0) return i + <i32>ctz(m);
    i += 8;
  }
  while (i < n && !substitutionAt(i)) i++;
  return i;
}

/**
 * After "${" at k: a variable name (at most 32 units), ':', digits, ':', digits and '}'; the
 * index past the '}', or -1.
 */
function slicedVariableEnd(k: i32): i32 {
  if (k >= len || !(isAlpha(at(txt, k)) || at(txt, k) == 95)) return -1;
  let j = k + 1;
  while (j < len && j - k < 32 && (isAlnum(at(txt, j)) || at(txt, j) == 95)) j++;
  for (let part = 0; part < 2; part++) {
    if (j >= len || at(txt, j) != 58) return -1;
    const d = ++j;
    while (j < len && j - d < 6 && isDigit(at(txt, j))) j++;
    if (j == d) return -1;
  }
  return j < len && at(txt, j) == 125 ? j + 1 : -1;
}

/** A hexadecimal digit. */
@inline function isHex(c: u32): bool {
  return c - 48 < 10 || (c | 32) - 97 < 6;
}

/** $(cmd, `cmd, ${IFS}, $IFS, ${PATH:0:1}, $'\x41', {cmd,arg}, () { :; }. */
function substitutions(r: i32): void {
  let i = 0;
  while (i < len) {
    // the unit at i and the next by hand (no call: dense input, "$($(...", "{a{a..."), then the search
    if (!substitutionAt(i)) {
      i++;
      if (i >= len) return;
      if (!substitutionAt(i)) {
        i = nextSubstitution(i + 1);
        if (i >= len) return;
      }
    }
    const c = at(txt, i);
    if (c == 36) {
      // $'\x69\x64', $'\151\144': bash's ANSI-C quoting spells a word with escapes (a regular
      // expression's replacement "$'" is not followed by one)
      if (i + 4 < len && at(txt, i + 1) == 39 && at(txt, i + 2) == 92) {
        const e = at(txt, i + 3);
        const f = at(txt, i + 4);
        if (((e | 32) == 120 && isHex(f)) || (e - 48 < 8 && f - 48 < 8) || ((e | 32) == 117 && isHex(f))) { hit(r, i, i + 5); return; }
      }
      // $IFS, ${IFS}
      let k = i + 1;
      if (k < len && at(txt, k) == 123) k++;
      if (k + 2 < len && lower(at(txt, k)) == 105 && lower(at(txt, k + 1)) == 102 && lower(at(txt, k + 2)) == 115 &&
        (k + 3 >= len || !isAlnum(at(txt, k + 3)))) { hit(r, i, k + 3); return; }
      // ${NAME:offset:length}: a character cut out of a variable (${PATH:0:1} is '/'), not a
      // placeholder with a default (${PORT:8080})
      if (k > i + 1) {
        const e = slicedVariableEnd(k);
        if (e > 0) { hit(r, i, e); return; }
      }
      // $(cmd
      if (i + 1 < len && at(txt, i + 1) == 40 && mayCommandAt(i + 2) && commandAt(i + 2)) {
        if (commandWord()) { hit(r, i, cmdE); return; }
        // or a word a dropped unit cuts: "$(w\\hoami)", "$(/bin/c\\at x)"
        if (cmdE < len && dropStart(at(txt, cmdE)) && obfuscatedAt(cmdS, kindWordFilter(K_SHELL_RARE), kindWordFilter(K_SHELL_COMMAND)) >= 0) { hit(r, i, cmdE); return; }
      }
      // (one look at the unit after "$(" first: "$($(..." costs no call)
      if (i + 2 < len && at(txt, i + 1) == 40) {
        const c2 = at(txt, i + 2);
        // a globbed program: "$(/???/??t flag.txt)"
        if (c2 == 47) {
          const g = globPathAt(i + 2);
          if (g >= 0) { hit(r, i, g); return; }
        } else if (c2 == 60 || blank(c2)) {
          // $(<file: bash reads the file into the command line, no command word needed (jQuery's
          // $("<div>") quotes its markup)
          let k = i + 2;
          while (k < len && k - i < 18 && blank(at(txt, k))) k++;
          if (k + 1 < len && at(txt, k) == 60) {
            // then a file: a name or a path ("$(<config.php)", "$(< /etc/hosts)"; not "$(<!--", "$(<<", "$(<(")
            let f = k + 1;
            while (f < len && f - k < 18 && blank(at(txt, f))) f++;
            const c1: u32 = f < len ? at(txt, f) : 0;
            if (isAlnum(c1) || c1 == 47 || c1 == 46 || c1 == 126 || c1 == 95) { hit(r, i, k + 1); return; }
          }
        }
      }
      i++;
      continue;
    }
    if (c == 96) {
      // `cmd`: not a markdown fence (```); a command prose does not use, or an absolute path, or
      // a listed command glued to shell syntax before the backtick (x=`id`); markdown's inline
      // code (`id`, `sort | uniq`) stands after white space or at the start
      let run = i;
      while (run < len && at(txt, run) == 96) run++;
      if (run - i >= 3 || (i > 0 && at(txt, i - 1) == 96)) { i = run; continue; }
      if (commandAt(i + 1)) {
        // (also after a digit: "127.0.0.1`sleep 5`"; not after a letter, where markdown's inline
        // code may be glued to a word: "a`id`b")
        const glued = i > 0 && !(at(txt, i - 1) <= 32 || at(txt, i - 1) >= 0x80 || isAlpha(at(txt, i - 1)));
        // (or after an address or localhost that is the whole value before it: "127.0.0.1 `id`")
        if (commandRule(K_SHELL_RARE) >= 0 || absolute ||
          ((glued || (i > 0 && hostBefore(leadBefore(i))) || wholeTicks(i)) && commandRule(K_SHELL_COMMAND) >= 0)) { hit(r, i, cmdE); return; }
      }
      i++;
      continue;
    }
    // c == '{': brace expansion {cmd,arg}, or the shellshock prefix "() {" before it
    const nx: u32 = i + 1 < len ? at(txt, i + 1) : 0;
    if ((isAlpha(nx) || nx == 47) && commandAt(i + 1) && cmdE + 1 < len && at(txt, cmdE) == 44 && !blank(at(txt, cmdE + 1)) && commandWord() && !leadOnly()) { hit(r, i, cmdE + 1); return; }
    let k = i;
    while (k > 0 && gap(at(txt, k - 1))) k--;
    // shellshock: "() {" where a value starts (not a function's parameter list: f(){)
    if (k >= 2 && at(txt, k - 1) == 41 && at(txt, k - 2) == 40 && (k == 2 || !(isAlnum(at(txt, k - 3)) || at(txt, k - 3) == 95 || at(txt, k - 3) == 36))) { hit(r, k - 2, i + 1); return; }
    // inside a run of '{' neither check can succeed (the unit before is '{', and so is the unit
    // after): on to the run's last '{' ("{{{{...": one step per '{' cost most of the scan)
    if (nx == 123 && i + 2 < len && at(txt, i + 2) == 123) {
      let q = i + 3;
      while (q < len && at(txt, q) == 123) q++;
      i = q - 1;
      continue;
    }
    i++;
  }
}

/**
 * The backtick at i opens the value (white space and a form's '+' aside: blank()) and the next
 * backtick after the command word closes it ("`id`", "`sleep 5`", "+`cat flag.txt`+"): the value
 * is one substitution. Markdown's inline code as a whole value is rare; in prose it stands among
 * words ("run `ls -la` first"). The value's first unit that is not blank is found once per value
 * (valueLead), so a value of many backticks is not read from its start at each of them.
 */
function wholeTicks(i: i32): bool {
  if (valueLead < 0) {
    valueLead = 0;
    while (valueLead < len && blank(at(txt, valueLead))) valueLead++;
  }
  if (i != valueLead) return false;
  const close = find1(txt, cmdE, len, 96);
  if (close >= len) return false;
  for (let k = close + 1; k < len; k++) if (!blank(at(txt, k))) return false;
  return true;
}

/** The word at [cmdS, cmdE) names a command of either kind, or came as an absolute path. */
function commandWord(): bool {
  return absolute || commandRule(K_SHELL_RARE) >= 0 || commandRule(K_SHELL_COMMAND) >= 0;
}

/** SPEC's command sanitizer: removal spans for ; & | ` $( ${ >> << and C0 controls. */
function stripAll(): void {
  for (let i = 0; i < len; i++) {
    const c = at(txt, i);
    if (c == 59 || c == 38 || c == 124 || c == 96 || c < 32) { addSpan(i, i + 1); continue; }
    if (c == 36 && i + 1 < len && (at(txt, i + 1) == 40 || at(txt, i + 1) == 123)) { addSpan(i, i + 2); i++; continue; }
    if ((c == 62 || c == 60) && i + 1 < len && at(txt, i + 1) == c) { addSpan(i, i + 2); i++; continue; }
  }
}

/**
 * scanCmd, detecting, can find something in p[0, n): it holds a separator (';' '&' '|' or a line
 * break), a character that starts a substitution ('$' '`' '{') or a backslash (a written "\\n", a
 * drive's root after a command at the value's start). The classes put LF with the
 * other white space, so a value whose only candidate is white space is searched for a LF (the
 * separators' own search: the literal pass's bitmap when it has one, with no ';' '&' '|' in the
 * value the only unit it can find is a LF).
 */
export function cmdWanted(p: usize, n: i32, mask: u32): bool {
  if ((mask & (C_SEMI | C_AMP | C_PIPE | C_DOLLAR | C_BQ | C_LBRACE | C_BSLASH)) != 0) return true;
  if ((mask & C_PCT) != 0 && (mask & C_SLASH) != 0) return true; // (%COMSPEC% /c: shellVariable)
  return (mask & C_SPACE) != 0 && findP(p, 0, n, P_CMD, 59, 38, 124, 10) < n;
}

/** Runs every command-injection rule over text[0, n). In strip mode adds removal spans instead of findings. */
let valueLead = -1; // the value's first unit that is not blank (wholeTicks), -1: not found yet

export function scanCmd(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  valueLead = -1;
  plusSpace = plusIsSpaceIn(p, n, mask);
  cntAt = cntSq = cntDq = cntBq = cntOpen = cntClose = 0;
  if (n == 0) return;
  if (stripMode) {
    if ((mask & (C_SEMI | C_AMP | C_PIPE | C_BQ | C_DOLLAR | C_CTRL | C_NUL | C_SPACE | C_LT | C_GT)) != 0) stripAll();
    return;
  }
  hasBacktick = (mask & C_BQ) != 0;
  found = false;
  firstSemi = firstAmp = firstBar = -2;
  numberLeadIs = -2;
  terminatedIs = -2;
  gluedSeen = false;
  wrapAt = -1;
  if ((mask & (C_SEMI | C_AMP | C_PIPE | C_SPACE)) != 0) separators();
  if (!found && (mask & C_BSLASH) != 0) {
    const rCmd = firstRule(K_SHELL_COMMAND) >= 0;
    writtenBreaks(firstRule(K_SHELL_RARE) >= 0, rCmd);
    if (!found && (mask & C_COLON) != 0) driveAtStart(rCmd);
  }
  const r = enabledRule(K_SHELL_SUBST);
  if (r >= 0 && (mask & (C_DOLLAR | C_BQ | C_LBRACE)) != 0) substitutions(r);
  if (r >= 0 && !found && (mask & (C_PCT | C_SLASH)) == (C_PCT | C_SLASH)) shellVariable(r);
}

/**
 * cmd.exe named by a variable and told to run a command: %COMSPEC%, or a path under a variable
 * that ends in cmd.exe (%windir%\system32\cmd.exe, %SystemRoot%\System32\cmd.exe), then white
 * space and /c, /k or /r and white space: "%COMSPEC% /c whoami". No prose names the shell by its
 * variable with a switch after it. Each '%' is looked at once; the path after it is read up to
 * 64 units and ends at the next '%' or white space.
 */
function shellVariable(r: i32): void {
  let i = 0;
  while (i < len) {
    // (the '%' and '&' bitmap of the literal pass, not a search of the text: prose with a '%'
    // and a '/' somewhere ran a pass over the whole value here)
    i = findP(txt, i, len, P_DEC, 37, 38, 37, 37);
    if (i + 9 >= len) return;
    if (at(txt, i) != 37) { i++; continue; }
    let e = -1;
    if (wordAt(i + 1, 'comspec%', 0, 7) && at(txt, i + 8) == 37) e = i + 9;
    else {
      // %name%\...\cmd.exe
      let k = i + 1;
      while (k < len && k - i < 32 && (isAlnum(at(txt, k)) || at(txt, k) == 95)) k++;
      if (k > i + 1 && k + 1 < len && at(txt, k) == 37 && at(txt, k + 1) == 92) {
        let s = k + 1;
        let q = k + 1;
        while (q < len && q - k < 64 && (isAlnum(at(txt, q)) || at(txt, q) == 92 || at(txt, q) == 46 || at(txt, q) == 95)) {
          if (at(txt, q) == 92) s = q + 1;
          q++;
        }
        if (q - s == 7 && wordAt(s, 'cmd.exe', 0, 7)) e = q;
      }
    }
    if (e > 0) {
      let k = e;
      while (k < len && blank(at(txt, k))) k++;
      if (k > e && k + 1 < len && at(txt, k) == 47) {
        const c = lower(at(txt, k + 1));
        if ((c == 99 || c == 107 || c == 114) && (k + 2 >= len || blank(at(txt, k + 2)))) { hit(r, i, k + 2); return; }
      }
    }
    i++;
  }
}
