// SQL injection detection: a lexer (strings, comments, numbers, operators, words, variables)
// run in the three contexts a value can land in (inside a '...' string, inside a "..." string,
// or bare/numeric), and judges over the token sequence: breaking out of the context and then
// continuing with SQL (tautologies, UNION SELECT, stacked statements, clauses, comments),
// plus context-free constructs (time-based calls, comment-split keywords). Benign prose with
// apostrophes or keywords ("O'Brien", "please select a drop date", "-- thanks") lexes into
// sequences no judge accepts.

import { lowerWordIs, at, lower, isAlpha, isDigit, isSpace, isWord, isHex, hashLower, cls, find1, find2, findP, findPair, P_SQL, skipBlanks } from './text';
import { sqlAnchors, sqlAnchorCount, sqlAnchorsOverflow, sqlCallNoted, subqAnchors, subqAnchorCount, SUBQUERY_ANCHORS, caseAnchors, caseAnchorCount, caseAnchorsOverflow, ifAnchors, ifAnchorCount, ifAnchorsOverflow } from './literals';
import {
  K_SQL_TAUTOLOGY, K_SQL_UNION, K_SQL_STACKED, K_SQL_CALL, K_SQL_PHRASE, K_SQL_COMMENT, K_SQL_BREAKOUT, K_SQL_CONDITIONAL,
  firstRule, nextRule, ruleEnabled, paramFind, paramCount, paramPtr, paramLen, ruleWithWord, enabledRule, kindWordFilter, filterMayHave,
} from './rules';
import { emit, fired } from './findings';
import { plusIsSpaceIn, C_SQ, C_DQ, C_BQ, C_SEMI, C_EQ, C_LP, C_RP, C_STAR, C_HASH, C_PIPE, C_AMP, C_LT, C_GT, C_AT, C_BANG, C_ALPHA, C_BSLASH, C_SPACE, C_PLUS, C_COLON, C_DIGIT, C_UNDERSCORE, C_DOT, C_DASH } from './classes';
import { stripMode, addSpan } from './spans';

// token types
const T_WORD: u8 = 1;
const T_NUM: u8 = 2;
const T_STR: u8 = 3; // closed string
const T_USTR: u8 = 4; // unterminated string (the application's own quote closes it)
const T_OP: u8 = 5; // operator; op code in `sub`
const T_LP: u8 = 6;
const T_RP: u8 = 7;
const T_COMMA: u8 = 8;
const T_SEMI: u8 = 9;
const T_COMMENT: u8 = 10; // sub: 1 line (-- or #), 2 block, 3 executable /*!, 4 unterminated block
const T_VAR: u8 = 11;
const T_OTHER: u8 = 12;
const T_BTICK: u8 = 13;

// operator sub-codes
const O_EQ: u8 = 1; // = == <=>
const O_CMP: u8 = 2; // < > <= >= <> !=
const O_ARITH: u8 = 3; // + - * / % ^ ~
const O_OR: u8 = 4; // ||
const O_AND: u8 = 5; // &&
const O_BIT: u8 = 6; // | &
const O_NOT: u8 = 7; // !
const O_OTHER: u8 = 8; // := :: etc

const TOK = 12; // bytes per token: u8 type, u8 sub, u16 flags, i32 start, i32 end
let toks: usize = 0;
let ntok = 0;
let txt: usize = 0;
let len = 0;
let valueLen = 0; // the value's length (len is cut short for some windows: subqueryWindows, conditionalWindows)

@inline function tType(k: i32): u8 { return <u32>k < <u32>ntok ? load<u8>(toks + <usize>k * TOK) : 0; } // (0 for k < 0 too)
@inline function tSub(k: i32): u8 { return load<u8>(toks + <usize>k * TOK + 1); }
@inline function tGlued(k: i32): bool { return load<u8>(toks + <usize>k * TOK + 2) != 0; } // no space before
@inline function tStart(k: i32): i32 { return load<i32>(toks + <usize>k * TOK + 4); }
@inline function tEnd(k: i32): i32 { return load<i32>(toks + <usize>k * TOK + 8); }

// What the last lexed window holds, so judges that need a token kind it lacks return at once.
let seen: u32 = 0; // bit per token type; SEEN_EQ, SEEN_BOOL_OP and SEEN_BLOCK for operator and comment kinds
// Bits 16-24: operator kinds (bit 16 + sub); bits 25-29: comment kinds (bit 25 + sub).
const SEEN_EQ: u32 = 1 << (16 + O_EQ);
const SEEN_BOOL_OP: u32 = (1 << (16 + O_OR)) | (1 << (16 + O_AND)); // || or &&
const SEEN_BLOCK: u32 = (1 << (25 + 2)) | (1 << (25 + 3)) | (1 << (25 + 4)); // block comments: closed, executable, unterminated
const SUB_BITS = memory.data<u32>([0, 0, 0, 0, 0, 1 << 16, 0, 0, 0, 0, 1 << 25, 0, 0, 0, 0, 0]); // by token type: T_OP, T_COMMENT
let unionAfterNumber = false; // the window lexed a UNION glued to a number ("1union")
let windowAnchored = false; // a UNION or listed-function position the literal pass noted lies in the window

function push(type: u8, sub: u8, s: i32, e: i32, glued: bool): void {
  // the type's bit, and for operators and comments their kind's bit (no branch: SUB_BITS is 0
  // for the other types)
  seen |= (<u32>1 << type) | (load<u32>(SUB_BITS + (<usize>type << 2)) << sub);
  const p = toks + <usize>ntok * TOK;
  store<u8>(p, type);
  store<u8>(p + 1, sub);
  store<u16>(p + 2, glued ? 1 : 0);
  store<i32>(p + 4, s);
  store<i32>(p + 8, e);
  ntok++;
}

let lexEnd = 0; // where lexing stopped: len when the input ran out
let plusSpace = false; // the value was form-encoded: '+' is a space
// the value holds a comparison, a quote, '(', '#' or '*' (or "--", doubleDash): a number glued to
// OR/AND/... may be SQL there ("1or 2>1", "1or true--"); without any of them it is a part number
// or a quantity ("7OR-2BX-4", "1or 2")
let gluedSplit = false;
let doubleDashIs = -2; // doubleDash's answer (-2: not asked yet in this value)

/** The value holds "--" (a comment: "1or true--"). Read once per value, when first asked. */
function doubleDash(): bool {
  if (doubleDashIs == -2) {
    doubleDashIs = 0;
    for (let i = 0; i + 1 < len; i++) if (at(txt, i) == 45 && at(txt, i + 1) == 45) { doubleDashIs = 1; break; }
  }
  return doubleDashIs == 1;
}

// The lexer's branch per ASCII unit (LEX_ACT, filled by initSqlTables). Non-ASCII: a word, and
// U+00A0 white space (as cls reads them).
const A_OP: u8 = 0; // operators and other punctuation (lexOp)
const A_GAP: u8 = 1;
const A_PLUS: u8 = 2; // white space in a form-encoded value, else an operator
const A_WORD: u8 = 3; // a letter
const A_QUOTE: u8 = 4;
const A_BTICK: u8 = 5;
const A_DIGIT: u8 = 6;
const A_DOT: u8 = 7; // a number before a digit, else an operator
const A_NAME: u8 = 8; // '_'
const A_AT: u8 = 9;
const A_MINUS: u8 = 10; // a line comment before '-', else an operator
const A_HASH: u8 = 11;
const A_SLASH: u8 = 12; // a block comment before '*', else an operator
const A_LP: u8 = 13;
const A_RP: u8 = 14;
const A_COMMA: u8 = 15;
const A_SEMI: u8 = 16;
const A_LBRACK: u8 = 17; // SQL Server's quoted name [like this] before a name and ']', else an operator
const LEX_ACT = memory.data(128);

/** Fills the lexer's table (init). */
export function initSqlTables(): void {
  for (let c: u32 = 0; c < 128; c++) {
    let a = A_OP;
    // U+0000 too: a NUL ends the string in the C code under many drivers and servers, so what
    // follows it is cut off ("' or 1=1%00"); read as a gap, the statement before it stands alone
    if ((cls(c) & 1) != 0 || c == 0) a = A_GAP;
    else if (c == 43) a = A_PLUS;
    else if (isAlpha(c)) a = A_WORD;
    else if (c == 39 || c == 34) a = A_QUOTE;
    else if (c == 96) a = A_BTICK;
    else if (c == 91) a = A_LBRACK;
    else if (isDigit(c)) a = A_DIGIT;
    else if (c == 46) a = A_DOT;
    else if (c == 95) a = A_NAME; // ('$' is a word unit, but starts no name: an operator-like T_OTHER)
    else if (c == 64) a = A_AT;
    else if (c == 45) a = A_MINUS;
    else if (c == 35) a = A_HASH;
    else if (c == 47) a = A_SLASH;
    else if (c == 40) a = A_LP;
    else if (c == 41) a = A_RP;
    else if (c == 44) a = A_COMMA;
    else if (c == 59) a = A_SEMI;
    store<u8>(LEX_ACT + c, a);
  }
}

/** A number at s (digits, '.', an exponent, 0x hex; glued to letters it is a word); returns its end. */
function lexNumber(c: u32, s: i32, glued: bool): i32 {
  let k = s + 1;
  if (c == 48 && k < len && (at(txt, k) | 32) == 120) {
    k++;
    while (k < len && isHex(at(txt, k))) k++;
  } else {
    while (k < len && (isDigit(at(txt, k)) || at(txt, k) == 46)) k++;
    if (k < len && (at(txt, k) | 32) == 101) {
      let m = k + 1;
      if (m < len && (at(txt, m) == 43 || at(txt, m) == 45)) m++;
      if (m < len && isDigit(at(txt, m))) { k = m; while (k < len && isDigit(at(txt, k))) k++; }
      else if (m == k + 1) k = m; // MySQL accepts "1.e" as a number
    }
  }
  // "3pm", "8h": a number glued to letters is a word, not a number; but not when the letters are
  // an operator word SQL may read there ("1or 1=1", "1and 2>1", "1e0union select": some engines
  // end a number at the letter, and every engine ends a float such as 1e0 there): the number,
  // then the word lexed on its own
  if (k < len && isAlpha(at(txt, k))) {
    let e = k;
    while (e < len && isWord(at(txt, e))) e++;
    // (after a digit: "5EOR-5..." is a part number, not 5E OR -5; after a '.': MySQL reads "1."
    // as a number, "1.union select")
    if ((isDigit(at(txt, k - 1)) || at(txt, k - 1) == 46) && gluedOperatorWord(k, e)) {
      push(T_NUM, 0, s, k, glued);
      if (textIs(k, e - k, 'union')) unionAfterNumber = true;
      return k;
    }
    push(T_WORD, 0, s, e, glued);
    return e;
  }
  push(T_NUM, 0, s, k, glued);
  return k;
}

/**
 * txt[s, e) is UNION, or OR, AND, XOR, LIKE, RLIKE, REGEXP or DIV in a value that holds a
 * comparison, a quote, '(', '#', '*' or "--" (gluedSplit, doubleDash), any case (not IN or IS:
 * "12in", "2is" are measurements and typos far more often than SQL).
 */
function gluedOperatorWord(s: i32, e: i32): bool {
  const l = e - s;
  if (l < 2 || l > 6) return false;
  if (textIs(s, l, 'union')) return true;
  if (!gluedSplit && !doubleDash()) return false;
  return textIs(s, l, 'or') || textIs(s, l, 'and') || textIs(s, l, 'xor') || textIs(s, l, 'like') ||
    textIs(s, l, 'rlike') || textIs(s, l, 'regexp') || textIs(s, l, 'div');
}

@inline function textIs(s: i32, l: i32, w: string): bool {
  return lowerWordIs(txt, s, l, w);
}

// The last long string scan of each quote (sqFrom/sqTo for ', dqFrom/dqTo for "): from its
// From on, every scan for that quote ends at its To (the closing quote, or len). A scan steps over '\\' and its next unit and over a
// doubled quote; past an ordinary unit (neither '\\' nor the quote) every scan that came through
// it stands on the next unit, so a scan that gets there inside the range ends where the long one
// ended. Windows that start inside a long string and open another one in it ("\\'" after 127
// "=1", repeated, closed once at the far end) read it once, not once per window.
let sqFrom: i32 = -1;
let sqTo: i32 = 0;
let dqFrom: i32 = -1;
let dqTo: i32 = 0;
const LONG_STRING = 64; // units: shorter scans are not remembered (they would replace a long one)

/** Where the string whose contents start at k, quoted by q (' or "), ends: its closing quote, or len. */
function stringEnd(q: u32, k: i32): i32 {
  const from = k;
  const mf = q == 39 ? sqFrom : dqFrom;
  const mt = q == 39 ? sqTo : dqTo;
  while (k < len) {
    const d = at(txt, k);
    if (d == 92) { k += 2; continue; }
    if (d == q) {
      if (k + 1 < len && at(txt, k + 1) == q) { k += 2; continue; }
      break;
    }
    k++;
    if (mf >= 0 && k > mf && k <= mt) { k = mt; break; }
  }
  if (k > len) k = len;
  if (k - from > LONG_STRING) {
    const f = mf >= 0 && k == mt && mf < from ? mf : from;
    if (q == 39) { sqFrom = f; sqTo = k; } else { dqFrom = f; dqTo = k; }
  }
  return k;
}

const DOLLAR_MAX = 256;

/** The end (past the closing "$$") of a $$ string whose contents start at k, or 0: none within DOLLAR_MAX units. */
function dollarEnd(k: i32): i32 {
  const stop = k + DOLLAR_MAX < len ? k + DOLLAR_MAX : len;
  for (let j = k; j + 1 < stop; j++) if (at(txt, j) == 36 && at(txt, j + 1) == 36) return j + 2;
  return 0;
}

const DOLLAR_TAG_MAX = 16; // units of a $tag$'s name
const DOLLAR_TAGGED_MAX = 64; // units of a tagged string's contents

/**
 * The end (past the closing tag) of PostgreSQL's $tag$...$tag$ string whose opening '$' is at s,
 * or 0. The tag is a letter and up to DOLLAR_TAG_MAX letters, digits or '_'; the contents hold no
 * '$' and end within DOLLAR_TAGGED_MAX units (the short constants a tautology compares: "$q$x$q$";
 * longer bodies, which may hold '$', are not read). Each search stops at the next '$', so the
 * '$' of a value are each passed at most twice.
 */
function taggedDollarEnd(s: i32): i32 {
  let t = s + 1;
  const tagStop = s + 2 + DOLLAR_TAG_MAX < len ? s + 2 + DOLLAR_TAG_MAX : len;
  while (t < tagStop && (isAlpha(at(txt, t)) || isDigit(at(txt, t)) || at(txt, t) == 95)) t++;
  if (t >= tagStop || at(txt, t) != 36) return 0;
  const tl = t + 1 - s; // "$tag$"
  const stop = t + 1 + DOLLAR_TAGGED_MAX < len ? t + 1 + DOLLAR_TAGGED_MAX : len;
  let k = t + 1;
  while (k < stop && at(txt, k) != 36) k++;
  if (k >= stop || k + tl > len) return 0;
  for (let j = 0; j < tl; j++) if (at(txt, k + j) != at(txt, s + j)) return 0;
  return k + tl;
}

/** txt[s, e) (after a '_') names a character set: letters and digits, a letter first (utf8, binary, latin1, utf8mb4). */
function charsetName(s: i32, e: i32): bool {
  if (e - s > 16 || !isAlpha(at(txt, s))) return false;
  for (let j = s + 1; j < e; j++) if (!(isAlpha(at(txt, j)) || isDigit(at(txt, j)))) return false;
  return true;
}

/**
 * The end of the string quoted at q after the one-letter prefix c (x, b, n, e or q, any case), or
 * 0: another letter, an unterminated string, or contents that are no hex digits after x, no bits
 * after b ("X'mas" stays a word and a quote). Oracle's q'[...]' (any delimiter; [ { ( < close
 * with ] } ) >) is read up to the first quote after it, which must follow the closing delimiter
 * ("q'[a]'"; a quote inside, which the form allows, ends the reading there: "Q's and A's" stays
 * prose).
 */
function prefixedString(c: u32, q: i32): i32 {
  const p = c | 32;
  if (!(p == 120 || p == 98 || p == 110 || p == 101 || p == 113)) return 0;
  const k = stringEnd(39, q + 1);
  if (k >= len) return 0;
  if (p == 113) {
    if (k < q + 3) return 0;
    const d = at(txt, q + 1);
    const e = d == 91 ? 93 : d == 123 ? 125 : d == 40 ? 41 : d == 60 ? 62 : d;
    return isSpace(d) || at(txt, k - 1) != e ? 0 : k + 1;
  }
  if (p == 120) { for (let j = q + 1; j < k; j++) if (!isHex(at(txt, j))) return 0; }
  else if (p == 98) { for (let j = q + 1; j < k; j++) if (at(txt, j) != 48 && at(txt, j) != 49) return 0; }
  return k + 1;
}

/** A -- or # comment at s, to the line's end; returns that end. */
function lexLineComment(s: i32, glued: bool): i32 {
  // (a short comment by hand; then lineEnd: a line searched once, however many windows start
  // inside it and lex a comment there: "#" after 127 "=1", repeated on one line, was quadratic)
  let k = s + 1;
  const stop = k + 16 < len ? k + 16 : len;
  while (k < stop && at(txt, k) != 10 && at(txt, k) != 13) k++;
  if (k == stop && k < len) k = lineEnd(k);
  push(T_COMMENT, 1, s, k, glued);
  return k;
}

/** An operator (or other punctuation) c at s; returns its end. */
function lexOp(c: u32, s: i32, glued: bool): i32 {
  const d = s + 1 < len ? at(txt, s + 1) : 0;
  let sub: u8 = 0;
  let w = 1;
  if (c == 61) { sub = O_EQ; if (d == 61) w = 2; }
  else if (c == 60) { if (d == 61 && s + 2 < len && at(txt, s + 2) == 62) { sub = O_EQ; w = 3; } else { sub = O_CMP; if (d == 61 || d == 62) w = 2; } }
  else if (c == 62) { sub = O_CMP; if (d == 61) w = 2; }
  else if (c == 33) { if (d == 61) { sub = O_CMP; w = 2; } else sub = O_NOT; }
  else if (c == 124) { if (d == 124) { sub = O_OR; w = 2; } else sub = O_BIT; }
  else if (c == 38) { if (d == 38) { sub = O_AND; w = 2; } else sub = O_BIT; }
  else if (c == 43 || c == 45 || c == 42 || c == 47 || c == 37 || c == 94 || c == 126) sub = O_ARITH;
  else if (c == 58) { sub = O_OTHER; if (d == 61 || d == 58) w = 2; }
  if (sub != 0) push(T_OP, sub, s, s + w, glued);
  else push(T_OTHER, 0, s, s + 1, glued);
  return s + w;
}

/** The ']' that ends a bracketed name whose first unit is at i, or -1 (read at most 128 units). */
function bracketNameEnd(i: i32): i32 {
  if (i >= len) return -1;
  const c0 = at(txt, i);
  if (!(isAlpha(c0) || c0 == 95)) return -1;
  const end = i + 128 < len ? i + 128 : len;
  for (let k = i + 1; k < end; k++) {
    const c = at(txt, k);
    if (c == 93) return k;
    if (!(isAlpha(c) || isDigit(c) || c == 95 || c == 36 || c == 32 || c == 46 || c == 45)) return -1;
  }
  return -1;
}

/**
 * Lexes txt from `from` into at most `maxTok` tokens (a window). quote != 0: the value starts
 * inside a string delimited by that quote (from is 0 then).
 */
function lex(quote: u32, from: i32, maxTok: i32): void {
  ntok = 0;
  seen = 0;
  hashedAt = -1; // (the text may be another value's at the same address)
  unionAfterNumber = false;
  let i = from;
  let glued = false;
  if (quote != 0) {
    // the string the value was pasted into: up to the quote scanSql found (the first unescaped
    // one; for escapedQuoteContext's window, the first one with a backslash before it)
    const k = quote == 39 ? sqAt : dqAt;
    if (k < 0) { push(T_USTR, 0, 0, len, false); lexEnd = len; return; }
    push(T_STR, 0, 0, k + 1, false);
    i = k + 1;
    glued = true;
  }
  while (i < len && ntok < maxTok) {
    const c = at(txt, i);
    // one table read picks the branch (a chain of tests cost most of a one-unit token: "=1=1...")
    const act: u32 = c < 128 ? <u32>load<u8>(LEX_ACT + c) : (c == 0xa0 ? A_GAP : A_WORD);
    if (act == A_GAP || (act == A_PLUS && plusSpace)) {
      i++;
      glued = false;
      // a run of white space: eight units at a time (a value of white space is read to its end)
      if (i < len && (cls(at(txt, i)) & 1) != 0) i = skipBlanks(txt, i, len);
      continue;
    }
    const s = i;
    switch (act) {
      case A_WORD: {
        // a word (letters first; '$' and digits may follow)
        const k = wordEnd(i);
        // a string with a one-letter prefix: x'61' (hex), b'1' (bits), n'...' (national),
        // e'...' (PostgreSQL escapes)
        if (k == i + 1 && k < len && at(txt, k) == 39) {
          const e = prefixedString(c, k);
          if (e > 0) { push(T_STR, 39, s, e, glued); i = e; break; }
        }
        push(T_WORD, 0, s, k, glued);
        i = k;
        break;
      }
      case A_QUOTE: {
        const k = stringEnd(c, i + 1);
        if (k >= len) { push(T_USTR, <u8>c, s, len, glued); i = len; }
        else { push(T_STR, <u8>c, s, k + 1, glued); i = k + 1; }
        break;
      }
      case A_BTICK: {
        let k = i + 1;
        while (k < len && at(txt, k) != 96) k++;
        push(T_BTICK, 0, s, k < len ? k + 1 : len, glued);
        i = k < len ? k + 1 : len;
        break;
      }
      case A_LBRACK: {
        // [name]: a quoted name as `name` is (SQL Server, Access, SQLite): a letter or '_' first,
        // then name units, spaces and dots, and ']' within 128 units ("[users]", "[is_admin]",
        // "[sys].[databases]" is two of them); anything else is punctuation as before
        const k = bracketNameEnd(i + 1);
        if (k < 0) { i = lexOp(c, s, glued); break; }
        push(T_BTICK, 0, s, k + 1, glued);
        i = k + 1;
        break;
      }
      case A_DOT: {
        if (!(i + 1 < len && isDigit(at(txt, i + 1)))) { i = lexOp(c, s, glued); break; }
        i = lexNumber(c, s, glued);
        break;
      }
      case A_DIGIT: {
        // one digit before white space or an operator: the whole number ("=1=1...")
        const d: u32 = i + 1 < len ? at(txt, i + 1) : 0;
        if (d < 128 && (cls(d) & 2) == 0 && d != 46) { push(T_NUM, 0, s, i + 1, glued); i++; break; }
        i = lexNumber(c, s, glued);
        break;
      }
      case A_NAME: { // '_' (a name that starts with no letter)
        let k = i + 1;
        while (k < len) {
          const d = at(txt, k);
          if (isWord(d)) { k++; continue; }
          if (d == 46 && k + 1 < len && isWord(at(txt, k + 1)) && !isDigit(at(txt, k + 1))) { k++; continue; }
          // SQL Server's db..object
          if (d == 46 && k + 2 < len && at(txt, k + 1) == 46 && isWord(at(txt, k + 2)) && !isDigit(at(txt, k + 2))) { k += 2; continue; }
          break;
        }
        // MySQL's character set introducer glued to a string: _utf8'a', _binary'a' (a string)
        if (k < len && at(txt, k) == 39 && k - i >= 3 && charsetName(i + 1, k)) {
          const e = stringEnd(39, k + 1);
          if (e < len) { push(T_STR, 39, s, e + 1, glued); i = e + 1; break; }
        }
        push(T_WORD, 0, s, k, glued);
        i = k;
        break;
      }
      case A_AT: {
        let k = i + 1;
        if (k < len && at(txt, k) == 64) k++;
        while (k < len && (isWord(at(txt, k)) || at(txt, k) == 46)) k++;
        push(T_VAR, 0, s, k, glued);
        i = k;
        break;
      }
      case A_MINUS: {
        if (!(i + 1 < len && at(txt, i + 1) == 45)) { i = lexOp(c, s, glued); break; }
        // "--" and a digit glued to '<' or '>': MySQL's two minus signs ("2>--1"; its comments
        // need white space after "--"), not a comment (after '=' it stays one: "x=--1" is as
        // often a note as a value)
        if (glued && i + 2 < len && isDigit(at(txt, i + 2)) && ntok > 0 && tType(ntok - 1) == T_OP && tSub(ntok - 1) == O_CMP) {
          i = lexOp(c, s, glued);
          break;
        }
        i = lexLineComment(s, glued);
        break;
      }
      case A_HASH: {
        i = lexLineComment(s, glued);
        break;
      }
      case A_SLASH: {
        if (!(i + 1 < len && at(txt, i + 1) == 42)) { i = lexOp(c, s, glued); break; }
        const exec = i + 2 < len && at(txt, i + 2) == 33;
        let k = i + 2;
        while (k + 1 < len && !(at(txt, k) == 42 && at(txt, k + 1) == 47)) k++;
        if (k + 1 >= len) {
          push(T_COMMENT, exec ? 3 : 4, s, len, glued);
          i = len;
        } else {
          push(T_COMMENT, exec ? 3 : 2, s, k + 2, glued);
          i = k + 2;
        }
        break;
      }
      case A_LP: { push(T_LP, 0, s, i + 1, glued); i++; break; }
      case A_RP: { push(T_RP, 0, s, i + 1, glued); i++; break; }
      case A_COMMA: { push(T_COMMA, 0, s, i + 1, glued); i++; break; }
      case A_SEMI: { push(T_SEMI, 0, s, i + 1, glued); i++; break; }
      default: {
        // PostgreSQL's $$...$$ string (its end searched at most DOLLAR_MAX units on: past that,
        // '$' is an operator-like unit as before)
        if (c == 36 && i + 1 < len && at(txt, i + 1) == 36) {
          const e = dollarEnd(i + 2);
          if (e > 0) { push(T_STR, 36, s, e, glued); i = e; break; }
        }
        // and its tagged form, $tag$...$tag$ ("$q$x$q$": taggedDollarEnd)
        if (c == 36 && i + 1 < len && isAlpha(at(txt, i + 1))) {
          const e = taggedDollarEnd(i);
          if (e > 0) { push(T_STR, 36, s, e, glued); i = e; break; }
        }
        // MySQL's \N (NULL), before a non-word unit or a UNION glued to it ("\Nunion select")
        if (c == 92 && i + 1 < len && at(txt, i + 1) == 78) {
          const n = i + 2 < len ? at(txt, i + 2) : 32;
          const we = isWord(n) ? wordEnd(i + 2) : i + 2;
          if (we == i + 2 || textIs(i + 2, we - (i + 2), 'union')) {
            push(T_NUM, 0, s, i + 2, glued);
            if (we > i + 2) unionAfterNumber = true;
            i += 2;
            break;
          }
        }
        i = lexOp(c, s, glued); // A_OP, and A_PLUS where '+' is not a space
      }
    }
    glued = true;
  }
  lexEnd = i;
  // (the literal pass notes no UNION inside a run of word units, "1union", in long values)
  windowAnchored = unionAfterNumber || anchorIn(from, i);
}

/** Some UNION or listed-function position lies in [s, e) (always true when the list overflowed). */
function anchorIn(s: i32, e: i32): bool {
  if (sqlAnchorsOverflow) return true;
  for (let k = 0; k < sqlAnchorCount; k++) {
    const a = load<i32>(sqlAnchors + (<usize>k << 2));
    if (a >= s && a < e) return true;
  }
  return false;
}

/** Next token index at or after k that is not a comment. */
function sig(k: i32): i32 {
  while (k < ntok && tType(k) == T_COMMENT) k++;
  return k;
}

function wordIs(k: i32, w: string): bool {
  if (k >= ntok || tType(k) != T_WORD) return false;
  const s = tStart(k);
  const l = tEnd(k) - s;
  if (l != w.length) return false;
  for (let j = 0; j < l; j++) if (lower(at(txt, s + j)) != <u32>w.charCodeAt(j)) return false;
  return true;
}

/** SQL words that may continue an expression (so "and true love" stays prose, "and true--" not). */
// Grammar words as small keyword sets: a 64-slot table of (hash, length, the word) per set, built
// once. One probe replaces a comparison per listed word (a plain word took 14 wordIs calls to
// be found neither a literal nor a comparison word).
const SET_SQLWORD = 0;
const SET_KEYWORD = 1;
const SET_LITERAL = 2;
const SET_CMP = 3;
const SET_SETOP = 4;
const SET_SUBQCALL = 5;
const SETS = 6;
const SLOT = 12; // u32 hash, u32 length, u32 the word's UTF-16 units
const setTable = memory.data(SETS * 64 * SLOT);
let setsReady = false;

function addWord(set: i32, w: string): void {
  let h: u32 = 2166136261;
  for (let j = 0; j < w.length; j++) h = (h ^ <u32>w.charCodeAt(j)) * 16777619;
  let slot = <i32>(h & 63);
  const base = setTable + <usize>set * 64 * SLOT;
  while (load<u32>(base + <usize>slot * SLOT + 4) != 0) slot = (slot + 1) & 63;
  store<u32>(base + <usize>slot * SLOT, h);
  store<u32>(base + <usize>slot * SLOT + 4, <u32>w.length);
  store<u32>(base + <usize>slot * SLOT + 8, <u32>changetype<usize>(w));
}

// Static arrays (a literal inside a function would allocate at run time, over the arena).
const SQLWORDS: string[] = ['and', 'or', 'xor', 'like', 'rlike', 'regexp', 'is', 'in', 'between', 'not', 'limit', 'order', 'group', 'union',
    'from', 'where', 'having', 'into', 'procedure', 'div', 'mod', 'sounds', 'collate', 'escape', 'null', 'then', 'else', 'end',
    'when', 'select'];
const KEYWORDS: string[] = ['select', 'union', 'from', 'where', 'and', 'or', 'insert', 'update', 'delete', 'drop', 'sleep', 'benchmark',
    'order', 'group', 'by', 'having', 'null', 'all', 'exec', 'into', 'like', 'limit', 'concat', 'char', 'version', 'table'];

const LITERALS: string[] = ['true', 'false', 'null', 'unknown'];
const CMPWORDS: string[] = ['like', 'rlike', 'regexp', 'is', 'in', 'between', 'sounds', 'glob', 'ilike', 'similar'];
const SETOPS: string[] = ['intersect', 'except', 'minus'];
// Calls a scalar subquery reads with (aggregates, and the string and identity functions a blind
// or error-based read uses): scalarSubquery's "(select count(*) from pg_class a, pg_class b)";
// "(select first(page) from book)" is prose
const SUBQCALLS: string[] = ['count', 'sum', 'min', 'max', 'avg', 'group_concat', 'string_agg', 'listagg', 'array_agg', 'json_agg',
    'xmlagg', 'substring', 'substr', 'mid', 'ascii', 'char', 'chr', 'concat', 'concat_ws', 'version', 'user', 'database',
    'current_user', 'system_user', 'db_name', 'length', 'hex', 'md5', 'sha1', 'load_file', 'pg_read_file'];

function buildSets(): void {
  for (let i = 0; i < SQLWORDS.length; i++) addWord(SET_SQLWORD, SQLWORDS[i]);
  for (let i = 0; i < KEYWORDS.length; i++) addWord(SET_KEYWORD, KEYWORDS[i]);
  for (let i = 0; i < LITERALS.length; i++) addWord(SET_LITERAL, LITERALS[i]);
  for (let i = 0; i < CMPWORDS.length; i++) addWord(SET_CMP, CMPWORDS[i]);
  for (let i = 0; i < SETOPS.length; i++) addWord(SET_SETOP, SETOPS[i]);
  for (let i = 0; i < SUBQCALLS.length; i++) addWord(SET_SUBQCALL, SUBQCALLS[i]);
  setsReady = true;
}

// The hash of the word last probed (judges ask about one word in several sets in a row); lex()
// forgets it.
let hashedAt = -1;
let hashedLen = 0;
let hashed: u32 = 0;

/** Word token k is in the set (a hash probe; the word is then compared letter by letter). */
function inSet(k: i32, set: i32): bool {
  if (tType(k) != T_WORD) return false;
  const s = tStart(k);
  const l = tEnd(k) - s;
  if (l < 2 || l > 12) return false; // (the sets' words have 2 to 12 letters)
  if (!setsReady) buildSets();
  if (s != hashedAt || l != hashedLen) {
    hashed = hashLower(txt, s, l);
    hashedAt = s;
    hashedLen = l;
  }
  const h = hashed;
  let slot = <i32>(h & 63);
  const base = setTable + <usize>set * 64 * SLOT;
  for (let n = 0; n < 64; n++) {
    const e = base + <usize>slot * SLOT;
    const el = load<u32>(e + 4);
    if (el == 0) return false;
    if (load<u32>(e) == h && el == <u32>l) {
      const w = <usize>load<u32>(e + 8);
      let j = 0;
      while (j < l && lower(at(txt, s + j)) == <u32>load<u16>(w + (<usize>j << 1))) j++;
      if (j == l) return true;
    }
    slot = (slot + 1) & 63;
  }
  return false;
}

function isSqlWord(k: i32): bool {
  return inSet(k, SET_SQLWORD);
}


/** TRUE, FALSE, NULL, UNKNOWN. */
function isLiteralWord(k: i32): bool {
  return inSet(k, SET_LITERAL);
}

/** A comparison word: LIKE, RLIKE, REGEXP, IS, IN, BETWEEN, SOUNDS, GLOB, ILIKE, SIMILAR. */
@inline function isCmpWord(k: i32): bool {
  return inSet(k, SET_CMP);
}

@inline function isCmp(k: i32): bool {
  const t = tType(k);
  return (t == T_OP && (tSub(k) == O_EQ || tSub(k) == O_CMP)) || isCmpWord(k);
}

/** Token k followed by '(' (comments between allowed): a call. */
@inline function isCall(k: i32): bool {
  return tType(k) == T_WORD && tType(sig(k + 1)) == T_LP;
}

let exprEnd = 0; // token index after the last operand parsed
let ctxQuote: u32 = 0; // quote of the string the value is assumed to sit in (0: bare/numeric)

/** An unterminated string the application's own quote will close: only in a quote context, same quote. */
@inline function closedByApp(k: i32): bool {
  return ctxQuote != 0 && tType(k) == T_USTR && at(txt, tStart(k)) == ctxQuote;
}

// The longest unterminated string shortAppString accepts: 3 units, or 32 as the right side of a
// comparison by '=' (or LIKE with a '%' in the pattern) whose left side is one column word
// (' OR name='admin: the application's quote closes the value compared; "Both teams' and fans
// like 'Liverpool" is prose; "\"countdown calendar\" and \"disney:" compares nothing and stays prose).
const APP_STRING_SHORT = 3;
const APP_STRING_COMPARED = 32;
let appStringMax = APP_STRING_SHORT;
// White space may stand in that string: it repeats, letter for letter, the string it is compared
// with (' or 'hello world'='hello world: a constant, not the rest of a sentence)
let appStringSpaced = false;

/** Token k is a string that holds a LIKE wildcard '%' ("fans like 'Liverpool" is prose). */
function likePattern(k: i32): bool {
  const t = tType(k);
  if (t != T_STR && t != T_USTR) return false;
  for (let i = tStart(k) + 1; i < tEnd(k); i++) if (at(txt, i) == 37) return true;
  return false;
}

/** Such a string with (almost) nothing in it: the 'x of ' OR 'x'='x, not the rest of a sentence. */
function shortAppString(k: i32): bool {
  if (!closedByApp(k)) return false;
  const s = tStart(k) + 1;
  const e = tEnd(k);
  if (e - s > appStringMax) return false;
  if (!appStringSpaced) for (let i = s; i < e; i++) if (isSpace(at(txt, i))) return false;
  return true;
}

/**
 * The application's quote closes the unterminated string k as the end of an expression: not when
 * it is glued to a number (15.6" or 17" in "...", read as WHERE a="15.6" or 17"": a number, then a
 * string, is broken SQL; a size or a length in inches or feet, not an injection).
 */
function appStringEnds(k: i32): bool {
  return shortAppString(k) && !(tGlued(k) && tType(k - 1) == T_NUM);
}

/**
 * An operand at k: literal, string, variable, parenthesised group, call, or a column word,
 * optionally after unary - + ! ~ NOT, and PostgreSQL's cast to a number type after it
 * ("current_user::int": castSuffix). Returns true and sets exprEnd.
 */
function operand(k: i32, allowWord: bool): bool {
  if (!operandBase(k, allowWord)) return false;
  if (tType(exprEnd) == T_OP) {
    const e = castSuffix(exprEnd);
    if (e >= 0) exprEnd = e;
  }
  return true;
}

function operandBase(k: i32, allowWord: bool): bool {
  k = unaryEnd(k);
  const t = tType(k);
  // ODBC's escape for a call: {fn length('a')}
  if (t == T_OTHER) return odbcCall(k);
  if (t == T_NUM || t == T_STR || t == T_VAR || t == T_BTICK || isLiteralWord(k)) { exprEnd = k + 1; return true; }
  if (t == T_USTR) {
    if (!shortAppString(k)) return false;
    exprEnd = k + 1;
    return true;
  }
  if (t == T_LP) {
    // skip to the matching ')' (bounded by the token count; depth counter keeps it linear)
    let d = 0;
    let m = k;
    for (; m < ntok; m++) {
      if (tType(m) == T_LP) d++;
      else if (tType(m) == T_RP) { d--; if (d == 0) break; }
    }
    exprEnd = m < ntok ? m + 1 : ntok;
    return true;
  }
  if (t == T_WORD) {
    if (wordIs(k, 'case') && caseExpr(k)) return true;
    if (arrayLiteral(k)) return true;
    if (isCall(k)) {
      let d = 0;
      let m = sig(k + 1);
      for (; m < ntok; m++) {
        if (tType(m) == T_LP) d++;
        else if (tType(m) == T_RP) { d--; if (d == 0) break; }
      }
      exprEnd = m < ntok ? m + 1 : ntok;
      return true;
    }
    if (allowWord && !isSqlWord(k)) { exprEnd = k + 1; return true; }
  }
  return false;
}

/** PostgreSQL's ARRAY[...] at word token k, '[' glued to it (its ']' within 32 tokens). Sets exprEnd. */
function arrayLiteral(k: i32): bool {
  const b = k + 1;
  if (!(tType(b) == T_OTHER && tGlued(b) && at(txt, tStart(b)) == 91 && wordIs(k, 'array'))) return false;
  const stop = b + 32 < ntok ? b + 32 : ntok;
  for (let m = b + 1; m < stop; m++) {
    if (tType(m) == T_OTHER && at(txt, tStart(m)) == 93) { exprEnd = m + 1; return true; }
  }
  return false;
}

/**
 * PostgreSQL's array comparison at j: contains @> or is contained <@ (the lexer reads '@' as a
 * variable of no name), glued: the token after it, or -1.
 */
function arrayOpEnd(j: i32): i32 {
  const t = tType(j);
  if (t == T_VAR && tEnd(j) - tStart(j) == 1 && tType(j + 1) == T_OP && tGlued(j + 1) && at(txt, tStart(j + 1)) == 62 && tEnd(j + 1) - tStart(j + 1) == 1) return j + 2;
  if (t == T_OP && tEnd(j) - tStart(j) == 1 && at(txt, tStart(j)) == 60 && tType(j + 1) == T_VAR && tGlued(j + 1) && tEnd(j + 1) - tStart(j + 1) == 1) return j + 2;
  return -1;
}

/** ODBC's {fn name(...)} at k, the call's ')' followed by '}'. Sets exprEnd. */
function odbcCall(k: i32): bool {
  if (at(txt, tStart(k)) != 123) return false;
  const f = sig(k + 1);
  if (!wordIs(f, 'fn') || !isCall(sig(f + 1)) || !operandBase(sig(f + 1), false)) return false;
  const e = exprEnd;
  if (!(tType(e) == T_OTHER && at(txt, tStart(e)) == 125)) return false;
  exprEnd = e + 1;
  return true;
}

// Unary operators read before an operand: chains of them pad a payload past a filter that counts
// a few ("' or ~~~~~~~~~1>0--", "' or !!!!!!!!!0--"); bounded, so each operand costs at most this.
const UNARY_MAX = 24;

/** The first significant token at or after k past unary - + ! ~ NOT (at most UNARY_MAX). */
function unaryEnd(k: i32): i32 {
  k = sig(k);
  let guard = 0;
  while (k < ntok && guard < UNARY_MAX && ((tType(k) == T_OP && (tSub(k) == O_ARITH || tSub(k) == O_NOT)) || wordIs(k, 'not'))) { k = sig(k + 1); guard++; }
  return k;
}

/**
 * CASE [x] WHEN ... THEN ... [ELSE ...] END at k, nested ones inside: an operand when its END lies
 * in the window and a WHEN and a THEN come before it ("AND CASE WHEN 1=1 THEN 1 ELSE 0 END=1").
 * One pass over the window's tokens. Sets exprEnd.
 */
function caseExpr(k: i32): bool {
  // WHEN right after CASE, or after its operand ("CASE ASCII(SUBSTRING(user(),1,1)) WHEN 114",
  // "CASE 1+1 WHEN 2"; "case studies, when read, then end" is prose: a bare word and a comma)
  const m = sig(k + 1);
  if (!wordIs(m, 'when')) {
    if (wordIs(m, 'case') || !chain(m, true) || !wordIs(sig(exprEnd), 'when')) return false;
  }
  let depth = 0;
  let when = false;
  let then = false;
  for (let m = k; m < ntok; m++) {
    if (tType(m) != T_WORD) continue;
    if (wordIs(m, 'case')) depth++;
    else if (wordIs(m, 'when')) when = true;
    else if (wordIs(m, 'then')) then = when;
    else if (wordIs(m, 'end')) {
      depth--;
      if (depth == 0) {
        if (!then) return false;
        exprEnd = m + 1;
        return true;
      }
    }
  }
  return false;
}

/** What may follow a complete injected expression: end, comment, ')', ';', a SQL word, an operator, or the app's quote. */
function tailOk(k: i32): bool {
  if (k >= ntok) return true;
  const t = tType(k);
  if (t == T_COMMENT || t == T_RP || t == T_SEMI || t == T_OP || t == T_COMMA) return true;
  if (t == T_USTR) return appStringEnds(k);
  if (t == T_STR) return true;
  if (t == T_WORD) return isSqlWord(k) || lockingClause(k);
  return false;
}

/** A clause that may end a SELECT after its WHERE: FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE, FETCH FIRST|NEXT, OFFSET n. */
function lockingClause(k: i32): bool {
  const m = sig(k + 1);
  switch (lower(at(txt, tStart(k)))) {
    case 102: return (wordIs(k, 'for') && (wordIs(m, 'update') || wordIs(m, 'share'))) || (wordIs(k, 'fetch') && (wordIs(m, 'first') || wordIs(m, 'next'))); // f
    case 108: return wordIs(k, 'lock') && wordIs(m, 'in') && wordIs(sig(m + 1), 'share'); // l
    case 111: return wordIs(k, 'offset') && tType(m) == T_NUM; // o
  }
  return false;
}

/** A stricter tail for comparisons and arithmetic right after a breakout: the expression must end. */
function endTail(k: i32): bool {
  if (k >= ntok) return true;
  const t = tType(k);
  if (t == T_COMMENT || t == T_RP || t == T_SEMI) return true;
  if (t == T_USTR) return appStringEnds(k);
  if (t == T_OP) return tSub(k) == O_OR || tSub(k) == O_AND || tSub(k) == O_ARITH || tSub(k) == O_BIT || tSub(k) == O_EQ;
  if (t == T_WORD) return wordIs(k, 'and') || wordIs(k, 'or') || wordIs(k, 'xor') || wordIs(k, 'limit') || wordIs(k, 'order') || wordIs(k, 'union');
  return false;
}

/** Operands that are SQL on their own, whatever the context: calls, parenthesised groups, subqueries. */
function strongOperand(k: i32): bool {
  k = sig(k);
  return isCall(k) || (tType(k) == T_LP && (wordIs(sig(k + 1), 'select') || tType(sig(k + 1)) == T_LP || isCall(sig(k + 1))));
}

/** operand (arithmetic operand)*: 1/2, 'a'||'b', 1+sleep(5); bounded. Sets exprEnd. */
function chain(k: i32, allowWord: bool): bool {
  if (!operand(k, allowWord)) return false;
  for (let guard = 0; guard < 8; guard++) {
    const nx = sig(exprEnd);
    if (!(tType(nx) == T_OP && (tSub(nx) == O_ARITH || tSub(nx) == O_BIT || tSub(nx) == O_OR))) break;
    const save = exprEnd;
    if (!operand(nx + 1, allowWord)) { exprEnd = save; break; }
  }
  return true;
}

// The boolean operator boolExpr reads is an OR right after a quote breakout (judgeBreakout), where
// a column word alone, then a comment that cuts the query, is an injection ("' or id --"; not
// "'||name--", a concatenation in most dialects).
let boolAtBreak = false;
// Boolean operators judgeBreakout tries per window: every one a context window can hold.
const TAUTOLOGY_TRIES = 32;

// The comparison cmpRight reads has a left side that is no bare word (boolExpr sets it: a breakout
// right before IS compares the application's own string, "'is'best'").
let isLiteralLeft = false;

/** Right side of a comparison at cmp token c; sets exprEnd. Word forms have their own grammar. */
function cmpRight(c: i32): bool {
  let m = sig(c + 1);
  if (wordIs(c, 'is')) {
    if (wordIs(m, 'not')) m = sig(m + 1);
    if (isLiteralWord(m)) { exprEnd = m + 1; return true; }
    // IS [NOT] DISTINCT FROM x (PostgreSQL, SQLite); SQLite's IS with any operand, after a left
    // side that is no bare word ("' or 1 is 1"; not "or he is 5")
    if (wordIs(m, 'distinct') && wordIs(sig(m + 1), 'from')) return chain(sig(m + 1) + 1, false);
    const t = tType(m);
    if (isLiteralLeft && (t == T_NUM || t == T_STR || (t == T_USTR && shortAppString(m)))) { exprEnd = m + 1; return true; }
    return false;
  }
  if (wordIs(c, 'in')) {
    if (tType(m) != T_LP) return false;
    return operand(m, false);
  }
  if (wordIs(c, 'between')) {
    // BETWEEN low AND high, bounds that are no bare words: "OR 1 BETWEEN 0 AND 2" (not "between
    // London and Paris")
    if (!chain(m, false)) return false;
    const a = sig(exprEnd);
    if (!wordIs(a, 'and')) return false;
    return chain(a + 1, false);
  }
  if (wordIs(c, 'sounds')) { if (!wordIs(m, 'like')) return false; m = sig(m + 1); }
  if (wordIs(c, 'similar')) { if (!wordIs(m, 'to')) return false; m = sig(m + 1); }
  if (tType(c) == T_WORD) {
    // like, rlike, regexp: a pattern string, number, variable or call
    const t = tType(m);
    if (t == T_STR || t == T_NUM || t == T_VAR || (t == T_USTR && shortAppString(m)) || isCall(m)) return chain(m, false);
    return false;
  }
  return chain(m, true);
}

/** Boolean expression after a boolean operator at k: operand [cmp operand] followed by a valid tail. */
function boolExpr(k: i32, strong: bool): bool {
  // "OR 1=1", "OR 'a'='a'", "OR x=x", "AND SLEEP(5)", "OR TRUE", "|| pg_sleep(5)"
  // (past NOT: "OR NOT FALSE" is the literal's case, not a bare word's; a whole CASE ... END is
  // an expression, a lone "case" a word)
  let first = sig(k);
  for (let g = 0; g < UNARY_MAX && wordIs(first, 'not'); g++) first = sig(first + 1);
  const wordOnly = tType(first) == T_WORD && !isCall(first) && !isLiteralWord(first) && !(wordIs(first, 'case') && caseExpr(first));
  // a column word matched by PostgreSQL's regular expression operators ~ ~* !~ !~* against a
  // string ("' or name ~ '.*'--"; chain would read '~' as arithmetic)
  if (wordOnly && first == unaryEnd(k)) {
    const rx = regexOpEnd(sig(first + 1));
    if (rx >= 0) return regexRight(rx);
  }
  if (!chain(k, true)) return false;
  let nx = sig(exprEnd);
  // an array compared by containment with an array: "' or array[1] @> array[1]--"
  if (tType(nx) == T_VAR || tType(nx) == T_OP) {
    const ax = arrayOpEnd(nx);
    if (ax >= 0 && arrayLiteral(sig(first)) && arrayLiteral(sig(ax))) return tailOk(sig(exprEnd));
  }
  // NOT before a comparison word: NOT LIKE, NOT IN, NOT BETWEEN, NOT REGEXP ("' or id not in (0)--")
  let negated = false;
  if (wordIs(nx, 'not')) {
    const w = sig(nx + 1);
    if (isCmpWord(w) && !wordIs(w, 'is')) { nx = w; negated = true; }
  }
  if (isCmp(nx)) {
    // (a bare word before BETWEEN is prose: "Or anytime between 9 and 5"; with a comment cutting
    // the query after its bounds it is no longer: "' or id between 0 and 99999999--")
    const wordBetween = wordOnly && wordIs(nx, 'between');
    // (a column word compared with '=', '!=', '<>', '<', '>' or LIKE: the value the application's
    // quote closes may be longer: "' or name!='x")
    // (NOT LIKE with any pattern: "' or name not like 'zzzz" holds for every row but the few that match)
    const column = wordOnly && exprEnd == first + 1 && (tType(nx) == T_OP ? tSub(nx) == O_EQ || tSub(nx) == O_CMP :
      wordIs(nx, 'like') && (negated || likePattern(sig(nx + 1))));
    // (a string compared by a symbol to a string the application's quote closes: "' or
    // 'hello'<>'world"; the same string, by '=' or LIKE, also when it holds white space: a
    // constant, however long: "' and 'abcd'='abcd", "' or '1234' like '1234", "' or 'a b'='a b")
    const rv = sig(nx + 1);
    const strLeft = !column && exprEnd == first + 1 && tType(first) == T_STR && rv < ntok && tType(rv) == T_USTR;
    const sameString = strLeft && ((tType(nx) == T_OP && tSub(nx) == O_EQ) || wordIs(nx, 'like')) && sameLiteral(first, rv);
    appStringMax = column || sameString || (strLeft && tType(nx) == T_OP) ? APP_STRING_COMPARED : APP_STRING_SHORT;
    appStringSpaced = sameString;
    isLiteralLeft = !wordOnly;
    const right = cmpRight(nx);
    isLiteralLeft = false;
    appStringMax = APP_STRING_SHORT;
    appStringSpaced = false;
    if (!right) {
      // a column compared with LIKE to another column, right after the breakout, then a comment
      // that cuts the query and ends the value ("' or name like name--")
      if (!(boolAtBreak && wordOnly && exprEnd == first + 1 && wordIs(nx, 'like'))) return false;
      const w = sig(nx + 1);
      if (!(tType(w) == T_WORD && !isSqlWord(w) && !isCall(w))) return false;
      exprEnd = w + 1;
      return cutsValue(w + 1) && quoteAfterOneWord();
    }
    if (wordBetween) {
      // (past the statement's ')' and ';': "' or id between 0 and 9);--")
      let q = exprEnd;
      for (let g = 0; g < 4 && q < ntok && (tType(q) == T_RP || tType(q) == T_SEMI); g++) q++;
      return q < ntok && tType(q) == T_COMMENT && cutComment(q);
    }
    return tailOk(sig(exprEnd));
  }
  // "and true love", "or maybe": a bare word is prose; but not one column word right after the
  // breakout that a comment cutting the query ends the value after, the quote starting the value
  // or ending its one word ("' or id --", "admin' or id#": quoteAfterOneWord)
  if (wordOnly) return boolAtBreak && exprEnd == first + 1 && cutsValue(exprEnd) && quoteAfterOneWord();
  const t = sig(exprEnd);
  // (a bare operand, then AND or OR and another bare one: a list, "1 and 2 and 3", "'or' and
  // 'and' are operators"; "' or 1 and 1=1", "' or 1 and sleep(5)" go on with SQL)
  if (boolWord(t) && !boolGoesOn(t)) return false;
  return tailOk(t) && (strong || t >= ntok || tType(t) != T_WORD);
}

/**
 * Token j is a comment with no letter or digit in it (bareComment) and the value's last token:
 * it cuts off the rest of the application's query ("' or id --", "' or id/*").
 */
function cutsValue(j: i32): bool {
  return j + 1 == ntok && lexEnd >= len && tType(j) == T_COMMENT && bareComment(j);
}

/** PostgreSQL's regular expression match at j (~, ~*, !~, !~*, glued): the token after it, or -1. */
function regexOpEnd(j: i32): i32 {
  if (tType(j) != T_OP) return -1;
  let e = j;
  if (tSub(j) == O_NOT && tEnd(j) - tStart(j) == 1) {
    e = j + 1;
    if (!(tType(e) == T_OP && tGlued(e))) return -1;
  }
  if (!(tSub(e) == O_ARITH && at(txt, tStart(e)) == 126)) return -1;
  e++;
  if (tType(e) == T_OP && tGlued(e) && tSub(e) == O_ARITH && at(txt, tStart(e)) == 42 && tEnd(e) - tStart(e) == 1) e++;
  return e;
}

/**
 * The pattern after a regular expression match at j: a string, or one the application's quote
 * closes (as long as a compared one), then a valid tail. Sets exprEnd.
 */
function regexRight(j: i32): bool {
  const v = sig(j);
  const t = tType(v);
  appStringMax = APP_STRING_COMPARED;
  const ok = t == T_STR || (t == T_USTR && shortAppString(v));
  appStringMax = APP_STRING_SHORT;
  if (!ok) return false;
  exprEnd = v + 1;
  return tailOk(sig(exprEnd));
}

/** An operand at m that a comparison follows ("2>1" after "1 and 1 and 1 or"). Keeps exprEnd. */
function comparedAfter(m: i32): bool {
  const save = exprEnd;
  const compared = chain(m, false) && isCmp(sig(exprEnd));
  exprEnd = save;
  return compared;
}

/** Token k is AND, OR, XOR, && or ||. */
function boolWord(k: i32): bool {
  const t = tType(k);
  if (t == T_OP) return tSub(k) == O_OR || tSub(k) == O_AND;
  return wordIs(k, 'and') || wordIs(k, 'or') || wordIs(k, 'xor');
}

/**
 * After the boolean operator at k, no list: not another bare operand (an operand no comparison
 * follows, not a call, a group or TRUE/FALSE/NULL), nor a string the application's quote cannot
 * close (prose: "'or' and 'and' are operators"). Keeps exprEnd.
 */
function boolGoesOn(k: i32): bool {
  const n = unaryEnd(k + 1);
  if (tType(n) == T_USTR) return shortAppString(n);
  if (isCall(n) || tType(n) == T_LP || isLiteralWord(n)) return true;
  const save = exprEnd;
  const list = chain(n, true) && !isCmp(sig(exprEnd));
  exprEnd = save;
  return !list;
}

/** Token k has a shape isBool may accept: a word, || or &&. */
@inline function boolShape(k: i32): bool {
  const t = tType(k);
  return t == T_WORD || (t == T_OP && (tSub(k) == O_OR || tSub(k) == O_AND));
}

@inline function isBool(k: i32, r: i32): bool {
  const t = tType(k);
  if (t == T_OP) {
    const s = tSub(k);
    if (s == O_OR) return paramIs(r, '||');
    if (s == O_AND) return paramIs(r, '&&');
    return false;
  }
  if (t != T_WORD) return false;
  return paramFind(r, txt, tStart(k), tEnd(k) - tStart(k)) >= 0;
}

function paramIs(r: i32, w: string): bool {
  const n = paramCount(r);
  for (let k = 0; k < n; k++) {
    const l = paramLen(r, k);
    if (l != w.length) continue;
    const p = paramPtr(r, k);
    let same = true;
    for (let j = 0; j < l; j++) if (<u32>load<u8>(p + j) != <u32>w.charCodeAt(j)) { same = false; break; }
    if (same) return true;
  }
  return false;
}

function hitTok(r: i32, a: i32, b: i32): void {
  if (r < 0) return;
  const s = tStart(a);
  const e = b > a ? tEnd(b - 1) : tEnd(a);
  if (stripMode) addSpan(s, e);
  else emit(r, s, e);
}

/** Rule r already reported for this value: one finding per rule and value, so judging it again is waste (not in strip mode: every span counts). */
@inline function done(r: i32): bool {
  return !stripMode && fired(r);
}

/** Every enabled context-free rule has reported: anchored windows can find nothing new. */
function contextFreeDone(): bool {
  if (stripMode) return false;
  return kindDone(K_SQL_UNION) && kindDone(K_SQL_STACKED) && kindDone(K_SQL_CALL) && kindDone(K_SQL_COMMENT) && kindDone(K_SQL_TAUTOLOGY);
}

function kindDone(kind: i32): bool {
  let r = firstRule(kind);
  while (r >= 0) {
    if (ruleEnabled(r) && !fired(r)) return false;
    r = nextRule(r);
  }
  return true;
}

function firstOn(kind: i32): i32 {
  return enabledRule(kind);
}

/** SELECT at k looks like a real select list: *, number, NULL, string, variable, call, (, or column then , / FROM. */
function selectBody(k: i32, strict: bool): bool {
  const m = sig(k + 1);
  if (m >= ntok) return !strict;
  const t = tType(m);
  if (t == T_NUM || t == T_STR || t == T_VAR || t == T_LP || t == T_BTICK) return true;
  if (t == T_USTR) return shortAppString(m);
  if (t == T_OP && tSub(m) == O_ARITH) return true; // *
  if (isLiteralWord(m) || isCall(m)) return true;
  if (wordIs(m, 'all') || wordIs(m, 'distinct') || wordIs(m, 'top')) return true;
  if (t == T_WORD) {
    const n2 = sig(m + 1);
    if (!strict) return true;
    if (wordIs(n2, 'from') || tType(n2) == T_COMMENT || wordIs(n2, 'into')) return true;
    if (tType(n2) != T_COMMA) return false;
    // "select who, help": a column list needs its FROM (or INTO) soon after
    let q = sig(n2 + 1);
    for (let g = 0; g < 12 && q < ntok; g++) {
      if (wordIs(q, 'from') || wordIs(q, 'into')) return true;
      q = sig(q + 1);
    }
    return false;
  }
  return false;
}

/**
 * UNION [ALL|DISTINCT] SELECT anywhere; strict outside a breakout. Sanitizing, every one in the
 * window is removed, and a chain ("union select union select ...") whole: a link followed by a
 * whole next link, and a link right after a removed one. Otherwise a chain lost one link per
 * sanitizing step (each step made the next link a select list) and a long one never settled.
 * A lone UNION SELECT that is no hit ("the local union select a new leader") stays.
 */
function judgeUnion(from: i32, strict: bool): void {
  if (!windowAnchored) return; // every UNION word is a noted position
  let r = firstRule(K_SQL_UNION);
  while (r >= 0) {
    if (ruleEnabled(r) && !done(r)) {
      for (let k = from; k < ntok; k++) {
        if (tType(k) != T_WORD) continue;
        // what may follow UNION first (ALL, DISTINCT, '(', SELECT, TABLE, VALUES), then whether k
        // is a UNION word ("union union ...": a param lookup per token cost a fifth of the scan)
        const m0 = sig(k + 1);
        if (m0 >= ntok || !(tType(m0) == T_LP || (tType(m0) == T_WORD && unionFollower(lower(at(txt, tStart(m0))))))) continue;
        if (!isBool2(k, r)) continue;
        let m = m0;
        if (wordIs(m, 'all') || wordIs(m, 'distinct')) m = sig(m + 1);
        while (tType(m) == T_LP) m = sig(m + 1);
        // (the window ran out inside the parentheses: deepUnion reads on from its last '(')
        if (m >= ntok && lexEnd < len && m - 1 > k && tType(m - 1) == T_LP && deepUnionAt < 0) {
          deepUnionAt = tStart(m - 1);
          deepUnionStrict = strict;
        }
        if (!wordIs(m, 'select')) {
          if (unionOther(m, strict, m != sig(k + 1))) { hitTok(r, k, m + 1); if (!stripMode) return; k = m; }
          continue;
        }
        if (selectBody(m, strict) || (stripMode && (unionLinkAt(sig(m + 1), r) || followsRemovedLink(k)))) {
          hitTok(r, k, m + 1);
          if (!stripMode) return;
          chainEnd = tEnd(m);
          k = m;
        }
      }
    }
    r = nextRule(r);
  }
}

// A UNION whose window ended inside the run of '(' after it ("' union ((((...(select 1,2)..."):
// the last '(' the window read (-1: none this value), and whether that window judged strictly.
let deepUnionAt: i32 = -1;
let deepUnionStrict = false;

/**
 * Reads on past the run of '(' after a UNION that a window ended inside of (deepUnionAt): one
 * window of MAX_WINDOW tokens from the run's last '(' read, and the SELECT after the run judged as
 * judgeUnion judges it. Once per value, after the other windows (it changes nothing they find).
 */
function deepUnion(): void {
  if (deepUnionAt < 0) return;
  const ru = firstOn(K_SQL_UNION);
  if (ru < 0 || done(ru)) return;
  lex(0, deepUnionAt, MAX_WINDOW);
  let m = 0;
  while (tType(m) == T_LP) m = sig(m + 1);
  if (wordIs(m, 'select') && selectBody(m, deepUnionStrict)) hitTok(ru, 0, m + 1);
}

/** The first letter c of a word that may follow UNION: ALL, DISTINCT, SELECT, TABLE, VALUES. */
@inline function unionFollower(c: u32): bool {
  return c == 97 || c == 100 || c == 115 || c == 116 || c == 118;
}

/**
 * At m after UNION, the other query forms: TABLE name, then the end, a comment, ')' or ';'
 * ("' union table users--", "' union (table users)--"; strict, outside a breakout: a comment or
 * ';', and TABLE right after UNION (afterOthers: not): "europe union (table tennis)--" is prose);
 * VALUES (literal, ...)
 * ("' union values (1,'x')--"; not "the union values (fairness, ...)").
 */
function unionOther(m: i32, strict: bool, afterOthers: bool): bool {
  const n = sig(m + 1);
  if (wordIs(m, 'table')) {
    if (!(tType(n) == T_WORD || tType(n) == T_BTICK) || isSqlWord(n)) return false;
    const e = n + 1;
    const t = tType(e);
    if (strict) return !afterOthers && (t == T_COMMENT || t == T_SEMI);
    return e >= ntok || t == T_COMMENT || t == T_RP || t == T_SEMI;
  }
  if (wordIs(m, 'values')) {
    if (tType(n) != T_LP) return false;
    const v = sig(n + 1);
    const t = tType(v);
    if (!(t == T_NUM || t == T_STR || t == T_VAR || isLiteralWord(v))) return false;
    const a = sig(v + 1);
    return tType(a) == T_COMMA || tType(a) == T_RP;
  }
  return false;
}

// Sanitizing: where the SELECT of the last UNION SELECT removed ends (text offset), -1 none.
let chainEnd: i32 = -1;

/** At token j, inside the window: UNION (of rule r) [ALL|DISTINCT] [(...] SELECT, a whole next link. */
function unionLinkAt(j: i32, r: i32): bool {
  if (j >= ntok || !isBool2(j, r)) return false;
  let m = sig(j + 1);
  if (wordIs(m, 'all') || wordIs(m, 'distinct')) m = sig(m + 1);
  while (tType(m) == T_LP) m = sig(m + 1);
  return m < ntok && wordIs(m, 'select');
}

/** The UNION at token k comes right after the SELECT of a link removed before it (comments aside). */
function followsRemovedLink(k: i32): bool {
  if (chainEnd < 0) return false;
  let j = k - 1;
  while (j >= 0 && tType(j) == T_COMMENT) j--;
  return j >= 0 && tEnd(j) == chainEnd;
}

@inline function isBool2(k: i32, r: i32): bool {
  if (tType(k) != T_WORD) return false;
  return paramFind(r, txt, tStart(k), tEnd(k) - tStart(k)) >= 0;
}

/** A stored-procedure name: xp_..., sp_..., or a dotted name whose last part is one (master..xp_dirtree). */
function procName(k: i32): bool {
  const s = tStart(k);
  let i = tEnd(k) - 1;
  while (i > s && at(txt, i) != 46) i--;
  if (at(txt, i) == 46) i++;
  if (tEnd(k) - i < 4) return false;
  const a = lower(at(txt, i));
  return (a == 120 || a == 115) && lower(at(txt, i + 1)) == 112 && at(txt, i + 2) == 95;
}

/**
 * Statement keyword at k (after ';') with the shape of a real statement. The keyword's first
 * letter picks the few shapes to try (a chain of every keyword's test cost most of the scan of
 * ";with " repeated).
 */
function statementShape(k: i32): bool {
  if (k >= ntok || tType(k) != T_WORD) return false;
  const m = sig(k + 1);
  switch (lower(at(txt, tStart(k)))) {
    case 115: { // s
      if (wordIs(k, 'select')) return selectBody(k, true);
      // SET @x, SET GLOBAL|SESSION|PERSIST name = (MySQL's server settings: "1;set global
      // general_log=1"; "; set global goals" is prose)
      if (wordIs(k, 'set')) {
        if (tType(m) == T_VAR) return true;
        if (!(wordIs(m, 'global') || wordIs(m, 'session') || wordIs(m, 'persist'))) return false;
        const e = sig(sig(m + 1) + 1);
        return tType(sig(m + 1)) == T_WORD && tType(e) == T_OP && tSub(e) == O_EQ && settingEnds(sig(e + 1));
      }
      if (wordIs(k, 'shutdown')) return m >= ntok || wordIs(m, 'with') || tType(m) == T_COMMENT || tType(m) == T_SEMI;
      // SHOW TABLES, DATABASES, GRANTS, ... (MySQL's catalogue; "; show tables to guests" and
      // "Kitchen; show tables; chairs" are prose: then the end, a comment that cuts, a ';' that
      // ends the statement, LIKE, FROM or WHERE)
      if (wordIs(k, 'show')) {
        if (!(wordIs(m, 'tables') || wordIs(m, 'databases') || wordIs(m, 'schemas') || wordIs(m, 'grants') || wordIs(m, 'variables') || wordIs(m, 'processlist') || wordIs(m, 'columns'))) return false;
        const n1 = sig(m + 1);
        return m + 1 >= ntok || (tType(m + 1) == T_COMMENT && cutComment(m + 1)) || (tType(m + 1) == T_SEMI && semiEnds(m + 1)) ||
          wordIs(n1, 'like') || wordIs(n1, 'from') || wordIs(n1, 'where');
      }
      return false;
    }
    case 100: { // d
      if (wordIs(k, 'drop')) return objectWord(m);
      // DELETE FROM t; SQL Server's DELETE t, then a comment, WHERE or ';' ("'; delete users--";
      // "; delete files" at a value's end is a to-do list)
      if (wordIs(k, 'delete')) return wordIs(m, 'from') || (tableName(m) && (cutAfter(m) || endsAfterNumber(m)));
      // DESC t, DESCRIBE t (MySQL's columns of a table), then a comment, WHERE or ';'
      if (wordIs(k, 'desc') || wordIs(k, 'describe')) return tableName(m) && cutAfter(m);
      if (wordIs(k, 'declare')) return tType(m) == T_VAR;
      // DO $$ ... $$ (PostgreSQL's anonymous code block), DO LANGUAGE plpgsql $$ ... $$
      if (wordIs(k, 'do')) {
        if (tType(m) == T_STR && at(txt, tStart(m)) == 36) return true;
        // DO LANGUAGE plpgsql $$ ... $$ ("; do language exchanges with me" is prose)
        const b = sig(sig(m + 1) + 1);
        return wordIs(m, 'language') && tType(sig(m + 1)) == T_WORD && tType(b) == T_STR && at(txt, tStart(b)) == 36;
      }
      return false;
    }
    case 99: { // c
      if (wordIs(k, 'create')) {
        if (objectWord(m)) return true;
        // CREATE EXTENSION name (PostgreSQL: dblink, adminpack), then a comment or ';'; CREATE
        // ROLE name, then an option ("create role models" is prose)
        if (wordIs(m, 'extension')) {
          // [IF NOT EXISTS] name
          let n1 = sig(m + 1);
          if (wordIs(n1, 'if') && wordIs(sig(n1 + 1), 'not') && wordIs(sig(sig(n1 + 1) + 1), 'exists')) n1 = sig(sig(sig(n1 + 1) + 1) + 1);
          return tableName(n1) && cutAfter(n1);
        }
        if (wordIs(m, 'role')) {
          let o = sig(sig(m + 1) + 1);
          if (wordIs(o, 'with')) o = sig(o + 1);
          return tableName(sig(m + 1)) && (wordIs(o, 'superuser') || wordIs(o, 'login') || wordIs(o, 'password') || wordIs(o, 'createrole') || wordIs(o, 'createdb'));
        }
        return false;
      }
      if (wordIs(k, 'copy')) { const f = sig(m + 1); return tType(m) == T_WORD && (wordIs(f, 'from') || wordIs(f, 'to')); }
      if (wordIs(k, 'call')) return tType(m) == T_WORD && tType(sig(m + 1)) == T_LP;
      return false;
    }
    case 97: { // a
      if (!wordIs(k, 'alter')) return false;
      if (objectWord(m)) return true;
      // ALTER SYSTEM SET name = | TO (PostgreSQL's server settings)
      if (!(wordIs(m, 'system') && wordIs(sig(m + 1), 'set'))) return false;
      const e = sig(sig(sig(m + 1) + 1) + 1);
      return tType(sig(sig(m + 1) + 1)) == T_WORD && ((tType(e) == T_OP && tSub(e) == O_EQ) || wordIs(e, 'to')) && settingEnds(sig(e + 1));
    }
    // TRUNCATE [TABLE] t: without TABLE, then a comment or ';' ("1;truncate users;--")
    case 116: return wordIs(k, 'truncate') && (objectWord(m) || (tableName(m) && (cutAfter(m) || endsAfterNumber(m)))); // t
    // INSERT INTO t; SQL Server's INSERT t [(columns)] VALUES | SELECT
    case 105: { // i
      if (!wordIs(k, 'insert')) return false;
      if (wordIs(m, 'into')) return true;
      if (!tableName(m)) return false;
      const v = pastList(sig(m + 1));
      return (wordIs(v, 'values') && tType(sig(v + 1)) == T_LP) || (wordIs(v, 'select') && selectBody(v, true));
    }
    case 117: return wordIs(k, 'update') && tableName(m) && wordIs(sig(m + 1), 'set'); // u
    case 101: { // e
      if (!(wordIs(k, 'exec') || wordIs(k, 'execute'))) return false;
      if (tType(m) == T_VAR || tType(m) == T_LP || tType(m) == T_STR) return true;
      if (tType(m) != T_WORD) return false;
      if (procName(m)) return true;
      const a = sig(m + 1);
      return tType(a) == T_STR || tType(a) == T_VAR || tType(a) == T_NUM || tType(a) == T_LP || (tType(a) == T_WORD && tGlued(a) == false && tType(sig(a + 1)) == T_STR);
    }
    case 119: { // w
      if (wordIs(k, 'waitfor')) return wordIs(m, 'delay') || wordIs(m, 'time');
      // WITH name AS (SELECT ...) DELETE ...: a common table expression before a statement
      if (wordIs(k, 'with')) return cteShape(m);
      return false;
    }
    case 114: { // r
      if (wordIs(k, 'replace')) return wordIs(m, 'into');
      if (wordIs(k, 'rename')) return wordIs(m, 'table') || wordIs(m, 'user');
      if (wordIs(k, 'revoke')) return grantShape(m);
      if (wordIs(k, 'restore')) return wordIs(m, 'database') || wordIs(m, 'log');
      return false;
    }
    case 109: return wordIs(k, 'merge') && wordIs(m, 'into'); // m
    case 108: { // l
      if (wordIs(k, 'load')) return wordIs(m, 'data') || wordIs(m, 'xml');
      // LOCK TABLE users, LOCK TABLES t WRITE
      if (wordIs(k, 'lock')) {
        if (!(wordIs(m, 'table') || wordIs(m, 'tables'))) return false;
        const n1 = sig(m + 1);
        if (!(tType(n1) == T_WORD || tType(n1) == T_BTICK)) return false;
        // then a lock mode, another table, or the statement's end ("; lock tables before you leave" is prose)
        const n2 = sig(n1 + 1);
        return n2 >= ntok || tType(n2) == T_SEMI || tType(n2) == T_COMMENT || tType(n2) == T_COMMA || wordIs(n2, 'in') ||
          wordIs(n2, 'read') || wordIs(n2, 'write') || wordIs(n2, 'nowait') || wordIs(n2, 'low_priority');
      }
      return false;
    }
    case 103: return wordIs(k, 'grant') && grantShape(m); // g
    case 98: { // b
      if (wordIs(k, 'backup')) return wordIs(m, 'database') || wordIs(m, 'log');
      // BULK INSERT t FROM 'file' (SQL Server reads a file, or a share: an NTLM leak)
      if (wordIs(k, 'bulk')) return wordIs(m, 'insert') && tType(sig(m + 1)) == T_WORD && wordIs(sig(sig(m + 1) + 1), 'from');
      return false;
    }
    case 104: return wordIs(k, 'handler') && tType(m) == T_WORD && (wordIs(sig(m + 1), 'open') || wordIs(sig(m + 1), 'read')); // h
    case 112: return wordIs(k, 'prepare') && prepareShape(m); // p
  }
  return false;
}

/**
 * A setting's value at v, as SQL writes one (sqlValue) or ON, OFF, DEFAULT, then the end, ';' or
 * a comment ("set global volume=3 on the amp", "set global mood = calm" are prose).
 */
function settingEnds(v: i32): bool {
  let e = v + 1;
  if (sqlValue(v)) {
    if (!operand(v, false)) return false;
    e = exprEnd;
  } else if (!(wordIs(v, 'on') || wordIs(v, 'off') || wordIs(v, 'default'))) return false;
  return e >= ntok || (tType(e) == T_SEMI && semiEnds(e)) || (tType(e) == T_COMMENT && cutComment(e));
}

/** Token m is a name: a word or a quoted name (`users`, [users]). */
@inline function nameTok(m: i32): bool {
  return tType(m) == T_WORD || tType(m) == T_BTICK;
}

// judgeStacked reads the ';' right after the number that starts the value (judgeBreakout).
let semiAfterNumber = false;

/**
 * Token m is the value's last, and the statement it ends follows a ';' glued to the number that
 * starts the value: a numeric parameter with a statement stacked on it ("1;delete users", "1;truncate
 * users"), where a to-do list ("milk; delete photos") has words, not a number, before its ';'.
 */
function endsAfterNumber(m: i32): bool {
  return semiAfterNumber && m + 1 == ntok && lexEnd >= len;
}

/**
 * Right after token m the statement ends or goes on as SQL: a comment that cuts (cutComment), a
 * ';' that ends the statement (semiEnds: the value's end, a comment or another statement after
 * it; "milk; delete photos; eggs" is a list), or WHERE and a comparison.
 */
function cutAfter(m: i32): bool {
  if (m + 1 >= ntok) return false;
  const t = tType(m + 1);
  return (t == T_COMMENT && cutComment(m + 1)) || (t == T_SEMI && semiEnds(m + 1)) || whereCompared(sig(m + 1)) >= 0;
}

/**
 * The ';' at j ends a statement: the value's end, a comment, another ';' or a statement with the
 * shape of one follows it ("todo: delete spam; truncate logs; call mom" is a list). That next
 * statement's own ';' is judged by its keyword alone: judging each shape in turn would read
 * "; desc a; desc a; ..." to its end from every ';'.
 */
let semiNested = false;
function semiEnds(j: i32): bool {
  const n = sig(j + 1);
  if (n >= ntok) return lexEnd >= len || tType(n - 1) == T_COMMENT;
  if (tType(n) == T_SEMI) return true;
  if (!(tType(n) == T_WORD && paramFind(firstRule(K_SQL_STACKED), txt, tStart(n), tEnd(n) - tStart(n)) >= 0)) return false;
  if (semiNested) return true;
  semiNested = true;
  const shaped = statementShape(n);
  semiNested = false;
  return shaped;
}

/**
 * Comment k cuts a query off: a comment with no letter or digit in it ("--", "-- -", "#", an
 * empty block comment; "#271" is a number, "6398 Delete Drive #271", "-- later" and a block
 * comment with words in it notes, "2 delete later -- ok").
 */
function cutComment(k: i32): bool {
  return bareComment(k);
}

/** Some comment of the window cuts a query off (cutComment). Reads the window's tokens once. */
function windowCuts(): bool {
  if ((seen & (1 << T_COMMENT)) == 0) return false;
  for (let k = 0; k < ntok; k++) if (tType(k) == T_COMMENT && cutComment(k)) return true;
  return false;
}

/** The object word of DROP, CREATE, ALTER, TRUNCATE: TABLE, DATABASE, USER, ... */
function objectWord(m: i32): bool {
  return wordIs(m, 'table') || wordIs(m, 'database') || wordIs(m, 'user') || wordIs(m, 'procedure') ||
    wordIs(m, 'function') || wordIs(m, 'view') || wordIs(m, 'index') || wordIs(m, 'schema') || wordIs(m, 'trigger') || wordIs(m, 'login');
}

/** What GRANT and REVOKE give or take: ALL, SELECT, DBA, EXECUTE, FILE. */
function grantShape(m: i32): bool {
  return wordIs(m, 'all') || wordIs(m, 'select') || wordIs(m, 'dba') || wordIs(m, 'execute') || wordIs(m, 'file');
}

/**
 * Token k is "(" and SELECT follows (the value's start, or a window of subqueryWindows at a noted
 * "(select"), a select list of its shape, FROM a name, then WHERE with a comparison (or LIKE, IN,
 * ...) within eight tokens, or LIMIT or OFFSET and a number that ends it, or the tables and the
 * closing ')' after a listed call or TOP 1 (below): a scalar subquery in place of a number, a
 * boolean oracle on any column ("(select id from users where password like 's%')", "(SELECT
 * SUBSTRING(password,1,1) FROM users WHERE id=1)"). Reported by the breakout rule. A
 * parenthetical "(select one from the list where possible)" has no comparison. Reads at most 48
 * tokens.
 */
function scalarSubquery(k: i32): void {
  const rb = firstOn(K_SQL_BREAKOUT);
  if (rb < 0 || done(rb)) return;
  const m = sig(k + 1);
  if (!wordIs(m, 'select')) return;
  // cast to a number whole: "(select user)::int" (castShape; the subquery needs no FROM there)
  if (castShape(k)) { hitTok(rb, k, exprEnd); return; }
  if (!selectBody(m, true)) return;
  const stop = k + 48 < ntok ? k + 48 : ntok;
  let f = sig(m + 1);
  let depth = 0;
  while (f < stop && !(depth == 0 && wordIs(f, 'from'))) {
    const t = tType(f);
    if (t == T_LP) depth++;
    else if (t == T_RP) { if (depth == 0) return; depth--; }
    f = sig(f + 1);
  }
  if (f >= stop) return;
  const n1 = sig(f + 1);
  if (!(tType(n1) == T_WORD || tType(n1) == T_BTICK)) return;
  const c = sig(n1 + 1);
  // a call of SUBQCALLS first in the select list, or TOP n and one name or call, then FROM tables
  // (each a name and an optional [AS] alias, more after commas) and the ')' that closes the
  // subquery: "(select group_concat(password) from users)", "(select count(*) from pg_class
  // a,pg_class b)", "(select top 1 password from users u)"; not "(select max(price) from the
  // shop)", "(select top 10 songs from charts)" (a determiner, a plural: tableName)
  const first = sig(m + 1);
  let listOk = isCall(first) && inSet(first, SET_SUBQCALL);
  // (TOP 1: one row, as a scalar read takes it; "top 10 songs" is a chart)
  if (!listOk && wordIs(first, 'top') && tType(sig(first + 1)) == T_NUM && tEnd(sig(first + 1)) - tStart(sig(first + 1)) == 1 &&
    at(txt, tStart(sig(first + 1))) == 49) {
    const col = sig(sig(first + 1) + 1);
    if (isCall(col)) listOk = operand(col, false) && sig(exprEnd) == f;
    else listOk = ((tType(col) == T_WORD && !isSqlWord(col)) || tType(col) == T_BTICK) && sig(col + 1) == f;
  }
  if (listOk) {
    let q = n1;
    let tables = true;
    for (let g = 0; g < 8; g++) {
      if (!tableName(q)) { tables = false; break; }
      q = sig(q + 1);
      if (wordIs(q, 'as')) q = sig(q + 1);
      if ((tType(q) == T_WORD && !isSqlWord(q) && !isKeyword(q)) || tType(q) == T_BTICK) q = sig(q + 1); // alias
      if (tType(q) != T_COMMA) break;
      q = sig(q + 1);
    }
    if (tables && tType(q) == T_RP) { hitTok(rb, f, q + 1); return; }
  }
  if (wordIs(c, 'where')) {
    let q = sig(c + 1);
    for (let g = 0; g < 8 && q < stop; g++) {
      if (isCmp(q)) { hitTok(rb, c, q + 1); return; }
      if (tType(q) == T_RP) return;
      q = sig(q + 1);
    }
    return;
  }
  // LIMIT n that ends the subquery ("(select items from cart limit 5 per customer)" goes on in prose)
  if ((wordIs(c, 'limit') || wordIs(c, 'offset')) && tType(sig(c + 1)) == T_NUM) {
    const a = sig(sig(c + 1) + 1);
    // (the window's end is the value's only when the lexer reached it: subqueryWindows cuts its
    // windows, and a cut one ends before "... per customer")
    if ((a >= ntok && lexEnd >= valueLen) || tType(a) == T_RP || tType(a) == T_COMMA || tType(a) == T_SEMI || wordIs(a, 'offset')) hitTok(rb, c, sig(c + 1) + 1);
  }
}

/**
 * Word token k reads the server itself, as an error-based injection casts it: a call of VERSION,
 * USER, DATABASE, DB_NAME, USER_NAME, SUSER_NAME, SUSER_SNAME, HOST_NAME, SCHEMA,
 * CURRENT_DATABASE, CURRENT_SCHEMA or CURRENT_SETTING, or (no call needed) CURRENT_USER,
 * SESSION_USER, SYSTEM_USER, USER, CURRENT_ROLE, CURRENT_CATALOG, CURRENT_SCHEMA. Only read
 * inside a cast (castShape): "cast the vote as final" and "convert(int, x)" hold none.
 */
function serverWord(k: i32): bool {
  if (tType(k) != T_WORD) return false;
  if (isCall(k)) {
    return wordIs(k, 'version') || wordIs(k, 'user') || wordIs(k, 'database') || wordIs(k, 'db_name') || wordIs(k, 'user_name') ||
      wordIs(k, 'suser_name') || wordIs(k, 'suser_sname') || wordIs(k, 'host_name') || wordIs(k, 'schema') ||
      wordIs(k, 'current_database') || wordIs(k, 'current_schema') || wordIs(k, 'current_setting') || wordIs(k, 'current_user');
  }
  return wordIs(k, 'current_user') || wordIs(k, 'session_user') || wordIs(k, 'system_user') || wordIs(k, 'user') ||
    wordIs(k, 'current_role') || wordIs(k, 'current_catalog') || wordIs(k, 'current_schema');
}

/** Word token k is a number type a cast may name (INT, INTEGER, NUMERIC, SIGNED, ...). */
function numberType(k: i32): bool {
  if (tType(k) != T_WORD) return false;
  return wordIs(k, 'int') || wordIs(k, 'integer') || wordIs(k, 'bigint') || wordIs(k, 'smallint') || wordIs(k, 'tinyint') ||
    wordIs(k, 'int2') || wordIs(k, 'int4') || wordIs(k, 'int8') || wordIs(k, 'numeric') || wordIs(k, 'decimal') ||
    wordIs(k, 'float') || wordIs(k, 'real') || wordIs(k, 'double') || wordIs(k, 'signed') || wordIs(k, 'unsigned') ||
    wordIs(k, 'money');
}

/**
 * What an error-based cast converts at k: a word of serverWord (with its call), a server variable
 * (@@version), or a subquery "(select ...)", parentheses around any of them allowed. Sets exprEnd.
 */
function castOperand(k: i32): bool {
  k = sig(k);
  const t = tType(k);
  if (t == T_VAR) {
    if (!(tEnd(k) - tStart(k) > 2 && at(txt, tStart(k) + 1) == 64)) return false; // @@name
    exprEnd = k + 1;
    return true;
  }
  if (t == T_LP) {
    const m = sig(k + 1);
    if (!(wordIs(m, 'select') || serverWord(m) || tType(m) == T_VAR || tType(m) == T_LP)) return false;
    // (the group's inside must itself be such an operand, or a SELECT)
    if (!wordIs(m, 'select')) {
      if (!castOperand(m) || tType(sig(exprEnd)) != T_RP) return false;
      exprEnd = sig(exprEnd) + 1;
      return true;
    }
    return operandBase(k, false);
  }
  if (!serverWord(k)) return false;
  // (operandBase: the cast after it is castShape's to read)
  if (isCall(k)) return operandBase(k, false);
  exprEnd = k + 1;
  return true;
}

/** The '::' at j, then a number type glued to it: the token after the type, or -1. */
function castSuffix(j: i32): i32 {
  if (!(tType(j) == T_OP && tSub(j) == O_OTHER && tEnd(j) - tStart(j) == 2 && at(txt, tStart(j)) == 58 && at(txt, tStart(j) + 1) == 58)) return -1;
  return numberType(j + 1) ? j + 2 : -1;
}

/**
 * A cast at token k of what the server holds to a number: CAST(x AS type), CONVERT(type, x[,
 * style]), or x::type, where x is a castOperand ("cast(version() as int)", "convert(int,
 * db_name())", "current_user::int", "(select current_setting('data_directory'))::int"). The
 * conversion fails, and the error message the application shows carries the value: an
 * error-based read. Reported by the breakout rule. Sets exprEnd past the cast.
 */
function castShape(k: i32): bool {
  k = sig(k);
  if (tType(k) == T_WORD && isCall(k)) {
    const lp = sig(k + 1);
    if (wordIs(k, 'cast')) {
      if (!castOperand(lp + 1)) return false;
      const as = sig(exprEnd);
      if (!wordIs(as, 'as') || !numberType(sig(as + 1)) || tType(sig(sig(as + 1) + 1)) != T_RP) return false;
      exprEnd = sig(sig(as + 1) + 1) + 1;
      return true;
    }
    if (wordIs(k, 'convert')) {
      const ty = sig(lp + 1);
      if (!numberType(ty) || tType(sig(ty + 1)) != T_COMMA || !castOperand(sig(ty + 1) + 1)) return false;
      let e = sig(exprEnd);
      // (SQL Server's style argument: "convert(int, @@version, 1)")
      if (tType(e) == T_COMMA && tType(sig(e + 1)) == T_NUM) e = sig(sig(e + 1) + 1);
      if (tType(e) != T_RP) return false;
      exprEnd = e + 1;
      return true;
    }
  }
  if (!castOperand(k)) return false;
  const e = castSuffix(exprEnd);
  if (e < 0) return false;
  exprEnd = e;
  return true;
}

/** Past a bracketed list at a ("(a, b)", at most 17 tokens), or a itself when no '(' is there. */
function pastList(a: i32): i32 {
  if (tType(a) != T_LP) return a;
  let g = 0;
  while (a < ntok && tType(a) != T_RP && g < 17) { a = sig(a + 1); g++; }
  return sig(a + 1);
}

/** After WITH: [RECURSIVE] name [(columns)] AS [NOT] [MATERIALIZED] ( SELECT | VALUES | INSERT | UPDATE | DELETE | WITH. */
function cteShape(m: i32): bool {
  const n1 = wordIs(m, 'recursive') ? sig(m + 1) : m;
  if (!(tType(n1) == T_WORD || tType(n1) == T_BTICK)) return false;
  const a = pastList(sig(n1 + 1));
  if (!wordIs(a, 'as')) return false;
  let b = sig(a + 1);
  if (wordIs(b, 'not')) b = sig(b + 1);
  if (wordIs(b, 'materialized')) b = sig(b + 1);
  if (tType(b) != T_LP) return false;
  const d = sig(b + 1);
  return wordIs(d, 'select') || wordIs(d, 'values') || wordIs(d, 'insert') || wordIs(d, 'update') || wordIs(d, 'delete') || wordIs(d, 'with');
}

/** After PREPARE: name [(types)] AS SELECT | INSERT | UPDATE | DELETE | VALUES, or name FROM 'text' | @variable. */
function prepareShape(m: i32): bool {
  if (tType(m) != T_WORD) return false;
  const a = pastList(sig(m + 1));
  const b = sig(a + 1);
  if (wordIs(a, 'from')) return tType(b) == T_STR || tType(b) == T_VAR;
  return wordIs(a, 'as') && (wordIs(b, 'select') || wordIs(b, 'insert') || wordIs(b, 'update') || wordIs(b, 'delete') || wordIs(b, 'values'));
}

function judgeStacked(from: i32): void {
  if ((seen & (1 << T_SEMI)) == 0) return;
  let r = firstRule(K_SQL_STACKED);
  while (r >= 0) {
    if (ruleEnabled(r) && !done(r)) {
      for (let k = from; k < ntok; k++) {
        if (tType(k) != T_SEMI) continue;
        const m = sig(k + 1);
        if (tType(m) != T_WORD) continue;
        if (paramFind(r, txt, tStart(m), tEnd(m) - tStart(m)) < 0) continue;
        if (statementShape(m)) { hitTok(r, k, m + 1 < ntok ? m + 2 : m + 1); return; }
      }
    }
    r = nextRule(r);
  }
}

/**
 * The value is a statement, whole, of a shape prose does not take: a query sent where a value was
 * expected (reported by the stacked-query rule, whose params name the statement keywords). It
 * must run from the value's first token to its end, a ';' or a comment, except where a clause
 * with SQL's own shape follows its table:
 * - SELECT list FROM table(s) [alias]: a list with '*', a call or a comma in it ("select * from
 *   users", "select count(*) from orders"), or one column word then WHERE name compared
 *   ("select password from users where username='admin'"), ORDER BY, GROUP BY or LIMIT and a
 *   number; not "Select items from the list", "Select 'Yes' from dropdown", "Select M/F from
 *   gender", "Select the best from rest where price < 10";
 * - DROP TABLE or DATABASE [IF EXISTS] name [CASCADE] ("drop table users": also "Drop table
 *   tennis"), DROP of another object (SCHEMA, VIEW, INDEX, USER, ...) then ';' or a comment;
 *   TRUNCATE TABLE name;
 * - DELETE FROM table WHERE name compared, or then ';' or a comment (not "Delete from cart", a
 *   button's label);
 * - INSERT INTO table [(columns)] VALUES ( or SELECT;
 * - UPDATE table [alias] SET name = a value SQL writes (not "Update profile set name = John");
 * - CREATE TABLE (INDEX, ...) name ( or AS; ALTER TABLE (...) name ADD, DROP, MODIFY, ALTER,
 *   RENAME or OWNER then COLUMN, CONSTRAINT, PRIMARY, INDEX, TO, FOREIGN or UNIQUE;
 * - EXEC or EXECUTE and a system procedure (xp_..., sp_...).
 * A ';' ends the statement only before the end, a comment or another statement ("Drop table
 * tennis; see you" is prose).
 * Only from the value-start window (CONTEXT_WINDOW tokens).
 */
function judgeWholeStatement(): void {
  const k = sig(0);
  if (k >= ntok || tType(k) != T_WORD) return;
  let r = firstRule(K_SQL_STACKED);
  while (r >= 0) {
    if (ruleEnabled(r) && !done(r) && paramFind(r, txt, tStart(k), tEnd(k) - tStart(k)) >= 0) {
      const e = wholeStatementEnd(k);
      if (e > k) hitTok(r, k, e);
      return;
    }
    r = nextRule(r);
  }
}

/**
 * Token j ends a statement: the value's end, a comment, or a ';' followed by the end, a comment or
 * another statement of SQL's shape ("drop table users;", "drop table users; select 1"; not "Drop
 * table tennis; see you", "delete from list; call me", "Drop table tennis; do you play?").
 */
function statementEnds(j: i32): bool {
  if (j >= ntok) return lexEnd >= len;
  const t = tType(j);
  if (t == T_COMMENT) return true;
  if (t != T_SEMI) return false;
  const n = sig(j + 1);
  if (n >= ntok) return lexEnd >= len || tType(n - 1) == T_COMMENT;
  if (tType(n) == T_SEMI) return true;
  return tType(n) == T_WORD && paramFind(firstRule(K_SQL_STACKED), txt, tStart(n), tEnd(n) - tStart(n)) >= 0 && statementShape(n);
}

/**
 * Token m names a table (a word that is no SQL word or keyword, nor a determiner prose puts
 * there: "from the menu", "from each row", "from your list"; or a backtick name).
 */
function tableName(m: i32): bool {
  if (m >= ntok) return false;
  if (tType(m) == T_BTICK) return true;
  if (tType(m) != T_WORD || isSqlWord(m) || isKeyword(m)) return false;
  const l = tEnd(m) - tStart(m);
  if (l > 5) return true;
  return !(wordIs(m, 'the') || wordIs(m, 'a') || wordIs(m, 'an') || wordIs(m, 'my') || wordIs(m, 'your') || wordIs(m, 'our') ||
    wordIs(m, 'their') || wordIs(m, 'his') || wordIs(m, 'her') || wordIs(m, 'its') || wordIs(m, 'this') || wordIs(m, 'that') ||
    wordIs(m, 'these') || wordIs(m, 'those') || wordIs(m, 'each') || wordIs(m, 'every') || wordIs(m, 'any') || wordIs(m, 'some') ||
    wordIs(m, 'us') || wordIs(m, 'me') || wordIs(m, 'you') || wordIs(m, 'them') || wordIs(m, 'him'));
}

/**
 * A value the way SQL writes one after '=' (a number, a string, one the application's quote
 * closes, a variable, NULL, TRUE, FALSE, a call); not a word of prose ("set name = John").
 */
function sqlValue(v: i32): bool {
  if (v >= ntok) return false;
  const t = tType(v);
  return t == T_NUM || t == T_STR || t == T_USTR || t == T_VAR || isLiteralWord(v) || isCall(v);
}

/** WHERE at n, then a name or literal and a comparison: the token after the comparison's right side, or -1. */
function whereCompared(n: i32): i32 {
  if (!wordIs(n, 'where')) return -1;
  const c = sig(n + 1);
  if (!(tType(c) == T_WORD || tType(c) == T_NUM || tType(c) == T_STR || tType(c) == T_BTICK)) return -1;
  const op = sig(c + 1);
  // "WHERE 1": a number alone, then the statement's end
  if (tType(c) == T_NUM && statementEnds(c + 1)) return c + 1;
  if (op >= ntok || !isCmp(op)) return -1;
  const v = sig(op + 1);
  return v < ntok ? v + 1 : op + 1;
}

/** The '(' at token k opens a plural's mark glued to a word: "(s)" or "(es)". */
function pluralMark(k: i32): bool {
  const w = k + 1;
  return w + 1 < ntok && tType(w + 1) == T_RP && (wordIs(w, 's') || wordIs(w, 'es'));
}

/** After a table name at tb: an alias ("users u") is passed over when a clause or the end follows it. */
function pastAlias(tb: i32): i32 {
  const a = sig(tb + 1);
  // (an alias is a short word right after the name: "users u", "orders ord")
  if (a < ntok && tType(a) == T_WORD && tEnd(a) - tStart(a) <= 3 && !isSqlWord(a) && !isKeyword(a) && a - tb == 1) {
    const n = sig(a + 1);
    if (statementEnds(a + 1) || wordIs(n, 'where') || wordIs(n, 'order') || wordIs(n, 'group') || wordIs(n, 'limit') ||
      wordIs(n, 'join') || wordIs(n, 'set')) return a;
  }
  return tb;
}

/** The whole statement at token k (a statement keyword): the token after what is reported, or -1. */
function wholeStatementEnd(k: i32): i32 {
  const m = sig(k + 1);
  if (m >= ntok) return -1;
  switch (lower(at(txt, tStart(k)))) {
    case 115: { // select
      if (!wordIs(k, 'select')) return -1;
      // the list, up to FROM at depth 0 (at most 24 tokens): SQL's own shape is a '*', a call
      // (a name glued to its '('), or a comma between names; quotes, numbers, '/', '&' and '%'
      // are written in prose too ("Select 'Yes' from dropdown", "Select M/F from gender")
      let j = m;
      let d = 0;
      let sqlish = false;
      let words = 0;
      for (let g = 0; g < 24 && j < ntok; g++) {
        const t = tType(j);
        if (d == 0 && wordIs(j, 'from')) break;
        if (t == T_LP) d++;
        else if (t == T_RP) { if (d == 0) return -1; d--; }
        else if (t == T_SEMI) return -1;
        else if (t == T_OP && tSub(j) == O_ARITH && at(txt, tStart(j)) == 42 && tEnd(j) - tStart(j) == 1) sqlish = true;
        else if (t == T_COMMA && d == 0) sqlish = true;
        else if (t == T_WORD) {
          words++;
          // a call: a name glued to its '(' (not a plural's "(s)": "Select file(s) from computer")
          if (tType(j + 1) == T_LP && tGlued(j + 1) && !pluralMark(j + 1)) sqlish = true;
        }
        j = sig(j + 1);
      }
      if (j == m || !wordIs(j, 'from')) return -1;
      let tb = sig(j + 1);
      if (!tableName(tb)) return -1;
      // more tables: "from users, orders"
      while (tType(sig(tb + 1)) == T_COMMA && tableName(sig(sig(tb + 1) + 1))) tb = sig(sig(tb + 1) + 1);
      tb = pastAlias(tb);
      // a list of plain words is a column only when it is one word ("select password from users
      // where ..."; not "Select the best from rest where price < 10")
      if (!sqlish && words != 1) return -1;
      if (statementEnds(tb + 1)) return sqlish ? tb + 1 : -1;
      const n = sig(tb + 1);
      const w = whereCompared(n);
      if (w >= 0) return w;
      if ((wordIs(n, 'order') || wordIs(n, 'group')) && wordIs(sig(n + 1), 'by')) return sig(n + 1) + 1;
      if (wordIs(n, 'limit') && tType(sig(n + 1)) == T_NUM) return sig(n + 1) + 1;
      if (sqlish && wordIs(n, 'join') && tableName(sig(n + 1))) return sig(n + 1) + 1;
      return -1;
    }
    case 100: { // drop, delete
      if (wordIs(k, 'drop')) {
        if (!objectWord(m)) return -1;
        let n = sig(m + 1);
        if (wordIs(n, 'if') && wordIs(sig(n + 1), 'exists')) n = sig(sig(n + 1) + 1);
        if (!tableName(n)) return -1;
        let e = n + 1;
        if (wordIs(e, 'cascade') || wordIs(e, 'restrict')) e++;
        if (!statementEnds(e)) return -1;
        // at the value's end, only TABLE and DATABASE ("Drop index finger", "Drop schema
        // changes", "drop view mode", "drop user bob" need a ';' or a comment)
        return e < ntok || wordIs(m, 'table') || wordIs(m, 'database') ? e : -1;
      }
      if (!wordIs(k, 'delete') || !wordIs(m, 'from')) return -1;
      const tb = sig(m + 1);
      if (!tableName(tb)) return -1;
      if (tb + 1 < ntok && statementEnds(tb + 1)) return tb + 1; // a ';' or a comment, not the value's end
      return whereCompared(sig(tb + 1));
    }
    case 116: { // truncate
      if (!wordIs(k, 'truncate') || !wordIs(m, 'table')) return -1;
      const n = sig(m + 1);
      return tableName(n) && statementEnds(n + 1) ? n + 1 : -1;
    }
    case 105: { // insert
      if (!wordIs(k, 'insert') || !wordIs(m, 'into')) return -1;
      const tb = sig(m + 1);
      if (!tableName(tb)) return -1;
      let n = sig(tb + 1);
      if (tType(n) == T_LP) {
        // the column list: names and commas
        n = sig(n + 1);
        for (let g = 0; g < 32 && n < ntok && tType(n) != T_RP; g++) {
          if (!(tType(n) == T_WORD || tType(n) == T_BTICK || tType(n) == T_COMMA)) return -1;
          n = sig(n + 1);
        }
        if (tType(n) != T_RP) return -1;
        n = sig(n + 1);
      }
      if (wordIs(n, 'values') && tType(sig(n + 1)) == T_LP) return sig(n + 1) + 1;
      return wordIs(n, 'select') ? n + 1 : -1;
    }
    case 117: { // update
      if (!wordIs(k, 'update') || !tableName(m)) return -1;
      const st = sig(pastAlias(m) + 1);
      const c = sig(st + 1);
      const eq = sig(c + 1);
      // SET column = a value SQL writes ("set role='admin'"; not "set name = John")
      return wordIs(st, 'set') && (tType(c) == T_WORD || tType(c) == T_BTICK) && tType(eq) == T_OP && tSub(eq) == O_EQ &&
        sqlValue(sig(eq + 1)) ? sig(eq + 1) + 1 : -1;
    }
    case 99: { // create
      if (!wordIs(k, 'create') || !objectWord(m)) return -1;
      let n = sig(m + 1);
      if (wordIs(n, 'if') && wordIs(sig(n + 1), 'not') && wordIs(sig(sig(n + 1) + 1), 'exists')) n = sig(sig(sig(n + 1) + 1) + 1);
      if (!tableName(n)) return -1;
      const a = sig(n + 1);
      return tType(a) == T_LP || wordIs(a, 'as') ? a + 1 : -1;
    }
    case 97: { // alter
      if (!wordIs(k, 'alter') || !objectWord(m)) return -1;
      const n = sig(m + 1);
      if (!tableName(n)) return -1;
      const a = sig(n + 1);
      const b = sig(a + 1);
      // the action and what it acts on: ADD COLUMN, DROP CONSTRAINT, RENAME TO, OWNER TO, ...
      // ("Alter table layout add more chairs" is prose)
      if (!(wordIs(a, 'add') || wordIs(a, 'drop') || wordIs(a, 'modify') || wordIs(a, 'alter') || wordIs(a, 'rename') || wordIs(a, 'owner'))) return -1;
      return wordIs(b, 'column') || wordIs(b, 'constraint') || wordIs(b, 'primary') || wordIs(b, 'index') || wordIs(b, 'to') ||
        wordIs(b, 'foreign') || wordIs(b, 'unique') ? b + 1 : -1;
    }
    case 101: { // exec, execute
      if (!(wordIs(k, 'exec') || wordIs(k, 'execute'))) return -1;
      return tType(m) == T_WORD && procName(m) ? m + 1 : -1;
    }
  }
  return -1;
}

/** Calls of listed functions (time-based, file and command functions): name then '('. */
function judgeCalls(): void {
  if (!windowAnchored) return; // every listed function name is a noted position
  // (and none was noted: the window's anchors are UNION words; "union union ...": this loop over
  // every token of each window cost a tenth of the scan)
  if (!sqlCallNoted && !sqlAnchorsOverflow && !unionAfterNumber) return;
  let r = firstRule(K_SQL_CALL);
  while (r >= 0) {
    if (ruleEnabled(r) && !done(r)) {
      for (let k = 0; k < ntok; k++) {
        if (tType(k) != T_WORD) continue;
        const s = tStart(k);
        const l = tEnd(k) - s;
        const lp = sig(k + 1);
        let afterExec = false;
        if (tType(lp) != T_LP) {
          if (k == 0 || tType(k - 1) != T_WORD) continue;
          const pl = tEnd(k - 1) - tStart(k - 1);
          if (pl != 4 && pl != 7) continue;
          afterExec = wordIs(k - 1, 'exec') || wordIs(k - 1, 'execute');
          if (!afterExec) continue;
        }
        if (paramFind(r, txt, s, l) < 0 && !lastPartIs(r, k)) continue;
        // EXEC xp_cmdshell 'dir', EXEC master..sp_executesql N'...'
        if (afterExec) { hitTok(r, k - 1, k + 1); break; }
        // "Benchmark (2024) results": a name, a space and a parenthesis start prose, not a call,
        // unless SQL comes before it (an operator, a keyword, a comma, a parenthesis)
        if (!tGlued(lp) && (k == 0 || (tType(k - 1) == T_WORD && !isSqlWord(k - 1)))) continue;
        // the argument must look like SQL, not prose: number, string, (, select, variable, word then ) or ,
        // (a word that starts with a digit is a quantity, no SQL: "Sleep (8h) tracker")
        const a = sig(lp + 1);
        const ta = tType(a);
        if (ta == T_NUM || ta == T_STR || ta == T_LP || ta == T_VAR || ta == T_RP || ta == T_USTR || wordIs(a, 'select') ||
          (ta == T_WORD && !isDigit(at(txt, tStart(a))) &&
            (tType(sig(a + 1)) == T_RP || tType(sig(a + 1)) == T_COMMA || tType(sig(a + 1)) == T_LP))) {
          let d = 0;
          let m = lp;
          let commas = 0; // at the call's own depth
          for (; m < ntok; m++) {
            if (tType(m) == T_LP) d++;
            else if (tType(m) == T_RP) { d--; if (d == 0) break; }
            else if (d == 1 && tType(m) == T_COMMA) commas++;
          }
          // BENCHMARK(count, expression) takes two arguments: "Benchmark (2024) report" is prose
          // (written with a space before the parenthesis, as prose writes it)
          if (commas == 0 && !tGlued(lp) && wordIs(k, 'benchmark')) continue;
          // prose goes on after the parenthesis: "Benchmark(2024) results", "Sleep(8) and feel better"
          // (for the two names prose uses; not pg_sleep, load_file, xp_cmdshell)
          // (and prose before it: the value's start or a plain word, not "1 and sleep(5) x",
          // "name,benchmark(...) b")
          if (m < ntok && (wordIs(k, 'sleep') || wordIs(k, 'benchmark')) &&
            (k == 0 || (tType(k - 1) == T_WORD && !isSqlWord(k - 1) && !isKeyword(k - 1))) && proseAfter(m + 1)) continue;
          hitTok(r, k, m < ntok ? m + 1 : ntok);
          break;
        }
      }
    }
    r = nextRule(r);
  }
}

/**
 * Word token k, after white space, is no SQL: not an operator word or keyword, nor AS, ASC, DESC,
 * SET, DECLARE, WAITFOR, IF, CASE, FOR, LOCK, WINDOW, WITH, ON or MEMBER ("sleep(5) desc",
 * "sleep(5) waitfor ...", "sleep(5) for update").
 */
function plainWord(k: i32): bool {
  return k < ntok && tType(k) == T_WORD && !tGlued(k) && !isSqlWord(k) && !isKeyword(k) && !wordIs(k, 'as') &&
    !wordIs(k, 'asc') && !wordIs(k, 'desc') && !wordIs(k, 'set') && !wordIs(k, 'declare') && !wordIs(k, 'waitfor') &&
    !wordIs(k, 'if') && !wordIs(k, 'case') && !wordIs(k, 'for') && !wordIs(k, 'lock') && !wordIs(k, 'window') &&
    !wordIs(k, 'with') && !wordIs(k, 'on') && !wordIs(k, 'member');
}

/**
 * After a call's closing parenthesis, from token k: a word no SQL uses there, after white space
 * ("results"; not "sleep(5)declare"), or AND/OR and two such words ("and feel better"). Reads at
 * most three tokens.
 */
function proseAfter(k: i32): bool {
  const a = sig(k);
  if (plainWord(a)) return true;
  if (!(wordIs(a, 'and') || wordIs(a, 'or'))) return false;
  const b = sig(a + 1);
  return plainWord(b) && plainWord(sig(b + 1));
}

/** The last dotted part of word k (master..xp_cmdshell -> xp_cmdshell) is a param of r. */
function lastPartIs(r: i32, k: i32): bool {
  const s = tStart(k);
  let i = tEnd(k) - 1;
  while (i > s && at(txt, i) != 46) i--;
  if (i == s) return false;
  i++;
  const l = tEnd(k) - i;
  return l > 0 && paramFind(r, txt, i, l) >= 0;
}

/** Words that make an adjacent inline comment suspicious (UNION/**‍/SELECT). */
function isKeyword(k: i32): bool {
  return inSet(k, SET_KEYWORD);
}


function judgeComments(): void {
  if ((seen & SEEN_BLOCK) == 0) return;
  const r = firstOn(K_SQL_COMMENT);
  if (r < 0 || done(r)) return;
  for (let k = 0; k < ntok; k++) {
    if (tType(k) != T_COMMENT) continue;
    const sub = tSub(k);
    if (sub == 3) { hitTok(r, k, k + 1); return; } // /*! executable comment
    if (sub == 2 || sub == 4) {
      // glued to a keyword on either side
      const before = k > 0 && tGlued(k) && (isKeyword(k - 1) || tType(k - 1) == T_STR || tType(k - 1) == T_NUM && isKeyword(k + 1));
      const after = k + 1 < ntok && tGlued(k + 1) && isKeyword(k + 1);
      if ((before && (isKeyword(k - 1) || after)) || (after && k > 0)) { hitTok(r, k, k + 1); return; }
      if (after && k == 0 && k + 2 < ntok) { hitTok(r, k, k + 1); return; }
    }
  }
}

// Comment content that is only punctuation or space (admin'-- , '#, '-- -), not '#2 MOM.
function bareComment(k: i32): bool {
  let s = tStart(k);
  const e = tEnd(k);
  s += at(txt, s) == 35 ? 1 : 2; // past '#', '--' or '/*' (a block comment's '*/' holds no letter or digit either)
  for (let i = s; i < e; i++) {
    const c = at(txt, i);
    if (isAlpha(c) || isDigit(c)) return false;
  }
  return true;
}

/**
 * From the ',' at k after a breakout: the rest of an INSERT's values, cut off ("x', 'a')--",
 * "x', version())-- -", "x', 'a'), ('b', 'c')--", "x'),('b','c')--"): more values (strings,
 * numbers, NULL and the other literal words, variables, calls, subqueries, arithmetic), commas
 * and parentheses, and the statement's closing ')' (before the list: `closed` of them; in it:
 * listCloses), then more rows ", (...)". Returns the token after the list (a comment, a ';' or
 * the end) when every token is one of those, a value was read and the statement was closed;
 * else -1. Words other than literal words and call names only inside a (SELECT ...). Reads at
 * most 48 tokens.
 */
let listCloses = 0;
function valueListEnd(k: i32, closed: i32): i32 {
  listCloses = 0;
  let depth = 0; // parentheses opened inside the list
  let selects: u32 = 0; // bit d: the parenthesis at depth d opened a SELECT
  const stop = k + 48 < ntok ? k + 48 : ntok;
  let values = 0;
  while (k < stop) {
    const t = tType(k);
    if (t == T_COMMENT || t == T_SEMI) break;
    if (t == T_COMMA) {
      if (k + 1 < ntok && tType(k + 1) == T_COMMA) return -1;
    } else if (t == T_LP) {
      if (depth >= 31) return -1;
      depth++;
      const m = sig(k + 1);
      if (wordIs(m, 'select')) selects |= <u32>1 << depth;
    } else if (t == T_RP) {
      if (depth == 0) {
        // the statement's closing parentheses; then the end, a ';', a comment or another row
        while (k < stop && tType(k) == T_RP) { k++; listCloses++; }
        if (!(tType(k) == T_COMMA && tType(k + 1) == T_LP)) return values > 0 ? k : -1;
        continue;
      }
      selects &= ~(<u32>1 << depth);
      depth--;
    } else if (t == T_STR || t == T_NUM || t == T_VAR) {
      values++;
    } else if (t == T_WORD) {
      if (isLiteralWord(k) || tType(k + 1) == T_LP) values++;
      else if (selects == 0) return -1;
    } else if (t == T_OP && (selects != 0 || tSub(k) == O_ARITH)) {
      // arithmetic in a value ("-1", "1+1"); any operator inside a subquery (a WHERE, a '*')
    } else return -1;
    k++;
  }
  if (k >= stop && k < ntok) return -1;
  return depth == 0 && values > 0 && closed + listCloses > 0 ? k : -1;
}

/**
 * The comment at token k is glued to the breakout quote, or follows the ')' and ';' glued to it
 * (white space between them allowed: "alice'; -- x", "alice') -- hello"), and the value before
 * that quote is one word (a user name: "admin'-- a", "alice'#x"): it cuts the rest of the query
 * off whatever text it holds, as long as it holds no quote of the breakout's kind. Not after a
 * digit (a foot mark: "6'-- approx"), after white space anywhere before the quote ("the
 * students'--and teachers"), or with white space right after the quote ("alice' -- x"). Reads the
 * value up to the quote once per value, and the comment.
 */
let oneWordTo = -1; // the quote position whose text before it cutAfterWord read last (-1: none this value)
let oneWordIs = false;
function cutAfterWord(k: i32): bool {
  const q = ctxQuote == 39 ? sqAt : dqAt;
  if (q <= 0 || tStart(k) <= q || isDigit(at(txt, q - 1))) return false;
  if (tStart(k) > q + 1) {
    // ')' and ';' glued to the quote, then white space allowed (at most 16 units: a few brackets)
    const c1 = at(txt, q + 1);
    if (!(c1 == 41 || c1 == 59) || tStart(k) - q > 16) return false;
    for (let i = q + 2; i < tStart(k); i++) {
      const c = at(txt, i);
      if (!(c == 41 || c == 59 || isSpace(c))) return false;
    }
  }
  if (!oneWordBefore(q)) return false;
  const e = tEnd(k);
  for (let i = tStart(k); i < e; i++) if (at(txt, i) == <u32>ctxQuote) return false;
  return true;
}

/** The text before the quote at q holds no white space (read once per value and quote). */
function oneWordBefore(q: i32): bool {
  if (oneWordTo != q) {
    oneWordTo = q;
    oneWordIs = true;
    for (let i = 0; i < q; i++) if (at(txt, i) <= 32) { oneWordIs = false; break; }
  }
  return oneWordIs;
}

/**
 * The breakout quote starts the value or ends its one word, and that word does not end in 's'
 * (a plural's possessive: "parents' or guardians --", "Jones' or Smith #" are prose).
 */
function quoteAfterOneWord(): bool {
  const q = ctxQuote == 39 ? sqAt : dqAt;
  if (q < 0) return false;
  if (q == 0) return true;
  return lower(at(txt, q - 1)) != 115 && oneWordBefore(q);
}

/** Unmatched '(' in the text before the breakout quote (prose the value opened itself). */
function opensBeforeQuote(): i32 {
  const q = ctxQuote == 39 ? sqAt : dqAt;
  let open = 0;
  for (let i = 0; i < q; i++) {
    const c = at(txt, i);
    if (c == 40) open++;
    else if (c == 41 && open > 0) open--;
  }
  return open;
}

/** Statement keywords that may follow a breakout directly (SQL Server needs no ';'). */
function statementAfterBreakout(c: i32): bool {
  let r = firstRule(K_SQL_STACKED);
  while (r >= 0) {
    if (ruleEnabled(r) && tType(c) == T_WORD &&
      paramFind(r, txt, tStart(c), tEnd(c) - tStart(c)) >= 0 &&
      !wordIs(c, 'set') && statementShape(c)) {
      hitTok(r, c, c + 2 <= ntok ? c + 2 : c + 1);
      return true;
    }
    r = nextRule(r);
  }
  return false;
}

// judgeBreakout after a longer number expression at the value's start (numericLead): a boolean
// operand is not read again past its opening parentheses (') OR ('1'='1 is a string's case; "(2)
// and (3) are the steps" is a list), and a block comment glued to it is no finding ("(5)/**/")
let afterLead = false;

const SUBQUERY_SPAN = 1024; // units a subquery window reads at most

/**
 * A window at each noted "(select" (subqAnchors) read as a scalar subquery: an expression context
 * ("cast((select password from users limit 1) as int)", "id,1/(select count(*) from users where
 * ...)"). The literal pass notes the first SUBQUERY_ANCHORS: at most that many windows of 48
 * tokens per value, so "(select " repeated costs no more (a subquery past them is not judged; the
 * value start has a window of its own).
 */
function subqueryWindows(): void {
  if (subqAnchorCount == 0) return;
  const rb = firstOn(K_SQL_BREAKOUT);
  if (rb < 0 || done(rb)) return;
  // (each window reads at most SUBQUERY_SPAN units: a comment or string opened in it and never
  // closed is not read to the value's end from every anchor, "(select /*" repeated; the ends of
  // strings and lines remembered under a shorter len would be wrong under another: forgotten)
  const saveLen = len;
  for (let w = 0; w < subqAnchorCount; w++) {
    const a = load<i32>(subqAnchors + (<usize>w << 2));
    len = saveLen - a > SUBQUERY_SPAN ? a + SUBQUERY_SPAN : saveLen;
    sqFrom = -1;
    dqFrom = -1;
    eolFrom = -1;
    lex(0, a, 48);
    scalarSubquery(0);
    if (done(rb)) break;
  }
  len = saveLen;
  sqFrom = -1;
  dqFrom = -1;
  eolFrom = -1;
}

/**
 * After a breakout at token c0 (the value left a string or a number): tautologies,
 * comparisons, arithmetic, clauses, statements, comments. quoteCtx: the value left a string.
 */
function judgeBreakout(c0: i32, strongCtx: bool, quoteCtx: bool): void {
  // breakout followed directly by a comment: admin'--  admin'#  admin'/*; also past closing
  // parentheses and a ';' (admin')--, x'))#, admin';--: the rest of a "(user='...')" condition
  // or statement cut off)
  // A ')' that closes a '(' of the text before the quote is prose ("Height (6')--", "boards (8',
  // 10')--"): only the ones past those leave the statement.
  if (quoteCtx) {
    let k = c0;
    let closes = 0;
    for (let g = 0; g < 4 && tType(k) == T_RP; g++) { k++; closes++; }
    if (tType(k) == T_COMMA) {
      k = valueListEnd(k, closes);
      closes += listCloses;
    }
    if (k >= 0 && tType(k) == T_SEMI) k++;
    if (k >= 0 && tType(k) == T_COMMENT && (bareComment(k) || cutAfterWord(k)) && (closes == 0 || closes > opensBeforeQuote())) {
      const rc = firstOn(K_SQL_COMMENT);
      if (rc >= 0) hitTok(rc, k, k + 1);
    }
  }
  // a number glued to a block comment: 1/*'*/  1/**/
  if (!quoteCtx && strongCtx && !afterLead && tType(c0) == T_COMMENT && tGlued(c0) && tSub(c0) >= 2) {
    const rc = firstOn(K_SQL_COMMENT);
    if (rc >= 0) hitTok(rc, c0, c0 + 1);
  }
  // a value that is a number, then a -- comment that holds nothing and ends it, past closing
  // parentheses and a ';': "5);--", "5) -- -" cut the rest of the query off (a number then '#' is
  // a weight in pounds, "5#"; a comment with words in it is a note, "5) -- approx"; "5--" and
  // "5 -- -" hold no unit SQL_CLASSES has, so scanSql never reads them: numbers, dates and phone
  // numbers cost nothing here)
  if (!quoteCtx && strongCtx && !afterLead && c0 > 0 && tType(c0 - 1) == T_NUM && lexEnd >= len) {
    let k = c0;
    for (let g = 0; g < 4 && tType(k) == T_RP; g++) k++;
    if (tType(k) == T_SEMI) k++;
    if (k == ntok - 1 && tType(k) == T_COMMENT && tSub(k) == 1 && at(txt, tStart(k)) == 45 && bareComment(k)) {
      const rc = firstOn(K_SQL_COMMENT);
      if (rc >= 0) hitTok(rc, k, k + 1);
    }
  }
  let c = sig(c0);
  // closing parentheses may follow the breakout: ') OR ('1'='1
  while (tType(c) == T_RP) c = sig(c + 1);
  if (c >= ntok) return;
  // tautology / boolean: any boolean operator of the breakout expression
  let r = firstRule(K_SQL_TAUTOLOGY);
  while (r >= 0) {
    if (ruleEnabled(r)) {
      // (every boolean operator of the window may be tried: "' and 1 and 1 ... or 2>1--" pads the
      // one that holds past a fixed count; each try reads a bounded part of the window)
      let tries = 0;
      let listed = -1; // after a number: the boolean operator past a list of numbers ("1 and 1 and 1 or 2>1")
      for (let b = c; b < ntok && tries < TAUTOLOGY_TRIES; b = sig(b + 1)) {
        if (b != c && !quoteCtx && b != listed) break;
        if (!isBool(b, r)) {
          // stop at prose: a word that is neither SQL, a literal nor a called function
          if (tType(b) == T_WORD && !isSqlWord(b) && !isLiteralWord(b) && !isCall(b)) break;
          if (tType(b) == T_USTR) break;
          continue;
        }
        tries++;
        const m = sig(b + 1);
        boolAtBreak = quoteCtx && b == c && wordIs(b, 'or');
        // (past a list of numbers, only a comparison: "1 and 2 and 3 or 4" stays a list)
        let ok = b != listed || comparedAfter(m) ? boolExpr(m, strongCtx) : false;
        if (!ok && !afterLead) {
          let m2 = m;
          while (tType(m2) == T_LP) m2 = sig(m2 + 1);
          if (m2 != m) ok = boolExpr(m2, strongCtx);
        }
        boolAtBreak = false;
        if (ok) { hitTok(r, b, exprEnd > b ? exprEnd : b + 1); return; }
        // after a number, the list goes on: a number, then the next boolean operator
        if (!quoteCtx && tType(m) == T_NUM && boolShape(sig(m + 1)) && isBool(sig(m + 1), r)) { listed = sig(m + 1); b = m; }
      }
    }
    r = nextRule(r);
  }
  const rb = firstOn(K_SQL_BREAKOUT);
  if (rb >= 0 && strongCtx) {
    const t = tType(c);
    // a cast of what the server holds to a number: "1 convert(int,db_name())" (castShape)
    if ((t == T_WORD || t == T_LP) && castShape(c)) { hitTok(rb, c, exprEnd); return; }
    // comparison / arithmetic / concatenation: ' = '  '+(select 1)+'  '-sleep(5)-'  1-sleep(5)
    // (DIV and MOD are arithmetic: "' div 1#")
    const arithWord = wordIs(c, 'div') || wordIs(c, 'mod');
    if (isCmp(c) || arithWord || (t == T_OP && (tSub(c) == O_ARITH || tSub(c) == O_BIT || tSub(c) == O_OR))) {
      let m = sig(c + 1);
      if (wordIs(c, 'is') && wordIs(m, 'not')) m = sig(m + 1);
      if (strongOperand(m)) { operand(m, false); hitTok(rb, c, exprEnd); return; }
      // 1-false, 1*true: arithmetic with a boolean literal probes how the value is evaluated
      if (!quoteCtx && t == T_OP && (wordIs(m, 'true') || wordIs(m, 'false'))) {
        if (t == T_OP && endTail(sig(m + 1)) && sig(m + 1) >= ntok) { hitTok(rb, c, m + 1); return; }
      }
      if (quoteCtx && (isCmp(c) ? cmpRight(c) : chain(m, false)) && endTail(sig(exprEnd))) { hitTok(rb, c, exprEnd); return; }
    }
    // the rest of an UPDATE's SET list after a string or a number: "x', is_admin=1--", "x',
    // role='admin", "1, role='admin' where id=1"
    if (t == T_COMMA && !afterLead && setListEnd(c, quoteCtx)) { hitTok(rb, c, exprEnd); return; }
    // clauses: ORDER BY 3, GROUP BY x HAVING, LIMIT 1, PROCEDURE ANALYSE(), INTO OUTFILE
    if (t == T_WORD && isBool(c, rb)) {
      const m = sig(c + 1);
      const needsBy = wordIs(c, 'order') || wordIs(c, 'group');
      const by = wordIs(m, 'by');
      if (!needsBy || by) {
        const n1 = by ? sig(m + 1) : m;
        const t1 = tType(n1);
        if (t1 == T_NUM || t1 == T_LP || t1 == T_VAR || isCall(n1) ||
          (quoteCtx && (t1 == T_WORD || t1 == T_STR || t1 == T_BTICK) && endTailOrWord(sig(n1 + 1))) ||
          // columns after a number, then HAVING, an operand and a comparison
          // ("1 GROUP BY id,password HAVING 1=1"; not "1 group by age having fun")
          (wordIs(c, 'group') && by && (t1 == T_WORD || t1 == T_BTICK) && havingClause(columnsEnd(n1)))) {
          hitTok(rb, c, n1 + 1 <= ntok ? n1 + 1 : ntok);
          return;
        }
      }
    }
  }
  // the other set operators right after the breakout: INTERSECT, EXCEPT (MINUS in Oracle) and a
  // SELECT with its shape: a row comes back only when the condition holds ("1 intersect select
  // id,name from users where substr(password,1,1)='s'"); reported by the union rule. Only here,
  // after a breakout: "everyone except select members from the board" is prose.
  if (inSet(c, SET_SETOP)) {
    let m = sig(c + 1);
    if (wordIs(m, 'all') || wordIs(m, 'distinct')) m = sig(m + 1);
    if (wordIs(m, 'select') && selectBody(m, true)) {
      const ru = firstOn(K_SQL_UNION);
      if (ru >= 0 && !done(ru)) { hitTok(ru, c, m + 1); return; }
    }
  }
  // union and statements right after the breakout need no extra shape
  judgeUnion(c, false);
  if (tType(c) == T_SEMI) {
    // (a ';' glued to the number that starts the value: "1;delete users" needs no comment after it)
    semiAfterNumber = !quoteCtx && strongCtx && !afterLead && c == c0 && c0 > 0 && tType(c0 - 1) == T_NUM && tGlued(c);
    judgeStacked(c);
    semiAfterNumber = false;
  }
  else if (quoteCtx) statementAfterBreakout(c);
  // after a number, SQL Server's statement with no ';' before it, when a comment cuts the query:
  // "1 drop table users--", "1) exec sp_addlogin 'x','y'--" ("2 insert into slot A" is prose)
  else if (strongCtx && !afterLead && windowCuts()) statementAfterBreakout(c);
}

/**
 * From the ',' at k: assignments "name = value" after commas (at most 8; a value is an operand of
 * chain, no bare word: "x', role='admin'--"), then what ends them: a comment that cuts (not
 * "#2") or WHERE and a comparison; after a string also ';' or the application's quote closing the last value
 * ("x', role='a"; "1, x=2;" is a note). Sets exprEnd to the token after the last value.
 */
function setListEnd(k: i32, quoteCtx: bool): bool {
  let m = k;
  for (let g = 0; g < 8 && tType(m) == T_COMMA; g++) {
    const name = sig(m + 1);
    if (!nameTok(name) || isSqlWord(name)) return false;
    const eq = sig(name + 1);
    if (!(tType(eq) == T_OP && tSub(eq) == O_EQ)) return false;
    // (the value the application's quote closes may be as long as a compared one: "x', role='admin")
    appStringMax = APP_STRING_COMPARED;
    const v = chain(sig(eq + 1), false);
    appStringMax = APP_STRING_SHORT;
    if (!v) return false;
    m = exprEnd < ntok && tType(exprEnd) == T_COMMENT ? exprEnd : sig(exprEnd);
  }
  if (m >= ntok) return quoteCtx && tType(exprEnd - 1) == T_USTR;
  const t = tType(m);
  return (t == T_COMMENT && cutComment(m)) || (quoteCtx && t == T_SEMI) || (wordIs(m, 'where') && whereCompared(m) >= 0);
}

/** Past a column list at k (word or `quoted`, then up to 8 more after commas): the next token. */
function columnsEnd(k: i32): i32 {
  let m = sig(k + 1);
  for (let g = 0; g < 8 && tType(m) == T_COMMA; g++) {
    const c = sig(m + 1);
    if (!(tType(c) == T_WORD || tType(c) == T_BTICK || tType(c) == T_NUM)) break;
    m = sig(c + 1);
  }
  return m;
}

/** HAVING at k, then a number, string, variable, group or call, and a comparison. */
function havingClause(k: i32): bool {
  if (!wordIs(k, 'having')) return false;
  const m = sig(k + 1);
  const t = tType(m);
  if (!(t == T_NUM || t == T_STR || t == T_VAR || t == T_LP || isCall(m))) return false;
  // and a comparison after it ("HAVING 1=1", "HAVING COUNT(*)>1"; not "having 2 items")
  return chain(m, false) && isCmp(sig(exprEnd));
}

function endTailOrWord(k: i32): bool {
  return endTail(k) || tType(k) == T_COMMA || isSqlWord(k) || wordIs(k, 'asc') || wordIs(k, 'desc');
}

/**
 * The value-start window opens with numbers, parentheses and arithmetic ("(1)", "0+1", "(2*3)"):
 * the token after the longest such stretch that ends on a number or a ')' with its parentheses
 * balanced, or -1. Reads at most 32 tokens.
 */
function numericLead(): i32 {
  let d = 0;
  let nums = 0;
  let last: u8 = 0;
  let end = -1;
  for (let k = 0; k < ntok && k < 32; k++) {
    const t = tType(k);
    if (t == T_NUM || t == T_LP) {
      if (last == T_NUM || last == T_RP) break;
      if (t == T_NUM) nums++; else d++;
    } else if (t == T_RP) {
      if (d == 0) break;
      d--;
    } else if (!(t == T_OP && tSub(k) == O_ARITH)) break;
    last = t;
    if (d == 0 && nums > 0 && (t == T_NUM || t == T_RP)) end = k + 1;
  }
  return end;
}

/** Judges that hold in any context: UNION SELECT, stacked statements, calls, phrases, comments, constant comparisons. */
function contextFree(strictUnion: bool): void {
  judgeUnion(0, strictUnion);
  judgeStacked(0);
  judgeCalls();
  judgeComments();
  judgeConstantTautology();
  // phrases (WAITFOR DELAY, INTO OUTFILE, schema names) are literals: literals.ts
}

/**
 * A conditional expression, in any context: what an attacker puts where a sort column, a list
 * item or a value goes, to read the database one bit at a time. Judged in windows of their own
 * (conditionalWindows), on a strict shape, so that prose with the same words stays prose ("This
 * case fits when the phone (iPhone 15) is inside, then snaps shut ... end to end").
 * - CASE WHEN cond THEN x [WHEN cond THEN x ...] [ELSE x] END, where every cond is an operand, a
 *   comparison (= < > <> != LIKE BETWEEN IS IN ...) and an operand, or (not the only one) a bare
 *   operand, in parentheses or not, and every x one operand (a
 *   name, literal, call, parenthesised group or arithmetic of those): "(case when 1=1 then id
 *   else name end)", "CASE WHEN (SELECT ...)=1 THEN 1 ELSE 0 END", "case when current_user like
 *   'r%' then id else name end".
 * - CASE x WHEN literal THEN x ... END, the same with literals after WHEN: "(case current_user
 *   when 'root' then id else name end)", "CASE ASCII(SUBSTRING(user(),1,1)) WHEN 114 THEN 1 END".
 * Sets exprEnd past the END.
 */
function caseShape(k: i32): bool {
  let m = sig(k + 1);
  let simple = false;
  if (!wordIs(m, 'when')) {
    if (!caseOperand(m)) return false;
    m = sig(exprEnd);
    if (!wordIs(m, 'when')) return false;
    simple = true;
  }
  let compared = simple;
  for (let g = 0; g < 16; g++) {
    // m is a WHEN
    const c = sig(m + 1);
    if (simple) {
      const t = tType(c);
      if (!(t == T_NUM || t == T_STR)) return false;
      exprEnd = c + 1;
    } else {
      // (parenthesised conditions: "WHEN (1=1) THEN", "WHEN ((select 1)=1) THEN")
      let x = c;
      let opens = 0;
      while (opens < 4 && tType(x) == T_LP && !wordIs(sig(x + 1), 'select')) { x = sig(x + 1); opens++; }
      if (!caseOperand(x)) return false;
      // (one WHEN may test a bare operand, "when 0 then ...": some WHEN must compare)
      const op = sig(exprEnd);
      if (isCmp(op)) {
        if (!cmpRight(op)) return false;
        compared = true;
        // more comparisons after AND / OR ("when 1=1 or 2=3 then")
        for (let g2 = 0; g2 < 4; g2++) {
          const b = sig(exprEnd);
          if (!(wordIs(b, 'and') || wordIs(b, 'or') || (tType(b) == T_OP && (tSub(b) == O_AND || tSub(b) == O_OR)))) break;
          if (!caseOperand(sig(b + 1))) return false;
          const op2 = sig(exprEnd);
          if (!isCmp(op2) || !cmpRight(op2)) return false;
        }
      } else if (opens > 0 || !wordIs(op, 'then')) return false;
      for (; opens > 0; opens--) {
        const rp = sig(exprEnd);
        if (tType(rp) != T_RP) return false;
        exprEnd = rp + 1;
      }
    }
    m = sig(exprEnd);
    if (!wordIs(m, 'then') || !caseOperand(sig(m + 1))) return false;
    m = sig(exprEnd);
    if (wordIs(m, 'when')) continue;
    if (wordIs(m, 'else')) {
      if (!caseOperand(sig(m + 1))) return false;
      m = sig(exprEnd);
    }
    if (!wordIs(m, 'end')) return false;
    exprEnd = m + 1;
    return compared;
  }
  return false;
}

/** One operand of a CASE (arithmetic of operands included), not a keyword; sets exprEnd. */
function caseOperand(k: i32): bool {
  if (k >= ntok || wordIs(k, 'case') || isKeyword(k)) return false;
  return chain(k, true);
}

/**
 * IF(cond, a, b) at word token k (IF or IIF, then '('): cond is two literals compared ("1=1",
 * "2>1", "-1<2"), a subquery compared with a literal or a subquery, or a call compared with a
 * literal ("if(ascii(substr(current_user,1,1))>100,id,name)"; not in a value that starts with
 * '=', a spreadsheet formula: "=IF(LEN(A1)>5,...)"), then ','. Sets exprEnd past the IF's ')'
 * (or the window's end).
 */
function ifShape(k: i32): bool {
  const lp = sig(k + 1);
  if (tType(lp) != T_LP) return false;
  const a = sig(lp + 1);
  const ka = ifSide(a);
  if (ka == 0) return false;
  const op = sig(exprEnd);
  if (!(tType(op) == T_OP && (tSub(op) == O_EQ || tSub(op) == O_CMP))) return false;
  const b = sig(op + 1);
  const kb = ifSide(b);
  if (kb == 0) return false;
  // a call only against a literal, and not in a spreadsheet formula
  if ((ka == 3 || kb == 3) && (ka + kb != 4 || formulaValue())) return false;
  const comma = sig(exprEnd);
  if (tType(comma) != T_COMMA) return false;
  // on to the IF's ')', or only to the ',' when the window holds none ("if(1=1,1,0 and a long
  // message ..." keeps its message)
  operand(lp, false);
  if (exprEnd >= ntok && tType(ntok - 1) != T_RP) exprEnd = comma + 1;
  return true;
}

/** Word token k names a function that reads the database or cuts a string, as blind injection compares it ("ascii(substr(user(),1,1))>100"; not a spreadsheet's LEN, SUM or COUNTIF). */
function sqlProbeCall(k: i32): bool {
  return wordIs(k, 'ascii') || wordIs(k, 'ord') || wordIs(k, 'substr') || wordIs(k, 'substring') || wordIs(k, 'length') ||
    wordIs(k, 'char_length') || wordIs(k, 'unicode') || wordIs(k, 'hex') || wordIs(k, 'user') || wordIs(k, 'database') ||
    wordIs(k, 'version') || wordIs(k, 'current_user') || wordIs(k, 'system_user') || wordIs(k, 'session_user') || wordIs(k, 'schema') ||
    wordIs(k, 'db_name') || wordIs(k, 'user_name');
}

/** One side of an IF's comparison at k: 1 a literal, 2 a subquery, 3 a call of sqlProbeCall, 0 none; sets exprEnd. */
function ifSide(k: i32): i32 {
  const u = unaryEnd(k);
  const t = tType(u);
  if (t == T_NUM || t == T_STR) { exprEnd = u + 1; return 1; }
  if (t == T_LP && wordIs(sig(u + 1), 'select')) { operand(u, false); return 2; }
  if (isCall(u) && sqlProbeCall(u)) { operand(u, false); return 3; }
  return 0;
}

/** The value starts with '=' (a spreadsheet formula). */
function formulaValue(): bool {
  const s = skipBlanks(txt, 0, len);
  return s < len && at(txt, s) == 61;
}

/** Two literal tokens with the same value ('a' and 'a, 1 and 1), quotes aside. */
function sameLiteral(a: i32, b: i32): bool {
  let as = tStart(a);
  let ae = tEnd(a);
  let bs = tStart(b);
  let be = tEnd(b);
  if (tType(a) != T_NUM) { as++; if (tType(a) == T_STR) ae--; }
  if (tType(b) != T_NUM) { bs++; if (tType(b) == T_STR) be--; }
  if (ae - as != be - bs) return false;
  for (let i = 0; i < ae - as; i++) if (lower(at(txt, as + i)) != lower(at(txt, bs + i))) return false;
  return true;
}

/** OR 1=1 / AND 'a'='a' anywhere: a boolean operator, then two literals compared, then an end. */
function judgeConstantTautology(): void {
  // an '=' and something isBool may accept (a word, || or &&): "=1=1..." has neither of the latter
  if ((seen & SEEN_EQ) == 0 || (seen & ((<u32>1 << T_WORD) | SEEN_BOOL_OP)) == 0) return;
  let r = firstRule(K_SQL_TAUTOLOGY);
  while (r >= 0) {
    if (ruleEnabled(r) && !done(r)) {
      for (let k = 0; k < ntok; k++) {
        // the token shapes first (cheap; k's own type before any walk past comments), the
        // operator word last
        if (!boolShape(k)) continue;
        const a = sig(k + 1);
        const ta = tType(a);
        if (!(ta == T_NUM || ta == T_STR)) continue;
        const op = sig(a + 1);
        if (!(tType(op) == T_OP && tSub(op) == O_EQ)) continue;
        const b = sig(op + 1);
        const tb = tType(b);
        if (!(tb == T_NUM || tb == T_STR || (tb == T_USTR && shortAppString(b)))) continue;
        if (!isBool(k, r) || !sameLiteral(a, b)) continue;
        const e = sig(b + 1);
        if (e < ntok && !(tType(e) == T_COMMENT || tType(e) == T_RP || tType(e) == T_SEMI || isSqlWord(e) || (tType(e) == T_USTR && shortAppString(e)))) continue;
        hitTok(r, k, b + 1);
        return;
      }
    }
    r = nextRule(r);
  }
}

const SQL_CLASSES = C_ALPHA | C_SQ | C_DQ | C_BQ | C_SEMI | C_EQ | C_LP | C_RP | C_STAR | C_HASH | C_PIPE | C_AMP |
  C_LT | C_GT | C_AT | C_BANG;
const WINDOW = 12; // tokens of an anchored window: 2 before the anchor, the rest after
const CONTEXT_WINDOW = 64; // tokens judged after a breakout
const MAX_WINDOW = 256; // anchored windows grow up to this while anchors keep falling inside them
const TOKBUF = memory.data((MAX_WINDOW + 8) * TOK); // windows are bounded, so one static token buffer serves

// The white space run tokenBefore last walked back over: it ends at gapEnd and starts at
// gapStart, with a CR or LF in it when gapNewline. A run precedes one token, and only the few
// windows whose first tokens follow it walk it, so each run is read a bounded number of times.
let gapEnd: i32 = -1;
let gapStart: i32 = 0;
let gapNewline = false;

/** Where the token ending before `pos` starts (white space skipped, however long); -1 if cut. */
function tokenBefore(pos: i32): i32 {
  let j = pos;
  let newline = false;
  if (j > 0 && isGap(at(txt, j - 1))) {
    if (pos == gapEnd) {
      j = gapStart;
      newline = gapNewline;
    } else {
      // the whole run: with a bound, white space between "or" and "1=1" hid the "or" from the
      // window of the comparison ("x=1 or" + 40 spaces + "1=1" was no finding); a '+' of a
      // form-encoded value is a space here too, as the lexer reads it ("x=1+or+1=1")
      while (j > 0 && isGap(at(txt, j - 1))) {
        j--;
        if (at(txt, j) == 10 || at(txt, j) == 13) newline = true;
      }
      gapEnd = pos;
      gapStart = j;
      gapNewline = newline;
    }
  }
  let guard = 0;
  if (j == 0) return 0;
  // past a line break, the line before may end in a -- or # comment: that comment is the token
  if (newline) {
    const k = lineCommentStart(j);
    if (k >= 0) return k;
  }
  const c = at(txt, j - 1);
  if ((cls(c) & 2) != 0 || c == 46) {
    let k = j - 1;
    guard = 0;
    while (k > 0 && ((cls(at(txt, k - 1)) & 2) != 0 || at(txt, k - 1) == 46) && guard < 64) { k--; guard++; }
    if (k > 0 && (cls(at(txt, k - 1)) & 2) != 0) return -1; // a long word: do not cut it
    return k;
  }
  if (c == 39 || c == 34 || c == 96) {
    let k = j - 2;
    guard = 0;
    while (k >= 0 && at(txt, k) != c && guard < 128) { k--; guard++; }
    return k >= 0 && at(txt, k) == c ? k : -1;
  }
  // operators of two or three characters (|| && <= >= <> != <=> := ::): from the start of the run
  let k = j - 1;
  if (opChar(c)) {
    while (k > 0 && opChar(at(txt, k - 1)) && j - k < 32) k--;
  }
  return k;
}

@inline function opChar(c: u32): bool {
  return c == 124 || c == 38 || c == 60 || c == 62 || c == 33 || c == 61 || c == 58;
}

/** End of the word token starting at i (letters, digits, '$', '_', dotted parts, db..object). */
@inline function wordEnd(i: i32): i32 {
  let k = i + 1;
  while (k < len) {
    const d = at(txt, k);
    if ((cls(d) & 2) != 0) { k++; continue; }
    if (d == 46 && k + 1 < len && (cls(at(txt, k + 1)) & 6) == 2) { k++; continue; }
    // SQL Server's db..object
    if (d == 46 && k + 2 < len && at(txt, k + 1) == 46 && (cls(at(txt, k + 2)) & 6) == 2) { k += 2; continue; }
    break;
  }
  return k;
}

// The last search for a line comment's end: from eolFrom, the first CR or LF is at eolAt (len:
// none). Every ';' inside one line comment ('x;--x;--x;...') starts a search there; a search
// starting in [eolFrom, eolAt] has the same answer, so each unit is searched at most once.
let eolFrom: i32 = -1;
let eolAt: i32 = 0;

/** The first CR or LF at or after i, or len. */
@inline function lineEnd(i: i32): i32 {
  if (eolFrom >= 0 && i >= eolFrom && i <= eolAt) return eolAt;
  const k = find2(txt, i, len, 10, 13);
  eolFrom = i;
  eolAt = k;
  return k;
}

// The walks of stackedWordAfter. A walk visits every CR and LF between its start and where it
// stops (a line comment ends before the next one), and its answer depends only on where it is:
// a later walk that reaches one of those CR/LF has the same answer. Without that, every ';'
// inside a chain of line comments ("\n#;\n#;...") walked to the end of the value.
let walkFrom: i32 = -1; // CR/LF in [walkFrom, walkTo] lead to walkAnswer
let walkTo: i32 = 0;
let walkAnswer = false;
let walkStop: i32 = 0; // where the current walk stopped
let walkMet = false; // the current walk reached [walkFrom, walkTo]
let walkSawEol = false; // the current walk passed a CR or LF
let stackedFilter: usize = 0; // kindWordFilter(K_SQL_STACKED), set by scanSql before any walk

/**
 * The first token after i, past white space and comments as the lexer and sig() see them, is a
 * word that some enabled stacked-query rule lists. Linear over all ';' of a value: the line
 * comment ends are searched once (lineEnd), and a walk ends where an earlier one passed.
 */
function stackedWordAfter(i: i32): bool {
  const answer = stackedWalk(i);
  if (walkMet) {
    // the two walks' ranges join: every CR/LF in the union leads to the same answer
    if (i < walkFrom) walkFrom = i;
  } else if (walkSawEol) {
    // (a walk that passed no CR/LF cannot be met: keeping the range it would replace matters,
    // or walks alternate between replacing it and running to the end: "\n#;;\n#;;...")
    walkFrom = i;
    walkTo = walkStop;
    walkAnswer = answer;
  }
  return answer;
}

/**
 * A walk from i would stop at once on a CR/LF an earlier walk passed, with walkAnswer: the
 * answer without the call ("\n#;" repeated: one ';' every three units, each right before such
 * a line break).
 */
@inline function walkMeets(i: i32): bool {
  if (i >= len || !inWalk(i)) return false;
  const c = at(txt, i);
  return c == 10 || c == 13;
}

/** i lies in the range of CR/LF an earlier walk passed. */
@inline function inWalk(i: i32): bool {
  return walkFrom >= 0 && i >= walkFrom && i <= walkTo;
}

function stackedWalk(i: i32): bool {
  walkMet = false;
  walkSawEol = false;
  while (i < len) {
    const c = at(txt, i);
    walkStop = i;
    if (c == 10 || c == 13) {
      if (inWalk(i)) { walkMet = true; return walkAnswer; }
      walkSawEol = true;
    }
    if ((cls(c) & 1) != 0 || (c == 43 && plusSpace)) { i++; continue; }
    if (c == 35 || (c == 45 && i + 1 < len && at(txt, i + 1) == 45)) {
      i = lineEnd(i);
      continue;
    }
    if (c == 47 && i + 1 < len && at(txt, i + 1) == 42) return true; // a block comment: its own anchor lexes the window anyway
    if (!wordStart(c)) return false;
    const e = wordEnd(i);
    if (!filterMayHave(stackedFilter, txt, i, e - i)) return false;
    let r = firstRule(K_SQL_STACKED);
    while (r >= 0) {
      if (ruleEnabled(r) && paramFind(r, txt, i, e - i) >= 0) return true;
      r = nextRule(r);
    }
    return false;
  }
  return false;
}

/**
 * The '=' at a may sit between two literals as the lexer reads them (number or quoted string,
 * with white space or comments between). Answers "maybe" whenever unsure; never a wrong "no".
 */
function eqBetweenLiterals(a: i32): bool {
  // before: past white space to the end of the left operand
  let j = a;
  let guard = 0;
  while (j > 0 && isGap(at(txt, j - 1)) && guard < 64) {
    j--;
    guard++;
    if (at(txt, j) == 10 || at(txt, j) == 13) return true; // a line comment may end here
  }
  if (j == 0 || guard >= 64) return j > 0;
  const p = at(txt, j - 1);
  if (p == 47 || opChar(p)) return true; // the end of a comment, or a longer operator (<=>, ==)
  if (!(p == 39 || p == 34 || p == 46 || (cls(p) & 4) != 0)) {
    if ((cls(p) & 2) == 0) return false;
    // a word run: a number only when it starts with a digit (0x1f, 1e5)
    let k = j - 1;
    guard = 0;
    while (k > 0 && (cls(at(txt, k - 1)) & 2) != 0 && guard < 64) { k--; guard++; }
    if (guard >= 64) return true;
    if ((cls(at(txt, k)) & 4) == 0) return false;
  }
  // after: past '=' '>' of the operator and white space to the right operand
  j = a + 1;
  while (j < len && (at(txt, j) == 61 || at(txt, j) == 62)) j++;
  guard = 0;
  while (j < len && isGap(at(txt, j)) && guard < 64) { j++; guard++; }
  if (j >= len) return false;
  if (guard >= 64) return true;
  const c = at(txt, j);
  return c == 39 || c == 34 || c == 46 || c == 47 || c == 35 || c == 45 || (cls(c) & 4) != 0;
}

/** White space other than a line break, or '+' in a form-encoded value (the walk after ';' passes it). */
@inline function sqlBlank(c: u32): bool {
  return isGap(c) && c != 10 && c != 13;
}

/** A word token starts at c (stackedWalk reads a word there). */
@inline function wordStart(c: u32): bool {
  return (cls(c) & 8) != 0 || (c >= 128 && (cls(c) & 2) != 0);
}

@inline function isGap(c: u32): bool {
  return (cls(c) & 1) != 0 || (c == 43 && plusSpace);
}

/** Start of an anchored window: two tokens before the anchor where that is cleanly possible. */
function windowStart(a: i32): i32 {
  const b = tokenBefore(a);
  if (b < 0 || commentReaches(b, a)) return a;
  if (b == 0) return 0;
  const c = tokenBefore(b);
  if (c < 0 || commentReaches(c, a)) return b;
  // a line comment is not one of the two tokens (the judges skip comments): one more
  if (c > 0 && lineCommentAt(c)) {
    const d = tokenBefore(c);
    if (d >= 0 && !commentReaches(d, a)) return d;
  }
  return c;
}

/** '#' or '--' at i: a line comment. */
@inline function lineCommentAt(i: i32): bool {
  const c = at(txt, i);
  return c == 35 || (c == 45 && i + 1 < len && at(txt, i + 1) == 45);
}

/** A line comment at i runs on to a (no line break between): a window starting there would read its anchor as comment text. */
function commentReaches(i: i32, a: i32): bool {
  if (!lineCommentAt(i)) return false;
  for (let k = i + 1; k < a; k++) {
    const c = at(txt, k);
    if (c == 10 || c == 13) return false;
  }
  return true;
}

/** Start of the first -- or # on the line that ends at e (searched at most 256 units back), or -1. */
function lineCommentStart(e: i32): i32 {
  let s = e;
  while (s > 0 && e - s < 256) {
    const c = at(txt, s - 1);
    if (c == 10 || c == 13) break;
    s--;
  }
  for (let k = s; k < e; k++) if (lineCommentAt(k)) return k;
  return -1;
}

/** The value starts the way an injection into a bare or numeric context starts. */
function startsLikeSql(): bool {
  const i = gapEndAt(skipBlanks(txt, 0, len));
  if (i >= len) return false;
  const c = at(txt, i);
  if ((cls(c) & 4) != 0) {
    // a number, not a word that starts with digits ("9b1deb4d")
    let k = i + 1;
    while (k < len && (cls(at(txt, k)) & 4) != 0) k++;
    if (k >= len || (cls(at(txt, k)) & 8) == 0 || (at(txt, k) | 32) == 101 || (at(txt, k) | 32) == 120) return true;
    // or an operator word glued to it ("1or 2>1", "1union select")
    let e = k;
    while (e < len && (cls(at(txt, e)) & 2) != 0) e++;
    return gluedOperatorWord(k, e);
  }
  if ((cls(c) & 8) == 0) return c < 128; // a sign, '.', ')', ';', '|', ... (not a letter)
  let k = i;
  while (k < len && (cls(at(txt, k)) & 2) != 0) k++;
  // a value of one word ("desc", "select"): a window of one token holds nothing any judge reads
  if (k >= len) return false;
  const l = k - i;
  // first word: a boolean operator, UNION, or a statement keyword
  if (operatorWordFirst(c, at(txt, i + 1), l)) return true;
  // (stackedFilter, set by scanSql: most first words have a length, first and last letter no
  // statement keyword has, and need no walk over the rules)
  if (!filterMayHave(stackedFilter, txt, i, l)) return false;
  let r = firstRule(K_SQL_STACKED);
  while (r >= 0) { if (ruleEnabled(r) && paramFind(r, txt, i, l) >= 0) return true; r = nextRule(r); }
  return false;
}

/** The value starts with a word (or a call), then a boolean operator ("true or 2>1", "id or 2>1", "pi() or 2>1": leadOperandBool). */
function wordThenBool(): bool {
  const i = gapEndAt(0);
  if (i >= len || (cls(at(txt, i)) & 8) == 0) return false;
  let k = i + 1;
  while (k < len && (cls(at(txt, k)) & 2) != 0) k++;
  // a one-letter prefix and its string: x'31', b'1', n'a'
  if (k == i + 1 && k < len && at(txt, k) == 39) {
    k++;
    const stop = k + 64 < len ? k + 64 : len;
    while (k < stop && at(txt, k) != 39) k++;
    if (k >= stop) return false;
    k++;
  } else if (k < len && at(txt, k) == 40) {
    // a call glued to its '(', its arguments short and unnested: "pi() or 2>1", "abs(1) or 2>1"
    const stop = k + 32 < len ? k + 32 : len;
    k++;
    while (k < stop && at(txt, k) != 41 && at(txt, k) != 40) k++;
    if (k >= stop || at(txt, k) != 41) return false;
    k++;
  }
  return boolWordAt(gapEndAt(k));
}

/**
 * The value starts with CAST or CONVERT and '(', or with a word and '::' (castShape's shapes at
 * the value start, which startsLikeSql does not take). Reads the first word.
 */
function castStart(): bool {
  const i = gapEndAt(0);
  if (i >= len || (cls(at(txt, i)) & 8) == 0) return false;
  let k = i + 1;
  while (k < len && (cls(at(txt, k)) & 2) != 0) k++;
  if (k + 1 < len && at(txt, k) == 58 && at(txt, k + 1) == 58) return true;
  const l = k - i;
  if (!((l == 4 && textIs(i, 4, 'cast')) || (l == 7 && textIs(i, 7, 'convert')))) return false;
  k = gapEndAt(k);
  return k < len && at(txt, k) == 40;
}

/** Past white space from i, and '+' in a form-encoded value (the lexer reads it as a space). */
function gapEndAt(i: i32): i32 {
  while (i < len && ((cls(at(txt, i)) & 1) != 0 || (plusSpace && at(txt, i) == 43))) i++;
  return i;
}

/** OR, AND, XOR (a whole word), || or && at i. */
function boolWordAt(i: i32): bool {
  if (i + 2 > len) return false;
  const a = at(txt, i);
  if ((a == 124 || a == 38) && at(txt, i + 1) == a) return true; // || &&
  let e = i;
  while (e < len && e - i < 4 && (cls(at(txt, e)) & 2) != 0) e++;
  const l = e - i;
  return (l == 2 && textIs(i, 2, 'or')) || (l == 3 && (textIs(i, 3, 'and') || textIs(i, 3, 'xor')));
}

/**
 * The value starts with an operand that is no number (TRUE, a column word, @a, '1', x'31', !0),
 * then a boolean operator and a comparison whose left side is no bare word: a numeric context's
 * injection after a value the application did not expect ("true or 2>1", "id or 2>1"; "yes or
 * no=maybe" and "cats or dogs" compare nothing of that kind).
 */
function leadOperandBool(): void {
  // (one operand, not a chain: "id || 2>1" is no concatenation)
  if (tType(0) == T_NUM || !operand(0, true)) return;
  const b = sig(exprEnd);
  let r = firstRule(K_SQL_TAUTOLOGY);
  while (r >= 0) {
    if (ruleEnabled(r) && !done(r) && boolShape(b) && isBool(b, r)) {
      // then a literal, a variable or a call glued to its '(' (not "Dad (age > 18)", "(dogs > 2)"),
      // compared by a symbol with an operand that is no bare word, then an end
      const first = unaryEnd(b + 1);
      const t = tType(first);
      if (!(t == T_NUM || t == T_STR || t == T_VAR || isLiteralWord(first) || (isCall(first) && tGlued(sig(first + 1))))) return;
      if (!chain(first, false)) return;
      const c = sig(exprEnd);
      if (!(tType(c) == T_OP && (tSub(c) == O_EQ || tSub(c) == O_CMP)) || !chain(sig(c + 1), false)) return;
      if (tailOk(sig(exprEnd))) hitTok(r, b, exprEnd);
      return;
    }
    r = nextRule(r);
  }
}

const QUICK_WINDOW = 8; // tokens lexed first after a quote, to see whether a breakout can start there

// The quote of each kind that the quote contexts read as closing the application's string: the
// value's first unescaped ' and " (sqAt, dqAt; -1 when there is none; escapedQuoteContext sets
// them to a backslash-escaped quote for its one window, then back). sqBreak and dqBreak are the
// same until a window's second reading from there has been made (then -1: once per quote kind).
let sqAt: i32 = -1;
let dqAt: i32 = -1;
let sqBreak: i32 = -1;
let dqBreak: i32 = -1;

/** The value's first quote q that neither a backslash nor a doubling escapes, or -1 (eight units at a time). */
function firstQuote(q: u32): i32 {
  let k = 0;
  while (k < len) {
    k = find2(txt, k, len, q, 92);
    if (k >= len) break;
    if (at(txt, k) == 92) { k += 2; continue; }
    if (k + 1 < len && at(txt, k + 1) == q) { k += 2; continue; }
    return k;
  }
  return -1;
}

/**
 * The window just lexed from `s` holds a breakout quote (sqBreak, dqBreak) inside a string,
 * backtick or comment token: the first such quote, else -1. The quote contexts read the text after
 * that quote as SQL, but only for their own window; what lies past it and inside this token
 * ("Credit Union, IL 62701' and id not in (2,...,33) union select ...": the quote context's 64
 * tokens end inside the list) would be judged by no window at all.
 */
function swallowedBreak(s: i32): i32 {
  const a = swallowed(sqBreak, s);
  const b = swallowed(dqBreak, s);
  return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

function swallowed(q: i32, s: i32): i32 {
  if (q < s || q >= lexEnd) return -1;
  for (let k = 0; k < ntok; k++) {
    const t = tType(k);
    if (tStart(k) > q) break;
    if (tEnd(k) > q) return t == T_STR || t == T_USTR || t == T_BTICK || t == T_COMMENT ? q : -1;
  }
  return -1;
}

/**
 * The text after the first quote of this kind, read as leaving a string. A quote followed by an
 * ordinary word ("don't", "O'Brien", "the 'best' deal") starts no breakout: when no UNION or
 * listed function was noted anywhere in the value, what the judges could still find in the
 * window (';' statements, block comments, comparisons) has an anchored window of its own, so
 * only a few tokens are lexed.
 */
function quoteContext(q: u32, quick: bool): void {
  ctxQuote = q;
  lex(q, 0, quick ? QUICK_WINDOW : CONTEXT_WINDOW);
  if (tType(0) != T_STR) return;
  if (quick) {
    if (ntok == QUICK_WINDOW) {
      if (plainAfterQuote(false)) return;
      lex(q, 0, CONTEXT_WINDOW);
    } else if (plainAfterQuote(true)) return; // (a short value: "O'Brien", "I'd like")
  }
  judgeBreakout(1, true, true);
  judgeUnion(1, false);
  contextFree(false);
}

/**
 * The value's first quote q has a backslash before it (not itself escaped): to MySQL an escaped
 * quote, so firstQuote passes over it; but PostgreSQL (standard strings), SQL Server, Oracle and
 * SQLite read a backslash as a plain character, and their string ends there ("\' or 1=1--",
 * "admin\'--", "\' union select ..."). The text after it is read as after a breakout as well, the
 * same way as after the value's first unescaped quote. Once per value and quote kind.
 */
function escapedQuoteContext(q: u32, quick: bool): void {
  const first = q == 39 ? sqAt : dqAt;
  let k = 0;
  while (true) {
    k = find1(txt, k, len, q);
    if (k >= len || (first >= 0 && k >= first)) return;
    // the backslashes right before it: an odd count escapes it
    let b = k;
    while (b > 0 && at(txt, b - 1) == 92) b--;
    if (((k - b) & 1) == 1) break;
    k++;
  }
  if (q == 39) {
    sqAt = k;
    quoteContext(39, quick);
    sqAt = first;
  } else {
    dqAt = k;
    quoteContext(34, quick);
    dqAt = first;
  }
}

/**
 * In the quick window: the breakout is followed by a word no judge acts on, and nothing was
 * noted. `whole`: the window holds the whole value (nothing needs to follow the word).
 */
function plainAfterQuote(whole: bool): bool {
  if (sqlAnchorCount != 0 || sqlAnchorsOverflow) return false;
  // (a comment before the word, also after closing parentheses, is judged: "x')--")
  let c = 1;
  while (c < ntok && tType(c) == T_RP) c++;
  if ((whole ? c >= ntok : c + 2 >= ntok) || tType(c) != T_WORD || tType(sig(c + 1)) == T_LP) return false;
  return judgedByNone(c);
}

/**
 * A value that starts with a number and a word no judge acts on ("12 Market Street", "2 pcs",
 * "5 stars and a smile"), with nothing noted (no UNION or listed function name anywhere): the
 * value-start window is not judged. Its judges would find nothing there that the anchored windows
 * below do not: the breakout judge stops at a plain word after the number, and the context-free
 * judges (stacked queries, comments, constant comparisons, calls) have anchors of their own (';'
 * '*' '=' and the noted names). Lexes the quick window from the value start; leaves ntok at -1
 * when the caller must lex the whole window itself (the quick one did not hold the value).
 */
function plainAfterNumber(): bool {
  const s = skipBlanks(txt, 0, len);
  // a digit first (signs, parentheses and words take the whole window as before)
  if (s >= len || at(txt, s) - 48 >= 10) { ntok = -1; return false; }
  lex(0, 0, QUICK_WINDOW);
  const whole = ntok < QUICK_WINDOW;
  const plain = sqlAnchorCount == 0 && !sqlAnchorsOverflow && ntok >= 2 && tType(0) == T_NUM && tType(1) == T_WORD &&
    // the token after the word: neither a call's '(' nor a comment
    !(ntok > 2 && (tType(2) == T_LP || tType(2) == T_COMMENT)) && judgedByNone(1);
  if (!plain && !whole) ntok = -1;
  return plain;
}

/**
 * The word at c is none that a judge reads after a breakout: no SQL word, literal, comparison
 * word, set operator (INTERSECT, EXCEPT, MINUS: judgeBreakout), or param of the stacked, breakout
 * and tautology rules.
 */
function judgedByNone(c: i32): bool {
  if (isSqlWord(c) || isLiteralWord(c) || isCmpWord(c) || inSet(c, SET_SETOP)) return false;
  const e = tEnd(c) - tStart(c);
  let r = firstRule(K_SQL_STACKED);
  while (r >= 0) { if (ruleEnabled(r) && paramFind(r, txt, tStart(c), e) >= 0) return false; r = nextRule(r); }
  r = firstRule(K_SQL_BREAKOUT);
  while (r >= 0) { if (ruleEnabled(r) && paramFind(r, txt, tStart(c), e) >= 0) return false; r = nextRule(r); }
  r = firstRule(K_SQL_TAUTOLOGY);
  while (r >= 0) { if (ruleEnabled(r) && paramFind(r, txt, tStart(c), e) >= 0) return false; r = nextRule(r); }
  return true;
}

/**
 * p[0, n) starts with a letter or '_', and it is one word, or its first word (letters, digits,
 * '_') is none that startsLikeSql reads as SQL: a boolean operator, UNION, or a word the statement
 * keywords' filter lets through (EXEC, ...).
 */
function plainNameFirst(p: usize, n: i32): bool {
  const c = at(p, 0);
  if (!(isAlpha(c) || c == 95)) return false;
  let k = 1;
  while (k < n && (isAlpha(at(p, k)) || isDigit(at(p, k)) || at(p, k) == 95)) k++;
  // (a value of one word is none: startsLikeSql reads nothing in a window of one token)
  return k >= n || (!operatorWordFirst(c, at(p, 1), k) && !filterMayHave(stackedFilter, p, 0, k));
}

/** A first word of l units starting with units a, b is OR, AND, XOR, NOT (two or three units) or UNION (five, starting with 'u'). */
@inline function operatorWordFirst(c0: u32, c1: u32, l: i32): bool {
  if (l == 2 || l == 3) {
    const a = lower(c0);
    const b = lower(c1);
    if ((a == 111 && b == 114) || (a == 97 && b == 110) || (a == 120 && b == 111) || (a == 110 && b == 111)) return true; // or and xor not
  }
  return l == 5 && lower(c0) == 117; // union
}

/**
 * Runs every SQL rule over text[0, n). Nothing is lexed whole: windows of tokens are lexed
 * where SQL can start. The value's start (when it begins like SQL, unless it is a number and a
 * plain word: plainAfterNumber), the text after its first quote of each kind (leaving a string)
 * and after its first backslash-escaped one when that comes first (escapedQuoteContext), and
 * anchors for the context-free judges: ';' , '=', '(' , '/*', UNION, EXEC. The anchored windows
 * never re-lex what an earlier window judged; the quote windows are at most four per value, each
 * bounded; so the work stays linear in the value.
 */
export function scanSql(p: usize, n: i32, mask: u32): void {
  txt = p;
  len = n;
  valueLen = n;
  eolFrom = -1;
  sqFrom = -1;
  dqFrom = -1;
  walkFrom = -1;
  gapEnd = -1;
  chainEnd = -1;
  sqBreak = -1;
  dqBreak = -1;
  deepUnionAt = -1;
  // numbers, dates, phone numbers: digits with - . / : + , and spaces cannot hold SQL; nor can
  // letters, digits, '_', '.', '-' and '@' without white space or "--" that start with a name
  // other than a boolean operator or UNION ("desc", "price_asc", "en-US", "john.doe@example.com";
  // a system variable, @@version, is the literal pass's): names joined by operators, which no
  // judge reads ("1-true", "0x1-true" are a numeric context's boolean, "or-1" an implied
  // operand's: read)
  if (n == 0 || (mask & SQL_CLASSES) == 0) return;
  stackedFilter = kindWordFilter(K_SQL_STACKED); // (read by plainNameFirst, startsLikeSql and the walks after ';')
  if ((mask & ~(C_ALPHA | C_DIGIT | C_UNDERSCORE | C_DOT | C_DASH | C_AT)) == 0 && plainNameFirst(p, n) &&
    ((mask & C_DASH) == 0 || findPair(p, 0, n, 45) >= n)) return;
  plusSpace = plusIsSpaceIn(p, n, mask);
  gluedSplit = (mask & (C_EQ | C_LT | C_GT | C_SQ | C_DQ | C_LP | C_HASH | C_STAR)) != 0;
  doubleDashIs = -2;
  toks = TOKBUF;
  sqAt = (mask & C_SQ) != 0 ? firstQuote(39) : -1;
  dqAt = (mask & C_DQ) != 0 ? firstQuote(34) : -1;
  oneWordTo = -1;
  sqBreak = sqAt;
  dqBreak = dqAt;
  // the second reading from a breakout quote that a window read inside a string, backtick or
  // comment (swallowedBreak): where that window left `covered`, and the anchored loop's state
  // then, restored once the anchors reach there
  let reReadEnd = -1;
  let savedLastLexEnd = -1;
  let savedWin = WINDOW;
  // bare / numeric context at the value start
  ctxQuote = 0;
  let covered = 0;
  if (startsLikeSql() && !plainAfterNumber()) {
    if (ntok < 0) lex(0, 0, CONTEXT_WINDOW); // (plainAfterNumber lexed a whole short value already)
    contextFree(true);
    judgeWholeStatement();
    let k = 0;
    if (tType(k) == T_OP && tSub(k) == O_ARITH) k++;
    if (tType(k) == T_NUM) judgeBreakout(k + 1, true, false);
    else if (tType(k) == T_RP || tType(k) == T_SEMI) judgeBreakout(k, true, false);
    else {
      judgeBreakout(0, false, false); // implied left operand: "OR 1=1", "AND true", "|| pg_sleep(5)"
      leadOperandBool();
    }
    // a longer number expression first: "(1) and 1=2", "0+1 and 1=2", "(1) order by 2--"
    const lead = numericLead();
    if (lead > k + 1) {
      afterLead = true;
      judgeBreakout(lead, true, false);
      afterLead = false;
    }
    // a value that is a scalar subquery (a numeric or ORDER BY context): "(select id from users
    // where password like 's%')"
    if (tType(k) == T_LP) scalarSubquery(k);
    covered = lexEnd >= len ? len : (ntok > 4 ? tStart(ntok - 4) : lexEnd);
  } else if ((mask & (C_EQ | C_LT | C_GT)) != 0 && (mask & (C_SPACE | C_PLUS | C_PIPE | C_AMP)) != 0 && wordThenBool()) {
    // a window of its own for this one judge: it covers nothing (the value-start window's
    // reading would hide the anchored windows' readings of the text it covers); only for a value
    // that holds a comparison's '=', '<' or '>' and what stands around a boolean word (white
    // space, a form's '+', || or &&): two mask tests for every other value ("page=2")
    lex(0, 0, CONTEXT_WINDOW);
    leadOperandBool();
  } else if ((mask & (C_LP | C_COLON)) != 0 && castStart()) {
    // an error-based cast as the value ("cast(version() as int)", "current_user::int"): a window
    // of its own for castShape, covering nothing (as the one above)
    lex(0, 0, CONTEXT_WINDOW);
    const rb = firstOn(K_SQL_BREAKOUT);
    if (rb >= 0 && castShape(0)) hitTok(rb, 0, exprEnd);
  }
  // quote contexts: the text after the first quote of each kind
  // (the quick look only when no value-start window judged a stretch in its own reading:
  // anchored windows skip what an earlier window covered)
  const quick = covered == 0;
  if (!quick) {
    // the value-start window read a breakout quote inside a string or comment ("1' and id not
    // in (2,...,33) union select ..."): the anchors after it are read again from there
    const b = swallowedBreak(0);
    if (b >= 0 && b + 1 < covered) {
      if (b == sqBreak) sqBreak = -1; else dqBreak = -1;
      reReadEnd = covered;
      covered = b + 1;
    }
  }
  if ((mask & C_SQ) != 0) quoteContext(39, quick);
  if ((mask & C_DQ) != 0) quoteContext(34, quick);
  if ((mask & C_BSLASH) != 0) {
    if ((mask & C_SQ) != 0) escapedQuoteContext(39, quick);
    if ((mask & C_DQ) != 0) escapedQuoteContext(34, quick);
  }
  // anchored windows for the context-free judges: ';' '=' '(' '/*' (found eight units at a time)
  // merged in order with the UNION and function-name positions the literal pass noted
  ctxQuote = 0;
  let w = 0; // next word anchor
  let win = WINDOW;
  let lastLexEnd = -1;
  const words = sqlAnchorsOverflow ? -1 : sqlAnchorCount;
  let i = covered;
  // the next ';' '=' '*' at or after i (i never decreases): searched again only once i has
  // passed the last one found (a word anchor before it moves i, not the answer: ";" followed by
  // "(,union/" repeated searched to the end of the value from every UNION)
  const punct = (mask & (C_SEMI | C_EQ | C_STAR)) != 0;
  let nextPunct = -1;
  while (true) {
    // '/*' is found by its '*' (URLs are full of '/', text holds few '*')
    if (punct && nextPunct < i) nextPunct = findP(txt, i, n, P_SQL, 59, 61, 42, 42);
    let a = punct ? nextPunct : n;
    if (a < n && at(txt, a) == 42) {
      if (a > 0 && at(txt, a - 1) == 47) a--;
      else if (words >= 0 && !(w < words && load<i32>(sqlAnchors + (<usize>w << 2)) < a)) {
        // a '*' that opens no comment, no word anchor before it: past it and the run of '*' after it
        // ("****": one step per '*' through the anchor tests below cost a third of the scan)
        let r = a + 1;
        while (r < n && at(txt, r) == 42) r++;
        i = r;
        continue;
      }
    }
    if (words < 0) {
      // more word anchors than noted: take every word start as one (bounded by the windows)
      let k = i;
      while (k < a && !((cls(at(txt, k)) & 8) != 0 && (k == 0 || (cls(at(txt, k - 1)) & 2) == 0))) k++;
      a = k;
    } else {
      while (w < words && load<i32>(sqlAnchors + (<usize>w << 2)) < i) w++;
      if (w < words && load<i32>(sqlAnchors + (<usize>w << 2)) < a) a = load<i32>(sqlAnchors + (<usize>w << 2));
    }
    if (a >= n) break;
    if (reReadEnd >= 0 && a >= reReadEnd) {
      // past the string read a second time: on as if it had not been
      covered = reReadEnd;
      lastLexEnd = savedLastLexEnd;
      win = savedWin;
      reReadEnd = -1;
    }
    const ca = at(txt, a);
    // a '*' that opens no comment anchors nothing (a word anchor before it is still taken:
    // "x union select * from users" skipped its UNION)
    if (ca == 42) { i = a + 1; continue; }
    // an '=' window serves the constant comparison only (the other judges have anchors of
    // their own): it opens where a literal could stand on both sides
    if (ca == 61 && words >= 0 && !eqBetweenLiterals(a)) { i = a + 1; continue; }
    // a ';' opens a window only before a statement keyword: what else a window there could
    // find (UNION, listed calls, block comments, a comparison) has an anchor of its own
    if (ca == 59 && words >= 0) {
      // (the walk from the value's end answers "no" and notes nothing)
      if (a + 1 >= n) { i = a + 1; continue; }
      const c1 = at(txt, a + 1);
      // a run of ';': a walk from inside it stops at the next ';' with "no" (";;;;...": one loop
      // step per ';' cost most of the scan); on to the run's last ';'
      if (c1 == 59) {
        let r = a + 2;
        while (r < n && at(txt, r) == 59) r++;
        i = r - 1;
        continue;
      }
      if (isAlpha(c1)) {
        // a letter next: the walk would read that word at once, and most have a length, first
        // and last letter no statement keyword has (";x;x...": one walk per ';' cost most of the scan)
        let e = wordEnd(a + 1);
        if (!filterMayHave(stackedFilter, txt, a + 1, e - (a + 1))) {
          // and the ';' right after that word, glued to a word refused too, and so on: the
          // steps this loop would take (a word holds no ';' '=' '*'), while no UNION or listed
          // name lies in the words passed
          i = a + 1;
          while (!(w < words && load<i32>(sqlAnchors + (<usize>w << 2)) <= e)) {
            i = e;
            if (!(e + 1 < n && at(txt, e) == 59 && isAlpha(at(txt, e + 1)))) break;
            const f = wordEnd(e + 1);
            if (filterMayHave(stackedFilter, txt, e + 1, f - (e + 1))) break;
            i = e + 1;
            e = f;
          }
          continue;
        }
      } else if (sqlBlank(c1)) {
        // white space without a line break, then the end or a unit that starts no word and no
        // comment: the walk would answer "no" there, and note nothing (it passes no CR or LF)
        // ("; ; ; ...": one walk per ';' cost most of the scan)
        let k = a + 2;
        while (k < n && sqlBlank(at(txt, k))) k++;
        if (k >= n) { i = a + 1; continue; }
        const c = at(txt, k);
        if (!(c == 10 || c == 13 || c == 35 || c == 45 || c == 47 || wordStart(c))) { i = a + 1; continue; }
      } else if (!(c1 == 10 || c1 == 13 || c1 == 35 || c1 == 45 || c1 == 47 || wordStart(c1))) {
        // a unit that starts no word, comment or white space: the walk's answer at once (";\\x")
        i = a + 1;
        continue;
      }
      if (!(walkMeets(a + 1) ? walkAnswer : stackedWordAfter(a + 1))) { i = a + 1; continue; }
    }
    // where the search goes on: past the anchor ('/*' is two units: past its '*')
    const next = a + (ca == 47 ? 2 : 1);
    if (a >= covered) {
      if (contextFreeDone()) break;
      const s = windowStart(a);
      // dense anchors (the last window ran into this one): lex more per window
      win = a < lastLexEnd ? (win * 2 > MAX_WINDOW ? MAX_WINDOW : win * 2) : WINDOW;
      const from = s < covered ? covered : s;
      lex(0, from, win);
      lastLexEnd = lexEnd;
      contextFree(true);
      covered = lexEnd >= len ? len : (ntok > 4 ? tStart(ntok - 4) : lexEnd);
      if (covered <= a) covered = a + 1;
      // a breakout quote read inside a string, backtick or comment: the anchors after it are read
      // a second time, from that quote on, as the quote context reads them (once per quote kind);
      // the anchor itself too when it lay there. A window of that second reading ends where the
      // first one's did (the anchors after it are taken as they would have been), unless it
      // reads the other kind's breakout quote the same way: then from there a third time.
      const b = swallowedBreak(from);
      if (reReadEnd >= 0 && covered > reReadEnd) covered = reReadEnd;
      if (b >= 0 && b + 1 < covered) {
        if (b == sqBreak) sqBreak = -1; else dqBreak = -1;
        if (reReadEnd < 0) {
          reReadEnd = covered;
          savedLastLexEnd = lastLexEnd;
          savedWin = win;
        }
        covered = b + 1;
        lastLexEnd = -1;
        if (b < a) continue;
      }
    }
    // anchors inside the judged window need no window of their own
    i = next > covered ? next : covered;
  }
  conditionalWindows();
  subqueryWindows();
  deepUnion();
}

/**
 * CASE and IF( windows, read after all the others so that they change nothing another window
 * finds (a window from CASE would read the text after it differently from the windows there).
 * - IF( and IIF( (the literal pass lists them; past 64, the text is searched): a window of
 *   CONTEXT_WINDOW tokens from each, the next from past it.
 * - CASE: a CASE is judged at the END that closes it, and the innermost one is the last CASE
 *   before an END. Per END word: the tokens from the last CASE before it up to that END (at most
 *   CONTEXT_WINDOW), and once more from the CASE before that one when the first reading fails (a
 *   "case" in a string or comment between: "(case when 2>1 then 'case' else name end)"). The
 *   next END taken is past this one, and only CASEs past it count for it: every unit is read at
 *   most three times. A text with no END word reads none.
 */
function conditionalWindows(): void {
  if (ifAnchorCount == 0 && caseAnchorCount == 0) return; // (overflow follows a full list)
  const r = firstOn(K_SQL_CONDITIONAL);
  if (r < 0 || done(r)) return;
  // IF( windows
  let budget = WINDOW_BUDGET;
  let looks = LOOK_BUDGET;
  let pos = 0;
  let w = 0;
  while (pos < len) {
    let a = -1;
    while (w < ifAnchorCount && load<i32>(ifAnchors + (<usize>w << 2)) < pos) w++;
    if (w < ifAnchorCount) a = load<i32>(ifAnchors + (<usize>w << 2));
    else if (ifAnchorsOverflow) a = nextIfCall(pos > ifListedTo() ? pos : ifListedTo() + 1);
    if (a < 0 || looks-- <= 0) break;
    pos = a + 1;
    // what may start a condition, in the text ("if((", "if(x" with no '(' after the word: none);
    // then a window, at most WINDOW_BUDGET per value ("iif(iif(iif(..."; an IF past that many
    // plausible ones is not judged)
    if (!ifMayStart(a)) continue;
    if (budget-- <= 0) break;
    lex(0, a, CONTEXT_WINDOW);
    if (ifShape(0)) {
      hitTok(r, 0, exprEnd);
      if (done(r)) return;
      pos = lexEnd > a ? lexEnd : a + 1;
    }
  }
  if (caseAnchorCount == 0) return;
  const listedTo = load<i32>(caseAnchors + (<usize>(caseAnchorCount - 1) << 2));
  const saveLen = len;
  budget = WINDOW_BUDGET;
  looks = LOOK_BUDGET;
  pos = load<i32>(caseAnchors);
  w = 0;
  // a CASE read up to an END that was not its own (an "end" in a comment or string between:
  // "(case/*end*/when 1=1 then id else name end)"), read again up to the next END; at most 3
  // more ENDs and 2,048 units on
  let carry = -1;
  let carried = 0;
  while (pos < saveLen) {
    const e = nextWordEnd(pos);
    if (e < 0) break;
    // the last two CASEs in [pos, e)
    let c = -1;
    let c2 = -1;
    while (w < caseAnchorCount && load<i32>(caseAnchors + (<usize>w << 2)) < pos) w++;
    while (w < caseAnchorCount && load<i32>(caseAnchors + (<usize>w << 2)) < e) { c2 = c; c = load<i32>(caseAnchors + (<usize>w << 2)); w++; }
    if (caseAnchorsOverflow && e > listedTo) {
      let k = pos > listedTo ? pos : listedTo + 1;
      while (true) {
        k = nextCaseWord(k, e);
        if (k < 0) break;
        c2 = c;
        c = k;
        k += 4;
      }
    }
    pos = e + 3;
    if (carry >= 0 && (carried >= 3 || e - carry > 2048)) carry = -1;
    if (carry >= 0) {
      if (c < 0) c = carry;
      else if (c2 < 0) c2 = carry;
    }
    if (c >= 0 && looks-- <= 0) break;
    let found = false;
    for (let t = 0; t < 2; t++) {
      const from = t == 0 ? c : c2;
      // (a THEN between the CASE and the END, searched in the text: "case end", "case when 1=1
      // end" repeated lex nothing)
      if (from < 0) break;
      if (!wordIn(from + 4, e, 'then')) continue;
      if (budget-- <= 0) return;
      // the tokens up to this END only
      len = e + 3;
      lex(0, from, CONTEXT_WINDOW);
      len = saveLen;
      if (caseShape(0)) {
        hitTok(r, 0, exprEnd);
        if (done(r)) return;
        found = true;
        break;
      }
    }
    if (found || c < 0) { carry = -1; carried = 0; }
    else if (c == carry) carried++;
    else { carry = c; carried = 0; }
  }
  len = saveLen;
}

// Windows of each kind (IF, CASE) per value that conditionalWindows lexes, at most: a text of
// thousands of plausible ones ("case when x then y end" repeated) costs no more than 64. (An IF
// or CASE past these budgets is not judged: a value would need hundreds of decoys before it.)
const WINDOW_BUDGET = 64;
// IF( candidates and ENDs after a CASE that conditionalWindows looks at per value, at most (each
// look reads a few units, but "if((" or "case end" repeated has one every few units).
const LOOK_BUDGET = 256;

/** After the IF( or IIF( at a (white space skipped), a unit that may start a condition: a digit, quote, sign, '(' before SELECT, or a word before '('. */
function ifMayStart(a: i32): bool {
  let i = a;
  while (i < len && at(txt, i) != 40) i++;
  i = skipBlanks(txt, i + 1, len);
  if (i >= len) return false;
  const c = at(txt, i);
  if (isDigit(c) || c == 39 || c == 34 || c == 45 || c == 43 || c == 46) return true;
  if (c == 40) {
    const k = skipBlanks(txt, i + 1, len);
    return k < len && (at(txt, k) | 32) == 115; // (s...: a subquery
  }
  if (!isAlpha(c)) return false;
  let k = i + 1;
  while (k < len && isWord(at(txt, k))) k++;
  k = skipBlanks(txt, k, len);
  return k < len && at(txt, k) == 40;
}

/** The last listed IF( position. */
function ifListedTo(): i32 {
  return ifAnchorCount > 0 ? load<i32>(ifAnchors + (<usize>(ifAnchorCount - 1) << 2)) : -1;
}

/** The first IF( or IIF( (a word start) at or after i, or -1: the search past a full anchor list. */
function nextIfCall(i: i32): i32 {
  let k = i + 2;
  while (k < len) {
    k = find2(txt, k, len, 40, 40);
    if (k >= len) return -1;
    if ((at(txt, k - 1) | 32) == 102 && (at(txt, k - 2) | 32) == 105) {
      let s = k - 2;
      if (s > i && (at(txt, s - 1) | 32) == 105) s--;
      if (s == 0 || !isWord(at(txt, s - 1))) return s;
    }
    k++;
  }
  return -1;
}

/** The word w (lower case, 4 letters) in txt[i, e): a word start, case-insensitively. */
function wordIn(i: i32, e: i32, w: string): bool {
  const c0 = <u32>w.charCodeAt(0);
  while (i + 4 <= e) {
    i = find2(txt, i, e, c0, c0 - 32);
    if (i + 4 > e) return false;
    if ((i == 0 || !isWord(at(txt, i - 1))) && (at(txt, i + 1) | 32) == <u32>w.charCodeAt(1) &&
      (at(txt, i + 2) | 32) == <u32>w.charCodeAt(2) && (at(txt, i + 3) | 32) == <u32>w.charCodeAt(3) &&
      (i + 4 == len || !isWord(at(txt, i + 4)))) return true;
    i++;
  }
  return false;
}

/** The word CASE at i. */
function caseWordAt(i: i32): bool {
  return i + 4 <= len && (at(txt, i) | 32) == 99 && (at(txt, i + 1) | 32) == 97 && (at(txt, i + 2) | 32) == 115 &&
    (at(txt, i + 3) | 32) == 101 && (i + 4 == len || !isWord(at(txt, i + 4)));
}

/** The first word CASE in [i, to), or -1: the search past a full anchor list. */
function nextCaseWord(i: i32, to: i32): i32 {
  while (i < to) {
    i = find2(txt, i, to, 99, 67);
    if (i >= to) return -1;
    if ((i == 0 || !isWord(at(txt, i - 1))) && caseWordAt(i)) return i;
    i++;
  }
  return -1;
}

/** The first word END at or after i, or -1. */
function nextWordEnd(i: i32): i32 {
  while (i < len) {
    i = find2(txt, i, len, 101, 69);
    if (i + 3 > len) return -1;
    if ((i == 0 || !isWord(at(txt, i - 1))) && (at(txt, i + 1) | 32) == 110 && (at(txt, i + 2) | 32) == 100 &&
      (i + 3 == len || !isWord(at(txt, i + 3)))) return i;
    i++;
  }
  return -1;
}
