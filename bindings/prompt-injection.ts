// detectPromptInjection: matches the signatures of prompt-signatures.ts against a text.
//
// Reading. The text is taken in chunks of 16384 characters. An ASCII chunk (TextEncoder says
// so: one byte per character) is tokenised straight from its bytes by a tight loop. Other
// chunks are folded first, one code point at a time (String.prototype.normalize NFKC and
// toLowerCase, cached per code point), into the same byte alphabet with each unit's source
// offsets; so every token keeps exact offsets into the original text and `matched` is always
// a substring of the input. Folding code point by code point differs from whole-string NFKC
// only where a base character and a following combining mark would compose; combining marks
// are dropped anyway (they decorate "i̴g̴n̴o̴r̴e̴" without changing what a model reads).
//
// Tokens. Words are hashed while they are read and looked up once, at their end, in the
// vocabulary of all signature words (every hit verified); no string is built per word. Only
// vocabulary tokens are stored, with their ordinal among all tokens, in a fixed buffer.
//
// Matching. Each stored token starts an attempt for the sequences whose first step holds it.
// An attempt keeps the set of positions the steps so far can end at as a 32-bit mask over
// the next 31 ordinals, so bounded gaps need no backtracking; its work is bounded by the
// sequence's steps times its 31-token window, and the whole scan is linear in the text. When
// the buffer fills, the starts whose window is complete are tried and the rest move to the
// front, so memory stays flat however long the text is.

import {
  PROMPT_SIGNATURES, type PatternStep, type PromptSignal, type PromptSignature, type PromptTier,
} from './prompt-signatures.js';
import { detach } from './text.js';

/** One matched signature: its id and tier, and at most 80 code points of the input it matched. */
export interface PromptInjectionMatch {
  id: string;
  tier: PromptTier;
  matched: string;
}

/** Result of detectPromptInjection. */
export interface PromptInjectionResult {
  /** True when `tier` is 'high' or 'medium'. */
  detected: boolean;
  /** The highest tier among the matches, or null when nothing matched. */
  tier: PromptTier | null;
  /** Sum of the weights of the distinct matched entries (10 high, 5 medium, 1 low). */
  score: number;
  /** Matched entries, highest tier first, then in PROMPT_SIGNATURES order. */
  matches: PromptInjectionMatch[];
}

// ------------------------------------------------------------------ character classes

// The scanner sees ASCII plus two stand-ins for what folding leaves outside ASCII: a letter,
// digit or mark (part of a word) and anything else visible (a symbol). No signature word is
// non-ASCII, so nothing is lost by not telling those characters apart.
const NON_ASCII_WORD = 0x80;
const NON_ASCII_SYMBOL = 0x81;
const ALPHABET = 0x82;

const SPACE = 0;
const NEWLINE = 1;
const WORD = 2;
const SYMBOL = 3;
const APOSTROPHE = 4;

const CLASS = new Uint8Array(ALPHABET).fill(SYMBOL);
const LOWER = new Uint8Array(ALPHABET);
const WORD_LOWER = new Uint8Array(ALPHABET); // the lower-case form of a word character, 0 for any other
const ALNUM = new Uint8Array(ALPHABET);
for (let c = 0; c < ALPHABET; c++) LOWER[c] = c;
for (const c of [0x20, 0x09]) CLASS[c] = SPACE;
for (const c of [0x0a, 0x0b, 0x0c, 0x0d]) CLASS[c] = NEWLINE;
CLASS[0x27] = APOSTROPHE;
CLASS[0x5f] = WORD;
CLASS[NON_ASCII_WORD] = WORD;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = WORD, ALNUM[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = WORD, ALNUM[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = WORD, ALNUM[c] = 1, LOWER[c] = c + 0x20;
for (let c = 0; c < ALPHABET; c++) if (CLASS[c] === WORD) WORD_LOWER[c] = LOWER[c]!;

// ------------------------------------------------------------------ folding non-ASCII

// Per code point: what the scanner reads in its place. Codes below; a fold of several
// characters (ligatures, "⒜") is kept in FOLD_MULTI.
const F_UNKNOWN = 0;
const F_DROP = -1; // removed without a trace: combining marks, variation selectors, soft hyphen
const F_ZERO_WIDTH = -2; // removed, and a smuggling signal when it splits an ASCII word
const F_MULTI = -3;
// F_UNKNOWN | F_DROP | F_ZERO_WIDTH | F_MULTI | 1 + the single folded character
const FOLD_BMP = new Int32Array(0x10000);
const FOLD_MULTI = new Map<number, string>();
const FOLD_ASTRAL = new Map<number, number | string>();
const FOLD_CACHE_LIMIT = 4096; // the two maps are cleared when they reach this size
/** Tag characters a subdivision flag holds at most (region code of up to 6, plus CANCEL TAG). */
const FLAG_TAGS_MAX = 8;

function isCombiningMark(cp: number): boolean {
  return (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe20 && cp <= 0xfe2f);
}

// Zero-width and bidi controls: invisible, and able to split a word so that a plain substring
// search misses it ("ig\u200bnore"). The joiners also occur in emoji and in Persian or Indic
// text, so only a split ASCII word counts as a signal.
function isZeroWidth(cp: number): boolean {
  return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x206f) || cp === 0xfeff || cp === 0x180e;
}

function isSilentIgnorable(cp: number): boolean {
  return cp === 0x00ad || cp === 0x034f || cp === 0x061c || cp === 0x115f || cp === 0x1160 || cp === 0x17b4 ||
    cp === 0x17b5 || (cp >= 0x180b && cp <= 0x180f) || cp === 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xffa0 || (cp >= 0x1d173 && cp <= 0x1d17a) || (cp >= 0xe0080 && cp <= 0xe0fff) || isCombiningMark(cp);
}

// A regular expression here classifies one code point, once per process (the result is
// cached); it never runs over the input.
const WORD_CHAR = /^[\p{L}\p{N}\p{M}\p{Pc}]$/u;
const SPACE_CHAR = /^\p{Z}$/u;

/** The folded form of one code point: lower-cased NFKC, reduced to the scanner's alphabet. */
function foldCodePoint(cp: number): string {
  if (cp >= 0xd800 && cp <= 0xdfff) return String.fromCharCode(NON_ASCII_SYMBOL); // a lone surrogate
  let out = '';
  for (const ch of String.fromCodePoint(cp).normalize('NFKC').toLowerCase()) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out += ch;
    else if (isCombiningMark(c) || isZeroWidth(c) || isSilentIgnorable(c)) continue;
    else if (c === 0x2018 || c === 0x2019 || c === 0x201b || c === 0x02bc || c === 0x2032) out += "'";
    else if (c === 0x201c || c === 0x201d || c === 0x201e || c === 0x201f || c === 0x2033) out += '"';
    else if (c === 0x2028 || c === 0x2029 || c === 0x0085) out += '\n';
    else if (WORD_CHAR.test(ch)) out += String.fromCharCode(NON_ASCII_WORD);
    else if (SPACE_CHAR.test(ch)) out += ' ';
    else out += String.fromCharCode(NON_ASCII_SYMBOL);
  }
  return out;
}

function foldCode(cp: number): number | string {
  if (isZeroWidth(cp)) return F_ZERO_WIDTH;
  if (isSilentIgnorable(cp)) return F_DROP;
  const s = foldCodePoint(cp);
  if (s.length === 0) return F_DROP;
  if (s.length === 1) return s.charCodeAt(0) + 1;
  return s;
}

function foldBmp(cp: number): number {
  let f = FOLD_BMP[cp];
  if (f === F_UNKNOWN) {
    const r = foldCode(cp);
    if (typeof r === 'string') {
      if (FOLD_MULTI.size >= FOLD_CACHE_LIMIT) FOLD_MULTI.clear();
      FOLD_MULTI.set(cp, r);
      f = F_MULTI;
    } else {
      f = r;
    }
    FOLD_BMP[cp] = f;
  }
  return f;
}

function foldMulti(cp: number): string {
  let s = FOLD_MULTI.get(cp);
  if (s === undefined) {
    s = foldCodePoint(cp); // evicted by a clear: compute again
    FOLD_MULTI.set(cp, s);
  }
  return s;
}

function foldAstral(cp: number): number | string {
  let r = FOLD_ASTRAL.get(cp);
  if (r === undefined) {
    r = foldCode(cp);
    if (FOLD_ASTRAL.size >= FOLD_CACHE_LIMIT) FOLD_ASTRAL.clear();
    FOLD_ASTRAL.set(cp, r);
  }
  return r;
}

// ------------------------------------------------------------------ compiling the signatures

/** Multiplier that spreads a word hash over the table (2^32 / golden ratio). */
const GOLDEN = 0x9e3779b1 | 0;
/** Longest sequence, in tokens: attempts fit a 32-bit position mask (offsets 0..30). */
const MAX_SPAN = 31;
const MAX_GAP = 24;

interface Compiled {
  readonly sigs: readonly PromptSignature[];
  readonly tierRank: Uint8Array; // 3 high, 2 medium, 1 low
  readonly vocabCount: number;
  readonly table: Int32Array; // open addressing: 1 + vocabulary id, 0 empty
  readonly tableShift: number; // slot = Math.imul(hash, GOLDEN) >>> tableShift
  readonly vHash: Int32Array;
  readonly vLen: Int32Array;
  readonly vOff: Int32Array;
  readonly vChars: Uint8Array;
  readonly symId: Int32Array; // scanner character -> vocabulary id of the symbol, or -1
  // sequences whose first step holds vocabulary id v: firstSeq[firstFrom[v] .. firstFrom[v + 1])
  readonly firstFrom: Int32Array;
  readonly firstSeq: Int32Array;
  readonly seqSig: Int32Array;
  readonly seqFrom: Int32Array; // steps [seqFrom, seqTo) of the flattened step arrays
  readonly seqTo: Int32Array;
  readonly nextMember: Uint8Array; // v may follow start token s in one of its sequences: nextMember[s * vocabCount + v] === 1
  readonly nextReach: Int32Array; // ... within this many ordinals of s; 0: s starts a one-step sequence (no filter)
  readonly stepMember: Uint8Array; // step k holds vocabulary id v: stepMember[k * vocabCount + v] === 1
  readonly stepWidth: Int32Array; // token steps: gap + 1 (positions the step may take); opt steps: 0
  readonly stepLine: Uint8Array;
  readonly signalSig: Record<PromptSignal, number>;
}

const TIER_RANK: Record<PromptTier, number> = { high: 3, medium: 2, low: 1 };

// Rotate-and-xor: one cheap step per character on the scanner's hottest path. Quality is
// enough because every hit is verified against the text.
function hashWord(w: string): number {
  let h = 0;
  for (let i = 0; i < w.length; i++) h = ((h << 5) | (h >>> 27)) ^ w.charCodeAt(i);
  return h;
}

function isVocabWord(w: string): boolean {
  if (w.length === 0) return false;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 0x80 || CLASS[c] !== WORD || LOWER[c] !== c) return false;
  }
  return true;
}

function isVocabSymbol(w: string): boolean {
  if (w.length !== 1) return false;
  const c = w.charCodeAt(0);
  return c < 0x80 && (CLASS[c] === SYMBOL || CLASS[c] === APOSTROPHE);
}

// Throws on malformed data: the list is a constant of this package, and the tests load it.
function compile(sigs: readonly PromptSignature[]): Compiled {
  const vocab = new Map<string, number>();
  const word = (w: unknown, where: string): number => {
    if (typeof w !== 'string' || !(isVocabWord(w) || isVocabSymbol(w))) {
      throw new Error(`prompt signature ${where}: ${JSON.stringify(w)} is neither a lower-case word nor one symbol`);
    }
    let id = vocab.get(w);
    if (id === undefined) vocab.set(w, (id = vocab.size));
    return id;
  };

  interface Step { ids: number[]; gap: number; opt: boolean; line: boolean }
  const seqs: { sig: number; steps: Step[] }[] = [];
  const signalSig: Record<PromptSignal, number> = { 'tag-characters': -1, 'zero-width-in-word': -1 };
  const ids = new Set<string>();
  sigs.forEach((sig, si) => {
    if (ids.has(sig.id)) throw new Error(`prompt signature ${sig.id}: duplicate id`);
    ids.add(sig.id);
    if (!(sig.tier in TIER_RANK)) throw new Error(`prompt signature ${sig.id}: unknown tier`);
    if (sig.patterns.length === 0) throw new Error(`prompt signature ${sig.id}: no patterns`);
    for (const pattern of sig.patterns) {
      const where = sig.id;
      const only = pattern[0] as PatternStep;
      if (pattern.length === 1 && typeof only === 'object' && 'signal' in only) {
        if (!(only.signal in signalSig) || signalSig[only.signal] !== -1) throw new Error(`prompt signature ${where}: bad signal`);
        signalSig[only.signal] = si;
        continue;
      }
      const steps: Step[] = [];
      let gap = 0;
      let line = false;
      let span = 0;
      for (const step of pattern as readonly PatternStep[]) {
        if (Array.isArray(step)) {
          if (step.length === 0) throw new Error(`prompt signature ${where}: empty step`);
          steps.push({ ids: step.map((w) => word(w, where)), gap, opt: false, line });
          span += 1 + gap;
          gap = 0;
          line = false;
        } else if (typeof step === 'object' && step !== null && 'gap' in step) {
          if (!Number.isInteger(step.gap) || step.gap < 1 || step.gap > MAX_GAP || gap !== 0 || steps.length === 0) {
            throw new Error(`prompt signature ${where}: bad gap`);
          }
          gap = step.gap;
        } else if (typeof step === 'object' && step !== null && 'opt' in step) {
          if (steps.length === 0 || gap !== 0 || line || step.opt.length === 0) throw new Error(`prompt signature ${where}: bad opt`);
          steps.push({ ids: step.opt.map((w) => word(w, where)), gap: 0, opt: true, line: false });
          span += 1;
        } else if (typeof step === 'object' && step !== null && 'line' in step && step.line === 'start') {
          line = true;
        } else {
          throw new Error(`prompt signature ${where}: unknown step ${JSON.stringify(step)}`);
        }
      }
      if (steps.length === 0 || gap !== 0 || line || steps[steps.length - 1]!.opt) {
        throw new Error(`prompt signature ${where}: a sequence must end with a token step`);
      }
      if (span > MAX_SPAN) throw new Error(`prompt signature ${where}: sequence spans ${span} tokens, more than ${MAX_SPAN}`);
      seqs.push({ sig: si, steps });
    }
  });

  const vocabCount = vocab.size;
  let bits = 6;
  while (1 << bits < vocabCount * 8) bits++; // sparse: most words leave after one probe of an empty slot
  const size = 1 << bits;
  const table = new Int32Array(size);
  const vHash = new Int32Array(vocabCount);
  const vLen = new Int32Array(vocabCount);
  const vOff = new Int32Array(vocabCount);
  let total = 0;
  for (const w of vocab.keys()) total += w.length;
  const vChars = new Uint8Array(total);
  const symId = new Int32Array(ALPHABET).fill(-1);
  let off = 0;
  for (const [w, id] of vocab) {
    vOff[id] = off;
    vLen[id] = w.length;
    for (let i = 0; i < w.length; i++) vChars[off++] = w.charCodeAt(i);
    if (isVocabSymbol(w)) {
      symId[w.charCodeAt(0)] = id;
      continue;
    }
    const h = hashWord(w);
    vHash[id] = h;
    let slot = Math.imul(h, GOLDEN) >>> (32 - bits);
    while (table[slot] !== 0) slot = (slot + 1) & (size - 1);
    table[slot] = id + 1;
  }

  const firstLists: number[][] = Array.from({ length: vocabCount }, () => []);
  const seqSig = new Int32Array(seqs.length);
  const seqFrom = new Int32Array(seqs.length);
  const seqTo = new Int32Array(seqs.length);
  const member: number[] = [];
  const widths: number[] = [];
  const lines: number[] = [];
  seqs.forEach((seq, q) => {
    seqSig[q] = seq.sig;
    seqFrom[q] = widths.length;
    for (const st of seq.steps) {
      const set = new Array<number>(vocabCount).fill(0);
      for (const id of st.ids) set[id] = 1;
      member.push(...set);
      widths.push(st.opt ? 0 : st.gap + 1);
      lines.push(st.line ? 1 : 0);
    }
    seqTo[q] = widths.length;
    for (const id of new Set(seq.steps[0]!.ids)) firstLists[id]!.push(q);
  });
  const firstFrom = new Int32Array(vocabCount + 1);
  firstLists.forEach((l, v) => (firstFrom[v + 1] = firstFrom[v]! + l.length));

  // A filter before the attempts at a start token: the tokens that can follow it in any of
  // its sequences (the first token step after it and the opt steps before that one), and how
  // far away in ordinals. nextReach 0: some sequence of that start is one step long.
  const nextMember = new Uint8Array(vocabCount * vocabCount);
  const nextReach = new Int32Array(vocabCount);
  firstLists.forEach((list, v) => {
    for (const q of list) {
      const steps = seqs[q]!.steps;
      if (steps.length === 1) {
        nextReach[v] = -1;
        continue;
      }
      let reach = 0;
      for (let k = 1; k < steps.length; k++) {
        const st = steps[k]!;
        for (const id of st.ids) nextMember[v * vocabCount + id] = 1;
        reach += st.opt ? 1 : st.gap + 1;
        if (!st.opt) break;
      }
      if (nextReach[v]! >= 0) nextReach[v] = Math.max(nextReach[v]!, reach);
    }
    if (nextReach[v] === -1) nextReach[v] = 0;
  });

  const tierRank = new Uint8Array(sigs.length);
  sigs.forEach((s, i) => (tierRank[i] = TIER_RANK[s.tier]));
  return {
    sigs, tierRank, vocabCount, table, tableShift: 32 - bits, vHash, vLen, vOff, vChars, symId,
    firstFrom, firstSeq: Int32Array.from(firstLists.flat()),
    seqSig, seqFrom, seqTo, nextMember, nextReach,
    stepMember: Uint8Array.from(member), stepWidth: Int32Array.from(widths), stepLine: Uint8Array.from(lines),
    signalSig,
  };
}

const C = compile(PROMPT_SIGNATURES);
const SIG_COUNT = C.sigs.length;
const TABLE_MASK = C.table.length - 1;
const TABLE_SHIFT = C.tableShift;

// ------------------------------------------------------------------ scanner state
// Module-level scratch, reused by every call: the function runs no user code, so calls never
// interleave, and fixed buffers keep memory flat whatever the text length.

/** Source characters per chunk: a chunk is encoded (or folded) into `units`, then tokenised. */
const CHUNK = 16384;
/** Room for the longest NFKC expansion of one code point (U+FDFA: 18 characters) and a sentinel. */
const UNIT_CAP = CHUNK + 64;
/** How far back from a chunk's end an ASCII chunk looks for a place to cut between tokens. */
const CUT_WINDOW = 256;
const units = new Uint8Array(UNIT_CAP); // the scanner's alphabet: ASCII, NON_ASCII_WORD, NON_ASCII_SYMBOL
const unitStart = new Int32Array(UNIT_CAP); // source offsets of a folded unit (folded chunks only)
const unitEnd = new Int32Array(UNIT_CAP);
const encoder = new TextEncoder();

// Only tokens that are vocabulary words or symbols are stored, each with its ordinal (its
// index among all tokens): no other token can satisfy a step, and gaps are measured in
// ordinals, so the sparse list matches exactly what the full token list would.
const TOKEN_CAP = 4096;
const tokId = new Int32Array(TOKEN_CAP);
const tokOrd = new Int32Array(TOKEN_CAP);
const tokStart = new Int32Array(TOKEN_CAP);
const tokEnd = new Int32Array(TOKEN_CAP);
const tokLine = new Uint8Array(TOKEN_CAP); // 1 when the token is first on its line
let count = 0;

const found = new Uint8Array(SIG_COUNT);
const foundStart = new Int32Array(SIG_COUNT);
const foundEnd = new Int32Array(SIG_COUNT);
let foundAll = 0; // signatures found by a sequence; attempts stop once all are

// Tokeniser state between chunks.
let ord = 0; // ordinal of the next token
let line = 1; // 1 when the next token is first on its line
let lastSym = -1; // the last token when it is a symbol (a run of one symbol is one token), else -1
let lastSymEnd = -1;
let lastStored = false; // the last token was stored (its end moves when its symbol run grows)
let inWord = false; // a word is open (only the general path leaves one open between chunks)
let wordStart = 0;
let wordEnd = 0;
let wordHash = 0;
let aposPending = false; // an apostrophe right after the open word: dropped if the word goes on
let aposS = 0;
let aposE = 0;

// Folding state and the two smuggling signals.
let foldNext = 0; // source offset where the last fold pass stopped
let lastUnit = 0; // the last unit written by the fold pass
let zwPending = -1; // offset of a zero-width character that followed an ASCII letter or digit
let zwAt = -1; // offset of the first one that also preceded one
let tagStart = -1;
let tagEnd = -1;
let flagEnd = -1; // end of U+1F3F4 and the tag characters that follow it (a flag emoji)
let flagLen = 0;

/** Stores a vocabulary token with ordinal o. */
function store(id: number, o: number, s: number, e: number, ln: number): void {
  if (count === TOKEN_CAP) flush(o);
  tokId[count] = id;
  tokOrd[count] = o;
  tokStart[count] = s;
  tokEnd[count] = e;
  tokLine[count] = ln;
  count++;
}

/** Tries the starts whose 31-token window ends before ordinal o; the others move to the front. */
function flush(o: number): void {
  let keep = count;
  while (keep > 0 && tokOrd[keep - 1]! > o - MAX_SPAN) keep--;
  matchStarts(keep);
  tokId.copyWithin(0, keep, count);
  tokOrd.copyWithin(0, keep, count);
  tokStart.copyWithin(0, keep, count);
  tokEnd.copyWithin(0, keep, count);
  tokLine.copyWithin(0, keep, count);
  count -= keep;
}

/** The next token: vocabulary id (or -1) and source offsets. */
function token(id: number, s: number, e: number): void {
  lastStored = id >= 0;
  if (lastStored) store(id, ord, s, e, line);
  line = 0;
  ord++;
}

/** A unit outside any word (the caller has closed the word): whitespace or a symbol. */
function other(c: number, s: number, e: number): void {
  const k = CLASS[c]!;
  if (k === SPACE) return;
  if (k === NEWLINE) {
    line = 1;
    lastSym = -1;
    return;
  }
  if (c === lastSym && s === lastSymEnd) {
    if (lastStored) tokEnd[count - 1] = e;
    lastSymEnd = e;
    return;
  }
  token(C.symId[c]!, s, e);
  lastSym = c;
  lastSymEnd = e;
}

/** Closes the open word (general path): its token, then a pending apostrophe's. */
function closeWord(text: string): void {
  inWord = false;
  const h = wordHash;
  token(C.table[Math.imul(h, GOLDEN) >>> TABLE_SHIFT] === 0 ? -1 : lookupWord(text, h, wordStart, wordEnd), wordStart, wordEnd);
  lastSym = -1;
  if (aposPending) {
    aposPending = false;
    other(0x27, aposS, aposE);
  }
}

/**
 * ASCII units[0, len) from source offset `base`, with no word open before and none left open
 * after (the chunk ends between two tokens, or at the end of the text). The hot loop: words
 * are hashed in a tight inner loop and only a few of them are looked up; everything that is
 * not a letter, digit or space goes to other().
 */
function tokeniseAscii(len: number, base: number): void {
  const u = units;
  const wordLower = WORD_LOWER;
  const table = C.table;
  const shift = TABLE_SHIFT;
  let o = ord;
  let ln = line;
  let afterWord = false;
  let j = 0;
  u[len] = 0; // a sentinel (not a word character, apostrophe or space) ends the last word
  while (j < len) {
    let c = u[j]!;
    let lc = wordLower[c]!;
    if (lc === 0) {
      if (c !== 0x20) {
        ord = o;
        line = ln;
        if (afterWord) lastSym = -1;
        afterWord = false;
        other(c, base + j, base + j + 1);
        o = ord;
        ln = line;
      }
      j++;
      continue;
    }
    const start = j;
    let h = 0;
    for (;;) {
      h = ((h << 5) | (h >>> 27)) ^ lc;
      c = u[++j]!;
      lc = wordLower[c]!;
      if (lc === 0) {
        // an apostrophe between two word characters is dropped: "you're" reads "youre"
        if (c !== 0x27 || wordLower[u[j + 1]!] === 0) break;
        lc = wordLower[u[++j]!]!;
      }
    }
    if (table[Math.imul(h, GOLDEN) >>> shift] !== 0) {
      const id = lookupUnits(h, start, j);
      if (id >= 0) store(id, o, base + start, base + j, ln);
    }
    ln = 0;
    o++;
    afterWord = true;
    if (u[j] === 0x20) j++; // the usual single space after a word (never the sentinel)
  }
  ord = o;
  line = ln;
  if (afterWord) {
    lastSym = -1;
    lastStored = false; // only read after a symbol token sets it again
  }
}

/**
 * Any units[0, len): ASCII from `base` or, when `mapped`, folded units with their source
 * offsets. Keeps a word open across chunks.
 */
function tokeniseGeneral(text: string, len: number, base: number, mapped: boolean): void {
  const u = units;
  for (let j = 0; j < len; j++) {
    const c = u[j]!;
    const lc = WORD_LOWER[c]!;
    const s = mapped ? unitStart[j]! : base + j;
    const e = mapped ? unitEnd[j]! : base + j + 1;
    if (lc !== 0) {
      if (!inWord) {
        inWord = true;
        wordStart = s;
        wordHash = 0;
      }
      aposPending = false;
      wordHash = ((wordHash << 5) | (wordHash >>> 27)) ^ lc;
      wordEnd = e;
      continue;
    }
    if (inWord) {
      if (c === 0x27 && !aposPending) {
        aposPending = true;
        aposS = s;
        aposE = e;
        continue;
      }
      closeWord(text);
    }
    other(c, s, e);
  }
}

/** Vocabulary id of the word text[s, e) whose hash is h, or -1. */
function lookupWord(text: string, h: number, s: number, e: number): number {
  let slot = Math.imul(h, GOLDEN) >>> TABLE_SHIFT;
  for (;;) {
    const entry = C.table[slot]!;
    if (entry === 0) return -1;
    const id = entry - 1;
    if (C.vHash[id] === h && sameWord(text, s, e, id)) return id;
    slot = (slot + 1) & TABLE_MASK;
  }
}

/** Vocabulary id of the ASCII word in units[from, to) (apostrophes dropped) whose hash is h, or -1. */
function lookupUnits(h: number, from: number, to: number): number {
  let slot = Math.imul(h, GOLDEN) >>> TABLE_SHIFT;
  for (;;) {
    const entry = C.table[slot]!;
    if (entry === 0) return -1;
    const id = entry - 1;
    if (C.vHash[id] === h) {
      const off = C.vOff[id]!;
      const len = C.vLen[id]!;
      if (to - from === len) {
        // the usual case, no apostrophe: compare without a branch per unit
        let diff = 0;
        for (let m = 0; m < len; m++) diff |= LOWER[units[from + m]!]! ^ C.vChars[off + m]!;
        if (diff === 0) return id;
      }
      let k = 0;
      let i = from;
      for (; i < to; i++) {
        const c = units[i]!;
        if (c === 0x27) continue;
        if (k === len || LOWER[c] !== C.vChars[off + k]) break;
        k++;
      }
      if (i === to && k === len) return id;
    }
    slot = (slot + 1) & TABLE_MASK;
  }
}

/**
 * Whether text[s, e), read as the tokeniser reads it (folded, apostrophes and invisible
 * characters dropped), spells vocabulary word `id`. A code point whose fold mixes word and
 * other characters ("⒜" is "(a)") never belongs to a vocabulary word.
 */
function sameWord(text: string, s: number, e: number, id: number): boolean {
  const off = C.vOff[id]!;
  const len = C.vLen[id]!;
  let k = 0;
  for (let i = s; i < e;) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      i++;
      if (c === 0x27) continue;
      if (k === len || LOWER[c] !== C.vChars[off + k]) return false;
      k++;
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < e) {
      const d = text.charCodeAt(i + 1);
      if ((d & 0xfc00) === 0xdc00) cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
    }
    i += cp > 0xffff ? 2 : 1;
    if (cp >= 0xe0000 && cp <= 0xe007f) continue; // tag characters are dropped
    let f: number | string = cp <= 0xffff ? foldBmp(cp) : foldAstral(cp);
    if (f === F_MULTI) f = foldMulti(cp);
    if (f === F_DROP || f === F_ZERO_WIDTH) continue;
    const folded = typeof f === 'string' ? f : String.fromCharCode(f - 1);
    for (let m = 0; m < folded.length; m++) {
      const u = folded.charCodeAt(m);
      if (u === 0x27) continue;
      if (CLASS[u] !== WORD || k === len || LOWER[u] !== C.vChars[off + k]) return false;
      k++;
    }
  }
  return k === len;
}

/**
 * Folds text[from, to) (it holds non-ASCII) into units with source offsets: stops before the
 * buffer could overflow; returns the number of units and sets foldNext. Records the signals.
 */
function foldInto(text: string, from: number, to: number): number {
  let j = 0;
  let i = from;
  while (i < to && j <= UNIT_CAP - 32) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (zwPending >= 0) {
        if (zwAt < 0 && ALNUM[c] === 1) zwAt = zwPending;
        zwPending = -1;
      }
      units[j] = c;
      unitStart[j] = i;
      unitEnd[j] = ++i;
      j++;
      lastUnit = c;
      continue;
    }
    const s = i;
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = text.charCodeAt(i + 1);
      if ((d & 0xfc00) === 0xdc00) cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
    }
    const e = (i += cp > 0xffff ? 2 : 1);
    let f: number | string;
    if (cp <= 0xffff) {
      f = foldBmp(cp);
      if (f === F_MULTI) f = foldMulti(cp);
    } else if (cp >= 0xe0000 && cp <= 0xe007f) {
      // Tag characters spell invisible ASCII. Right after U+1F3F4 a few of them, closed by
      // CANCEL TAG, are a subdivision flag (England: 1F3F4 + "gbeng" + E007F).
      if (flagEnd === s && flagLen < FLAG_TAGS_MAX) {
        flagLen++;
        flagEnd = cp === 0xe007f ? -1 : e;
      } else if (tagStart < 0) {
        tagStart = s;
        tagEnd = e;
      } else if (tagEnd === s) {
        tagEnd = e; // the first run is the one reported; it grows while contiguous
      }
      continue;
    } else {
      if (cp === 0x1f3f4) {
        flagEnd = e;
        flagLen = 0;
      }
      f = foldAstral(cp);
    }
    if (f === F_DROP) continue;
    if (f === F_ZERO_WIDTH) {
      if (zwPending < 0 && ALNUM[lastUnit] === 1) zwPending = s;
      continue;
    }
    const folded = typeof f === 'string' ? f : null;
    const single = typeof f === 'number' ? f - 1 : 0;
    for (let m = 0, k = folded === null ? 1 : folded.length; m < k; m++) {
      const u = folded === null ? single : folded.charCodeAt(m);
      if (zwPending >= 0) {
        if (zwAt < 0 && ALNUM[u] === 1) zwAt = zwPending;
        zwPending = -1;
      }
      units[j] = u;
      unitStart[j] = s;
      unitEnd[j] = e;
      j++;
      lastUnit = u;
    }
  }
  foldNext = i;
  return j;
}

// ------------------------------------------------------------------ matching

const FIRST_FROM = C.firstFrom;
const FIRST_SEQ = C.firstSeq;
const SEQ_SIG = C.seqSig;
const SEQ_FROM = C.seqFrom;
const SEQ_TO = C.seqTo;
const STEP_MEMBER = C.stepMember;
const STEP_WIDTH = C.stepWidth;
const STEP_LINE = C.stepLine;
const VOCAB = C.vocabCount;
const NEXT_MEMBER = C.nextMember;
const NEXT_REACH = C.nextReach;

/** Tries every sequence at stored tokens [0, limit); their windows must be complete. */
function matchStarts(limit: number): void {
  for (let t = 0; t < limit; t++) {
    if (foundAll === SEQ_SIG_TOTAL) return;
    const id = tokId[t]!;
    let j = FIRST_FROM[id]!;
    const end = FIRST_FROM[id + 1]!;
    if (j === end) continue;
    const reach = NEXT_REACH[id]!;
    if (reach > 0) {
      // no attempt can get past the first step when no token that may follow is near enough
      const o0 = tokOrd[t]!;
      const row = id * VOCAB;
      let near = false;
      for (let p = t + 1; p < count; p++) {
        if (tokOrd[p]! - o0 > reach) break;
        if (NEXT_MEMBER[row + tokId[p]!] === 1) {
          near = true;
          break;
        }
      }
      if (!near) continue;
    }
    for (; j < end; j++) {
      const q = FIRST_SEQ[j]!;
      const sig = SEQ_SIG[q]!;
      if (found[sig] === 1) continue;
      const last = attempt(q, t);
      if (last >= 0) {
        found[sig] = 1;
        foundStart[sig] = tokStart[t]!;
        foundEnd[sig] = tokEnd[last]!;
        foundAll++;
      }
    }
  }
}

/** Stored index of the last token of the shortest match of sequence q from token t, or -1. */
function attempt(q: number, t: number): number {
  const from = SEQ_FROM[q]!;
  const to = SEQ_TO[q]!;
  if (STEP_LINE[from] === 1 && tokLine[t] === 0) return -1;
  const o0 = tokOrd[t]!;
  const n = count;
  // Bit o of mask: the steps so far can end at the token of ordinal o0 + o. The sets of
  // positions advance together, so bounded gaps need no backtracking.
  let mask = 1;
  let low = t; // stored index of the token at the lowest bit of mask
  for (let k = from + 1; k < to; k++) {
    const row = k * VOCAB;
    const width = STEP_WIDTH[k]!;
    const line = STEP_LINE[k] === 1;
    // candidate offsets: one to `width` past any bit of mask (just one past, for an opt step)
    let cand = mask << 1;
    for (let cover = 1; cover < width;) {
      const sh = cover < width - cover ? cover : width - cover;
      cand |= cand << sh;
      cover += sh;
    }
    const hi = 31 - Math.clz32(cand);
    let next = 0;
    let nextLow = -1;
    for (let p = low + 1; p < n; p++) {
      const off = tokOrd[p]! - o0;
      if (off > hi) break;
      if (((cand >>> off) & 1) === 1 && STEP_MEMBER[row + tokId[p]!] === 1 && (!line || tokLine[p] === 1)) {
        next |= 1 << off;
        if (nextLow < 0) nextLow = p;
      }
    }
    if (width === 0) {
      mask |= next; // an opt step: the lowest bit stays where it was
    } else {
      if (next === 0) return -1;
      mask = next;
      low = nextLow;
    }
  }
  return low; // the shortest match ends at the lowest bit
}

const SEQ_SIG_TOTAL = new Set(C.seqSig).size;

// ------------------------------------------------------------------ the scan

/** At most 80 code points of text[s, e), cut at a code-point boundary. */
function clip(text: string, s: number, e: number): string {
  if (e - s <= 80) return detach(text.slice(s, e));
  let i = s;
  for (let n = 0; n < 80 && i < e; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < e && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return detach(text.slice(s, i));
}

/** The ASCII word around a zero-width character at `at` (invisible characters included), 80 code units at most. */
function wordAround(text: string, at: number): [number, number] {
  const inside = (i: number): boolean => {
    const c = text.charCodeAt(i);
    return c < 0x80 ? ALNUM[c] === 1 : isZeroWidth(c);
  };
  let s = at;
  while (s > 0 && at - s < 40 && inside(s - 1)) s--;
  let e = at + 1;
  while (e < text.length && e - s < 80 && inside(e)) e++;
  return [s, e];
}

/** Tokenises the text chunk by chunk and tries every sequence; fills `found`. */
function scan(text: string): void {
  count = 0;
  found.fill(0);
  foundAll = 0;
  ord = 0;
  line = 1;
  lastSym = -1;
  lastSymEnd = -1;
  lastStored = false;
  inWord = false;
  aposPending = false;
  lastUnit = 0;
  zwPending = -1;
  zwAt = -1;
  tagStart = -1;
  tagEnd = -1;
  flagEnd = -1;

  const n = text.length;
  for (let from = 0; from < n;) {
    let to = Math.min(n, from + CHUNK);
    if (to < n && (text.charCodeAt(to - 1) & 0xfc00) === 0xd800) to--; // keep a surrogate pair together
    const r = encoder.encodeInto(from === 0 && to === n ? text : text.slice(from, to), units);
    if (r.read !== to - from || r.written !== r.read) {
      // non-ASCII: fold code point by code point, as far as the buffer allows
      const len = foldInto(text, from, to);
      tokeniseGeneral(text, len, 0, true);
      from = foldNext;
      continue;
    }
    // ASCII (one byte per character). The fast path needs the chunk to end between tokens:
    // cut after the last space or symbol near its end.
    let len = r.written;
    let between = to === n;
    if (!between) {
      const stop = Math.max(0, len - CUT_WINDOW);
      let cut = len;
      while (cut > stop && (WORD_LOWER[units[cut - 1]!] !== 0 || units[cut - 1] === 0x27)) cut--;
      if (cut > stop) {
        len = cut;
        between = true;
      }
    }
    if (zwPending >= 0) {
      // a zero-width character ended the previous (folded) chunk
      if (zwAt < 0 && ALNUM[units[0]!] === 1) zwAt = zwPending;
      zwPending = -1;
    }
    if (between && !inWord && !aposPending) tokeniseAscii(len, from);
    else tokeniseGeneral(text, len, from, false);
    lastUnit = units[len - 1]!;
    from += len;
  }
  if (inWord) closeWord(text);
  matchStarts(count);

  const zwSig = C.signalSig['zero-width-in-word'];
  if (zwAt >= 0 && zwSig >= 0) {
    const [ws, we] = wordAround(text, zwAt);
    found[zwSig] = 1;
    foundStart[zwSig] = ws;
    foundEnd[zwSig] = we;
  }
  const tagSig = C.signalSig['tag-characters'];
  if (tagStart >= 0 && tagSig >= 0) {
    found[tagSig] = 1;
    foundStart[tagSig] = tagStart;
    foundEnd[tagSig] = tagEnd;
  }
}

/**
 * Looks for prompt-injection wording in `text`: the 28 signatures and 5 agent-toolcall
 * patterns of PROMPT_SIGNATURES. `detected` is true when the highest matched tier is high or
 * medium. Linear time; never throws (a non-string is not detected).
 */
export function detectPromptInjection(text: string): PromptInjectionResult {
  if (typeof text !== 'string' || text.length === 0) return { detected: false, tier: null, score: 0, matches: [] };
  scan(text);
  let best = 0;
  let score = 0;
  const order: number[] = [];
  for (let i = 0; i < SIG_COUNT; i++) {
    if (found[i] !== 1) continue;
    order.push(i);
    score += C.sigs[i]!.weight;
    if (C.tierRank[i]! > best) best = C.tierRank[i]!;
  }
  order.sort((a, b) => C.tierRank[b]! - C.tierRank[a]! || a - b);
  const matches = order.map((i) => ({ id: C.sigs[i]!.id, tier: C.sigs[i]!.tier, matched: clip(text, foundStart[i]!, foundEnd[i]!) }));
  const tier: PromptTier | null = best === 3 ? 'high' : best === 2 ? 'medium' : best === 1 ? 'low' : null;
  return { detected: best >= 2, tier, score, matches };
}
