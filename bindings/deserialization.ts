// Serialized-object detection: does a payload look like input to a deserializer that can
// run code (pickle, fastjson autoType, PHP unserialize, Ruby Marshal, .NET BinaryFormatter)?
// Detection only; the caller decides whether to refuse, log or sandbox.
//
// Each format is judged by its structure, not by a prefix: a pickle by walking its opcodes
// with a stack model, PHP by parsing its length-prefixed values, fastjson by finding an
// "@type" key whose value names a Java class. Prose that happens to start like a format
// ("a:2 ratio", "cool\nthanks") fails the structure and is not reported.
//
// Work is bounded: at most the first 8192 bytes (or UTF-16 units) of a payload are read,
// and each check sees at most 4096 bytes, raw or decoded from base64. A structure that is
// still valid where the inspected prefix ends counts as valid. Base64 is decoded one level.
//
// Java native serialization (AC ED 00 05, base64 "rO0AB") is not one of the five tags the
// specification names, so it is not reported.

/** The runtime a serialized payload targets, as named by the specification. */
export type DeserializationTag =
  | 'python_pickle'
  | 'java_fastjson'
  | 'php_unserialize'
  | 'ruby_marshal'
  | 'dotnet_binary_formatter';

/** Bytes (or UTF-16 units) of a payload read at most; base64 text is read from this prefix. */
export const DESERIALIZATION_READ_LIMIT = 8192;
/** Bytes each structural check sees at most, raw or after base64 decoding. */
export const DESERIALIZATION_CHECK_LIMIT = 4096;

/**
 * The runtime whose deserializer a payload (text, bytes, or either in base64) is built for,
 * or null. Reads at most the first 8 KiB; never throws.
 */
export function detectDeserialization(payload: string | Uint8Array): DeserializationTag | null {
  let bytes: Uint8Array;
  let complete: boolean;
  let utf8: Uint8Array | undefined;
  if (typeof payload === 'string') {
    const text = readString(payload);
    bytes = text.bytes;
    complete = text.complete;
    utf8 = text.utf8;
  } else if (ArrayBuffer.isView(payload) && payload instanceof Uint8Array) {
    complete = payload.length <= DESERIALIZATION_READ_LIMIT;
    bytes = complete ? payload : payload.subarray(0, DESERIALIZATION_READ_LIMIT);
  } else {
    return null;
  }

  const rawComplete = complete && bytes.length <= DESERIALIZATION_CHECK_LIMIT;
  const raw = rawComplete ? bytes : bytes.subarray(0, DESERIALIZATION_CHECK_LIMIT);
  const found = judge(raw, rawComplete);
  if (found !== null) return found;
  // PHP counts string lengths in UTF-8 bytes, so text that reached us already decoded is
  // measured again in that encoding.
  if (utf8 !== undefined) {
    const utf8Complete = complete && utf8.length <= DESERIALIZATION_CHECK_LIMIT;
    if (isPhpSerialized(utf8Complete ? utf8 : utf8.subarray(0, DESERIALIZATION_CHECK_LIMIT), utf8Complete)) {
      return 'php_unserialize';
    }
  }
  const decoded = decodeBase64(bytes, complete);
  return decoded === null ? null : judge(decoded.bytes, decoded.complete);
}

function judge(b: Uint8Array, complete: boolean): DeserializationTag | null {
  if (isDotnetBinaryFormatter(b)) return 'dotnet_binary_formatter';
  if (isRubyMarshal(b, complete)) return 'ruby_marshal';
  if (isFastjson(b)) return 'java_fastjson';
  if (isPhpSerialized(b, complete)) return 'php_unserialize';
  if (isPickle(b, complete)) return 'python_pickle';
  return null;
}

// ------------------------------------------------------------------ reading the payload

// Reused between calls: detection is synchronous and keeps no reference to them.
const textScratch = new Uint8Array(DESERIALIZATION_READ_LIMIT);
const utf8Scratch = new Uint8Array(DESERIALIZATION_READ_LIMIT);
const base64Scratch = new Uint8Array(DESERIALIZATION_CHECK_LIMIT);
const encoder = new TextEncoder();

interface TextBytes {
  bytes: Uint8Array;
  complete: boolean;
  /** The UTF-8 form, when it differs from `bytes`. */
  utf8?: Uint8Array;
}

// A string may carry binary data one unit per byte (latin1, as Node's 'binary' encoding
// gives it) or ordinary text. When every unit fits a byte the units are the bytes; the
// UTF-8 form is kept as a second view for text formats that count in UTF-8.
function readString(s: string): TextBytes {
  const n = Math.min(s.length, DESERIALIZATION_READ_LIMIT);
  let max = 0;
  for (let i = 0; i < n; i++) max |= s.charCodeAt(i);
  if (max <= 0xff) {
    for (let i = 0; i < n; i++) textScratch[i] = s.charCodeAt(i);
    const bytes = textScratch.subarray(0, n);
    if (max < 0x80) return { bytes, complete: n === s.length };
    const r = encoder.encodeInto(s.slice(0, n), utf8Scratch);
    return { bytes, complete: n === s.length, utf8: utf8Scratch.subarray(0, r.written) };
  }
  const r = encoder.encodeInto(s.slice(0, n), textScratch);
  return { bytes: textScratch.subarray(0, r.written), complete: n === s.length && r.read === n };
}

// Standard and URL-safe alphabets (mixed is accepted), whitespace anywhere, padding
// optional. Anything else means the text is not base64.
const B64_WS = -2;
const B64_PAD = -3;
const B64_VALUE = (() => {
  const t = new Int8Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  t[0x2b] = 62; t[0x2d] = 62; // + -
  t[0x2f] = 63; t[0x5f] = 63; // / _
  for (const c of [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]) t[c] = B64_WS;
  t[0x3d] = B64_PAD;
  return t;
})();

function decodeBase64(b: Uint8Array, complete: boolean): { bytes: Uint8Array; complete: boolean } | null {
  let acc = 0;
  let bits = 0;
  let out = 0;
  let digits = 0;
  let i = 0;
  for (; i < b.length; i++) {
    const v = B64_VALUE[b[i]];
    if (v >= 0) {
      if (out === DESERIALIZATION_CHECK_LIMIT) break;
      acc = ((acc << 6) | v) & 0xffff;
      bits += 6;
      digits++;
      if (bits >= 8) {
        bits -= 8;
        base64Scratch[out++] = (acc >> bits) & 0xff;
      }
    } else if (v === B64_PAD) {
      // Padding ends the data: only more padding and whitespace may follow.
      for (; i < b.length; i++) if (B64_VALUE[b[i]] !== B64_PAD && B64_VALUE[b[i]] !== B64_WS) return null;
      break;
    } else if (v !== B64_WS) {
      return null;
    }
  }
  if (digits < 4 || out < 3) return null;
  return { bytes: base64Scratch.subarray(0, out), complete: complete && i >= b.length };
}

// ------------------------------------------------------------------ .NET BinaryFormatter

// SerializationHeaderRecord: record type 0, root id, header id, major version 1, minor 0,
// then the first record, whose type must be one of the stream's record kinds.
function isDotnetBinaryFormatter(b: Uint8Array): boolean {
  if (b.length < 17 || b[0] !== 0x00) return false;
  if (b[9] !== 1 || b[10] !== 0 || b[11] !== 0 || b[12] !== 0) return false;
  if (b[13] !== 0 || b[14] !== 0 || b[15] !== 0 || b[16] !== 0) return false;
  if (b.length === 17) return true;
  const next = b[17];
  return (next >= 1 && next <= 17) || next === 21 || next === 22;
}

// ------------------------------------------------------------------ Ruby Marshal

// Format 4.8, then the first value's type byte and what that type must be followed by.
function isRubyMarshal(b: Uint8Array, complete: boolean): boolean {
  if (b.length < 3 || b[0] !== 0x04 || b[1] !== 0x08) return false;
  return rubyValueHead(b, 2, complete, 0);
}

function rubyValueHead(b: Uint8Array, pos: number, complete: boolean, depth: number): boolean {
  if (pos >= b.length) return !complete;
  const type = b[pos];
  const next = pos + 1;
  switch (type) {
    case 0x30: case 0x54: case 0x46: // 0 T F: nil, true, false
      return true;
    case 0x69: case 0x40: case 0x3b: // i @ ;: fixnum, object link, symbol link
      return rubyFixnum(b, next) !== NO_FIXNUM || !complete;
    case 0x22: case 0x3a: case 0x66: case 0x63: case 0x6d: case 0x4d: { // " : f c m M: byte sequences
      const len = rubyFixnum(b, next);
      if (len === NO_FIXNUM) return !complete;
      return len >= 0 && (len <= b.length - rubyFixnumEnd(b, next) || !complete);
    }
    case 0x2f: { // / regexp: source bytes, then an options byte
      const len = rubyFixnum(b, next);
      if (len === NO_FIXNUM) return !complete;
      return len >= 0 && (len < b.length - rubyFixnumEnd(b, next) || !complete);
    }
    case 0x5b: case 0x7b: case 0x7d: { // [ { }: element or pair count
      const n = rubyFixnum(b, next);
      if (n === NO_FIXNUM) return !complete;
      if (n < 0) return false;
      return n === 0 || depth >= 4 || rubyValueHead(b, rubyFixnumEnd(b, next), complete, depth + 1);
    }
    case 0x6c: // l bignum: sign, then length in 16-bit words
      if (next >= b.length) return !complete;
      return (b[next] === 0x2b || b[next] === 0x2d) && (rubyFixnum(b, next + 1) !== NO_FIXNUM || !complete);
    case 0x6f: case 0x53: case 0x55: case 0x75: case 0x64: case 0x65: case 0x43: // o S U u d e C: class name symbol first
      if (next >= b.length) return !complete;
      return b[next] === 0x3a || b[next] === 0x3b;
    case 0x49: // I: a value with instance variables (strings with an encoding)
      if (next >= b.length) return !complete;
      return depth >= 4 || (b[next] !== 0x49 && rubyValueHead(b, next, complete, depth + 1));
    default:
      return false;
  }
}

// Below every value Marshal's fixnum can hold (-(2**32) is its least).
const NO_FIXNUM = -(2 ** 40);

// Marshal's compact integer: 0; 1..4 little-endian bytes follow; -1..-4 the same, negative;
// any other byte is the value offset by 5.
function rubyFixnum(b: Uint8Array, pos: number): number {
  if (pos >= b.length) return NO_FIXNUM;
  const c = (b[pos] << 24) >> 24;
  if (c === 0) return 0;
  if (c > 4) return c - 5;
  if (c < -4) return c + 5;
  const n = c > 0 ? c : -c;
  if (pos + n >= b.length) return NO_FIXNUM;
  let v = 0;
  for (let k = n; k >= 1; k--) v = v * 256 + b[pos + k];
  return c > 0 ? v : v - 2 ** (8 * n);
}

function rubyFixnumEnd(b: Uint8Array, pos: number): number {
  const c = (b[pos] << 24) >> 24;
  return c >= 1 && c <= 4 ? pos + 1 + c : c <= -1 && c >= -4 ? pos + 1 - c : pos + 1;
}

// ------------------------------------------------------------------ Python pickle

// How the walk ended.
const STOPPED = 0; // a STOP opcode with a value on the stack
const WINDOW = 1; // still valid where the inspected prefix ends
const BROKEN = 2; // Python would refuse the stream here (or data ended early)

// What the stack model knows about an item: enough to tell when Python would refuse an
// opcode (REDUCE wants a callable and an argument tuple; APPENDS wants a list).
const K_OPAQUE = 0; // anything: a memo value, an extension, a persistent id
const K_GLOBAL = 1; // an imported attribute: a callable, or a module-level object
const K_RESULT = 2; // what a call returned: anything
const K_NONE = 3;
const K_NUMBER = 4;
const K_STRING = 5; // str or bytes
const K_TUPLE = 6;
const K_LIST = 7;
const K_DICT = 8;
const K_SET = 9;
const K_CALLABLE = 10; // only as a requirement: what REDUCE, NEWOBJ and OBJ call

/**
 * Walks pickle opcodes from the start with a model of the stack, the mark stack and the
 * memo, so bytes are only a pickle when every opcode has the arguments and operands Python
 * needs to run it.
 */
function isPickle(b: Uint8Array, complete: boolean): boolean {
  const binary = b.length >= 2 && b[0] === 0x80;
  if (binary && (b[1] < 2 || b[1] > 5)) return false;
  const w = new PickleWalk(b, complete, binary);
  const end = w.run(binary ? 2 : 0);
  // Python runs each opcode as it reads it: an imported callable that was called before
  // the stream broke has already done its work, whatever follows.
  if (w.calls) return true;
  if (end === BROKEN) return false;
  // Pickler output always stops with exactly one value and no open mark.
  if (end === STOPPED && !w.balanced) return false;
  // Protocol 2+ opens with a PROTO opcode, itself strong evidence. Older pickles are text
  // or protocol 1 bytes: they need a global or a container and a few more opcodes, which
  // prose does not form, and none of the opcodes protocol 2 added (Python writes PROTO
  // before using them).
  return binary ? w.ops > 0 : !w.modern && w.ops >= (w.imports ? 3 : 4) && (w.imports || w.containers);
}

// Reused between walks (synchronous, no reference kept). Every push consumes at least one
// byte of input, so the stack never holds more items than the check limit.
const pickleStack = new Uint8Array(DESERIALIZATION_CHECK_LIMIT + 1);

class PickleWalk {
  ops = 0;
  imports = false;
  /** An imported object was called (REDUCE, INST, OBJ, NEWOBJ) or given state (BUILD). */
  calls = false;
  containers = false;
  balanced = false;
  /** An opcode of protocol 2 or later was used without a PROTO opcode before it. */
  modern = false;
  private sp = 0;
  private readonly marks: number[] = [];
  // Memo key -> kind: Python refuses a GET of a key never stored.
  private readonly memo = new Map<number, number>();
  private readonly b: Uint8Array;
  private readonly complete: boolean;
  private proto: boolean;

  constructor(b: Uint8Array, complete: boolean, proto: boolean) {
    this.b = b;
    this.complete = complete;
    this.proto = proto;
  }

  /** Items above the innermost mark. */
  private get depth(): number {
    return this.sp - (this.marks.length > 0 ? this.marks[this.marks.length - 1] : 0);
  }

  private top(n = 0): number {
    return pickleStack[this.sp - 1 - n];
  }

  private push(kind: number): void {
    pickleStack[this.sp++] = kind;
  }

  run(start: number): number {
    const b = this.b;
    let pos = start;
    while (pos < b.length) {
      const op = b[pos++];
      this.ops++;
      if (op >= 0x80 && !this.proto) this.modern = true;
      let next = pos;
      let kind = -1; // what the opcode pushes, if anything
      switch (op) {
        // ---- literals with a text-line argument
        case 0x49: case 0x4c: // I INT, L LONG
          next = this.line(pos, isIntLine); kind = K_NUMBER; break;
        case 0x46: // F FLOAT
          next = this.line(pos, isFloatLine); kind = K_NUMBER; break;
        case 0x53: // S STRING
          next = this.line(pos, isQuotedLine); kind = K_STRING; break;
        case 0x56: // V UNICODE
          next = this.line(pos, anyLine); kind = K_STRING; break;
        case 0x50: // P PERSID
          next = this.line(pos, anyLine); kind = K_OPAQUE; break;

        // ---- literals with a binary argument
        case 0x4e: kind = K_NONE; break; // N
        case 0x88: case 0x89: kind = K_NUMBER; break; // NEWTRUE, NEWFALSE
        case 0x4b: next = this.fixed(pos, 1); kind = K_NUMBER; break; // K BININT1
        case 0x4d: next = this.fixed(pos, 2); kind = K_NUMBER; break; // M BININT2
        case 0x4a: next = this.fixed(pos, 4); kind = K_NUMBER; break; // J BININT
        case 0x47: next = this.fixed(pos, 8); kind = K_NUMBER; break; // G BINFLOAT
        case 0x8a: next = this.counted(pos, 1); kind = K_NUMBER; break; // LONG1
        case 0x8b: next = this.counted(pos, 4); kind = K_NUMBER; break; // LONG4
        case 0x55: case 0x43: case 0x8c: // U SHORT_BINSTRING, C SHORT_BINBYTES, SHORT_BINUNICODE
          next = this.counted(pos, 1); kind = K_STRING; break;
        case 0x54: case 0x58: case 0x42: // T BINSTRING, X BINUNICODE, B BINBYTES
          next = this.counted(pos, 4); kind = K_STRING; break;
        case 0x8d: case 0x8e: case 0x96: // BINUNICODE8, BINBYTES8, BYTEARRAY8
          next = this.counted(pos, 8); kind = K_STRING; break;
        case 0x82: next = this.fixed(pos, 1); kind = K_OPAQUE; break; // EXT1
        case 0x83: next = this.fixed(pos, 2); kind = K_OPAQUE; break; // EXT2
        case 0x84: next = this.fixed(pos, 4); kind = K_OPAQUE; break; // EXT4
        case 0x97: kind = K_OPAQUE; break; // NEXT_BUFFER

        // ---- empty containers
        case 0x5d: kind = K_LIST; this.containers = true; break; // ]
        case 0x7d: kind = K_DICT; this.containers = true; break; // }
        case 0x29: kind = K_TUPLE; this.containers = true; break; // )
        case 0x8f: kind = K_SET; this.containers = true; break; // EMPTY_SET

        // ---- memo
        case 0x67: { // g GET
          next = this.line(pos, isDigitsLine);
          if (next <= 0) break;
          kind = this.memo.get(decimal(b, pos, next - 1)) ?? -1;
          if (kind < 0) return BROKEN;
          break;
        }
        case 0x68: case 0x6a: { // h BINGET, j LONG_BINGET
          next = this.fixed(pos, op === 0x68 ? 1 : 4);
          if (next <= 0) break;
          kind = this.memo.get(op === 0x68 ? b[pos] : uint32(b, pos)) ?? -1;
          if (kind < 0) return BROKEN;
          break;
        }
        case 0x70: // p PUT
          if (this.depth < 1) return BROKEN;
          next = this.line(pos, isDigitsLine);
          if (next > 0) this.memo.set(decimal(b, pos, next - 1), this.top());
          break;
        case 0x71: case 0x72: // q BINPUT, r LONG_BINPUT
          if (this.depth < 1) return BROKEN;
          next = this.fixed(pos, op === 0x71 ? 1 : 4);
          if (next > 0) this.memo.set(op === 0x71 ? b[pos] : uint32(b, pos), this.top());
          break;
        case 0x94: // MEMOIZE: the next key is the memo's size
          if (this.depth < 1) return BROKEN;
          this.memo.set(this.memo.size, this.top());
          break;

        // ---- stack housekeeping
        case 0x28: // ( MARK
          this.marks.push(this.sp); break;
        case 0x31: // 1 POP_MARK
          if (this.marks.length === 0) return BROKEN;
          this.sp = this.marks.pop()!; break;
        case 0x30: // 0 POP: the top item, or the mark when nothing is above it
          if (this.depth > 0) this.sp--;
          else if (this.marks.length > 0) this.marks.pop();
          else return BROKEN;
          break;
        case 0x32: // 2 DUP
          if (this.depth < 1) return BROKEN;
          kind = this.top(); break;
        case 0x51: // Q BINPERSID
          if (this.depth < 1) return BROKEN;
          this.sp--; kind = K_OPAQUE; break;
        case 0x98: // READONLY_BUFFER
          if (this.depth < 1) return BROKEN;
          break;
        case 0x80: // PROTO
          next = this.fixed(pos, 1);
          if (next > 0 && b[pos] > 5) return BROKEN;
          this.proto = true; break;
        case 0x95: // FRAME
          next = this.fixed(pos, 8); break;

        // ---- containers from marked items
        case 0x6c: case 0x64: case 0x74: case 0x91: // l LIST, d DICT, t TUPLE, FROZENSET
          if (this.marks.length === 0) return BROKEN;
          this.sp = this.marks.pop()!;
          kind = op === 0x6c ? K_LIST : op === 0x64 ? K_DICT : op === 0x74 ? K_TUPLE : K_SET;
          this.containers = true; break;
        case 0x85: case 0x86: case 0x87: { // TUPLE1..3
          const k = op - 0x84;
          if (this.depth < k) return BROKEN;
          this.sp -= k; kind = K_TUPLE; this.containers = true; break;
        }
        // These only extend a container, so they do not count as building one.
        case 0x65: case 0x75: case 0x90: { // e APPENDS, u SETITEMS, ADDITEMS
          if (this.marks.length === 0) return BROKEN;
          this.sp = this.marks.pop()!;
          if (this.depth < 1) return BROKEN;
          const want = op === 0x65 ? K_LIST : op === 0x75 ? K_DICT : K_SET;
          if (!accepts(this.top(), want)) return BROKEN;
          break;
        }
        case 0x61: // a APPEND
          if (this.depth < 2 || !accepts(this.top(1), K_LIST)) return BROKEN;
          this.sp -= 1; break;
        case 0x73: // s SETITEM
          if (this.depth < 3 || !accepts(this.top(2), K_DICT)) return BROKEN;
          this.sp -= 2; break;

        // ---- imports and calls
        case 0x63: // c GLOBAL: module line, name line
          next = this.line(pos, isDottedNameLine);
          if (next > 0) next = this.line(next, isDottedNameLine);
          if (next > 0) this.imports = true;
          kind = K_GLOBAL; break;
        case 0x69: // i INST: module, name; the class is called with the items above the mark
          next = this.line(pos, isDottedNameLine);
          if (next > 0) next = this.line(next, isDottedNameLine);
          if (next <= 0) break;
          if (this.marks.length === 0) return BROKEN;
          this.sp = this.marks.pop()!;
          kind = K_RESULT; this.imports = true; this.calls = true; break;
        case 0x93: // STACK_GLOBAL: module and name strings
          if (this.depth < 2 || !accepts(this.top(), K_STRING) || !accepts(this.top(1), K_STRING)) return BROKEN;
          this.sp -= 2; kind = K_GLOBAL; this.imports = true; break;
        case 0x52: case 0x81: // R REDUCE, NEWOBJ: a callable and an argument tuple
          if (this.depth < 2 || !accepts(this.top(), K_TUPLE) || !accepts(this.top(1), K_CALLABLE)) return BROKEN;
          if (acts(this.top(1))) this.calls = true;
          this.sp -= 2; kind = K_RESULT; break;
        case 0x92: // NEWOBJ_EX: class, argument tuple, keyword dict
          if (this.depth < 3 || !accepts(this.top(), K_DICT) || !accepts(this.top(1), K_TUPLE) ||
            !accepts(this.top(2), K_CALLABLE)) return BROKEN;
          if (acts(this.top(2))) this.calls = true;
          this.sp -= 3; kind = K_RESULT; break;
        case 0x6f: { // o OBJ: the class is the first item above the mark
          if (this.marks.length === 0 || this.depth < 1) return BROKEN;
          const cls = pickleStack[this.marks[this.marks.length - 1]];
          if (!accepts(cls, K_CALLABLE)) return BROKEN;
          if (acts(cls)) this.calls = true;
          this.sp = this.marks.pop()!; kind = K_RESULT; break;
        }
        case 0x62: { // b BUILD: state for the object below it (a dict, a pair, or None)
          if (this.depth < 2) return BROKEN;
          const state = this.top();
          if (state !== K_OPAQUE && state !== K_RESULT && state !== K_DICT && state !== K_TUPLE && state !== K_NONE) {
            return BROKEN;
          }
          // None as state changes nothing on an object without __setstate__.
          if (acts(this.top(1)) && state !== K_NONE) this.calls = true;
          this.sp -= 1; break;
        }

        case 0x2e: // . STOP
          if (this.depth < 1) return BROKEN;
          this.balanced = this.sp === 1 && this.marks.length === 0;
          return STOPPED;
        default:
          return BROKEN;
      }
      if (next <= 0) return -next;
      if (kind >= 0) this.push(kind);
      pos = next;
    }
    return this.short();
  }

  /** Data ended: fine only where the inspected prefix cut the payload short. */
  private short(): number {
    return this.complete ? BROKEN : WINDOW;
  }

  /** Position after `size` argument bytes, or minus the end code. */
  private fixed(pos: number, size: number): number {
    return pos + size <= this.b.length ? pos + size : -this.short();
  }

  /** Position after a newline-terminated argument that passes `valid`, or minus the end code. */
  private line(pos: number, valid: (b: Uint8Array, from: number, to: number, cut: boolean) => boolean): number {
    const b = this.b;
    let nl = pos;
    while (nl < b.length && b[nl] !== 0x0a) nl++;
    // A line the prefix cuts short must still be a valid start of one.
    if (nl >= b.length) return this.complete || !valid(b, pos, nl, true) ? -BROKEN : -WINDOW;
    return valid(b, pos, nl, false) ? nl + 1 : -BROKEN;
  }

  /** Position after a little-endian length of `size` bytes and that many bytes of data. */
  private counted(pos: number, size: number): number {
    const b = this.b;
    if (pos + size > b.length) return -this.short();
    let len = 0;
    for (let k = Math.min(size, 4) - 1; k >= 0; k--) len = len * 256 + b[pos + k];
    for (let k = 4; k < size; k++) if (b[pos + k] !== 0) return -this.short();
    // BINSTRING's length is signed; a negative one is refused by Python.
    if (size === 4 && b[pos - 1] === 0x54 && len >= 0x80000000) return -BROKEN;
    const end = pos + size + len;
    return end > b.length ? -this.short() : end;
  }
}

// Whether Python could accept an item of kind `have` where `want` is needed. Imported
// objects may be callables or containers (os.environ), never argument tuples or state.
function accepts(have: number, want: number): boolean {
  if (have === want || have === K_OPAQUE || have === K_RESULT) return true;
  if (have === K_GLOBAL) return want === K_CALLABLE || want === K_LIST || want === K_DICT || want === K_SET;
  return want === K_DICT && have === K_LIST; // list[index] = value is a SETITEM as well
}

// Calling an imported object, or giving it state, is where a pickle acts. Filling one in
// place (sys.path, os.environ) also acts, but prose forms "c...\n...\nV...\na" as well,
// so those count only in a well-formed stream, through `imports`.
function acts(target: number): boolean {
  return target === K_GLOBAL || target === K_RESULT;
}

function uint32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}

// Memo keys from text lines; past 15 digits the exact value no longer matters.
function decimal(b: Uint8Array, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to && i - from < 15; i++) v = v * 10 + (b[i] - 0x30);
  return v;
}

// Argument lines. With `cut`, the line runs into the end of the inspected prefix and only
// has to be a valid start of one.

function anyLine(): boolean {
  return true;
}

function isDigitsLine(b: Uint8Array, from: number, to: number, cut: boolean): boolean {
  if (from === to) return cut;
  for (let i = from; i < to; i++) if (b[i] < 0x30 || b[i] > 0x39) return false;
  return true;
}

// INT and LONG: an optional sign, digits, and for LONG an optional trailing L.
function isIntLine(b: Uint8Array, from: number, to: number, cut: boolean): boolean {
  if (from < to && (b[from] === 0x2d || b[from] === 0x2b)) from++;
  if (to > from && b[to - 1] === 0x4c) to--;
  return isDigitsLine(b, from, to, cut);
}

function isFloatLine(b: Uint8Array, from: number, to: number, cut: boolean): boolean {
  if (from === to) return cut;
  for (let i = from; i < to; i++) {
    const c = b[i];
    const ok = (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || isAsciiLetter(c);
    if (!ok) return false;
  }
  return true;
}

function isQuotedLine(b: Uint8Array, from: number, to: number, cut: boolean): boolean {
  if (cut) return from === to || b[from] === 0x27 || b[from] === 0x22;
  return to - from >= 2 && (b[from] === 0x27 || b[from] === 0x22) && b[to - 1] === b[from];
}

// Module and attribute names: ASCII identifiers joined by dots.
function isDottedNameLine(b: Uint8Array, from: number, to: number, cut: boolean): boolean {
  let partStart = from;
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c === 0x2e) {
      if (i === partStart) return false;
      partStart = i + 1;
    } else if (!(isAsciiLetter(c) || c === 0x5f || (i > partStart && c >= 0x30 && c <= 0x39))) {
      return false;
    }
  }
  return cut || to > partStart;
}

// ------------------------------------------------------------------ fastjson autoType

/**
 * JSON (or fastjson's lenient dialect: single quotes, bare keys, comments, \x escapes) with
 * an "@type" key whose string value names a Java class. JSON-LD's "@type": "Person" and
 * protobuf's "type.googleapis.com/..." are not class names.
 */
function isFastjson(b: Uint8Array): boolean {
  let i = skipJsonSpace(b, 0);
  if (i >= b.length || (b[i] !== 0x7b && b[i] !== 0x5b)) return false;
  let keyPosition = false; // just after `{` or `,`
  while (i < b.length) {
    const c = b[i];
    if (c === 0x22 || c === 0x27) {
      const s = readJsonString(b, i, 5);
      if (s.end < 0) return false;
      i = s.end;
      if (keyPosition && s.text === '@type' && typeValueIsClass(b, i)) return true;
      keyPosition = false;
    } else if (isJsonSpace(c) || c === 0x2f) {
      const j = skipJsonSpace(b, i);
      if (j === i) { keyPosition = false; i++; } else i = j;
    } else if (c === 0x7b || c === 0x2c) {
      keyPosition = true;
      i++;
    } else if (keyPosition && c === 0x40) {
      // A bare key: fastjson accepts field names without quotes.
      let j = i;
      while (j < b.length && j - i < 6 && isBareKeyByte(b[j])) j++;
      if (j - i === 5 && matchesAscii(b, i, '@type') && typeValueIsClass(b, j)) return true;
      keyPosition = false;
      i = j;
    } else {
      keyPosition = false;
      i++;
    }
  }
  return false;
}

function typeValueIsClass(b: Uint8Array, afterKey: number): boolean {
  let i = skipJsonSpace(b, afterKey);
  if (i >= b.length || b[i] !== 0x3a) return false;
  i = skipJsonSpace(b, i + 1);
  if (i >= b.length || (b[i] !== 0x22 && b[i] !== 0x27)) return false;
  const s = readJsonString(b, i, 256);
  return s.end >= 0 && s.text !== null && isJavaClassName(s.text);
}

// fastjson loads "[name" as an array of name and "Lname;" as name, so both wrap a class.
function isJavaClassName(name: string): boolean {
  let from = 0;
  let to = name.length;
  while (from < to && name.charCodeAt(from) === 0x5b) from++;
  if (to - from > 2 && name.charCodeAt(from) === 0x4c && name.charCodeAt(to - 1) === 0x3b) {
    from++;
    to--;
  }
  let parts = 0;
  let partStart = from;
  for (let i = from; i <= to; i++) {
    const c = i < to ? name.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (i === partStart) return false;
      parts++;
      partStart = i + 1;
    } else if (!(isAsciiLetter(c) || c === 0x5f || c === 0x24 || (i > partStart && c >= 0x30 && c <= 0x39))) {
      return false;
    }
  }
  return parts >= 2;
}

/**
 * Reads a quoted string at `start`; `text` is its decoded value when at most `keep`
 * characters long, else null. `end` is the position after the closing quote, or -1.
 */
function readJsonString(b: Uint8Array, start: number, keep: number): { end: number; text: string | null } {
  const quote = b[start];
  let text = '';
  let length = 0;
  let i = start + 1;
  while (i < b.length) {
    let c = b[i];
    if (c === quote) return { end: i + 1, text: length <= keep ? text : null };
    if (c === 0x5c) {
      if (i + 1 >= b.length) break;
      const e = b[i + 1];
      if (e === 0x75 && i + 5 < b.length && hexValue(b, i + 2, 4) >= 0) {
        c = hexValue(b, i + 2, 4);
        i += 6;
      } else if (e === 0x78 && i + 3 < b.length && hexValue(b, i + 2, 2) >= 0) {
        c = hexValue(b, i + 2, 2);
        i += 4;
      } else {
        c = e;
        i += 2;
      }
    } else {
      i++;
    }
    if (++length <= keep) text += String.fromCharCode(c);
  }
  return { end: -1, text: null };
}

function hexValue(b: Uint8Array, from: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = b[from + k];
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// fastjson's lexer treats \b and \f as space too, and skips /* */ and // comments.
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c || c === 0x08;
}

function skipJsonSpace(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i];
    if (isJsonSpace(c)) {
      i++;
    } else if (c === 0x2f && i + 1 < b.length && b[i + 1] === 0x2a) {
      i += 2;
      while (i < b.length && !(b[i] === 0x2a && i + 1 < b.length && b[i + 1] === 0x2f)) i++;
      i = Math.min(i + 2, b.length);
    } else if (c === 0x2f && i + 1 < b.length && b[i + 1] === 0x2f) {
      while (i < b.length && b[i] !== 0x0a) i++;
    } else {
      break;
    }
  }
  return i;
}

function isBareKeyByte(c: number): boolean {
  return isAsciiLetter(c) || c === 0x40 || c === 0x5f || c === 0x24 || (c >= 0x30 && c <= 0x39);
}

// ------------------------------------------------------------------ PHP unserialize

const PHP_OK = 0;
const PHP_BAD = 1;
const PHP_SHORT = 2; // data ended inside a value
const PHP_DEEP = 3; // nested past PHP_MAX_DEPTH: valid so far, not followed further
const PHP_MAX_DEPTH = 64;

/**
 * An array or object in PHP's serialize() format, parsed with its declared lengths and
 * counts. Top-level scalars (`i:1;`, `s:1:"x";`) build no object and are not reported.
 */
function isPhpSerialized(b: Uint8Array, complete: boolean): boolean {
  let i = 0;
  while (i < b.length && isJsonSpace(b[i])) i++;
  if (i >= b.length || (b[i] !== 0x61 && b[i] !== 0x4f && b[i] !== 0x43)) return false; // a O C
  const p = new PhpParser(b);
  const r = p.value(i, 0);
  if (r === PHP_OK || r === PHP_DEEP) return true;
  if (r === PHP_SHORT && !complete) return true;
  // PHP has already woken every object it finished building when it meets the error.
  return p.objects > 0;
}

class PhpParser {
  objects = 0;
  pos = 0;
  private readonly b: Uint8Array;

  constructor(b: Uint8Array) {
    this.b = b;
  }

  /** Parses one value at `at`; on PHP_OK, `pos` is just after it. */
  value(at: number, depth: number): number {
    const b = this.b;
    if (at + 1 >= b.length) return PHP_SHORT;
    const type = b[at];
    if (type === 0x4e) { // N;
      this.pos = at + 2;
      return b[at + 1] === 0x3b ? PHP_OK : PHP_BAD;
    }
    if (b[at + 1] !== 0x3a) return PHP_BAD;
    let i = at + 2;
    switch (type) {
      case 0x62: // b:0; b:1;
        if (i + 1 >= b.length) return PHP_SHORT;
        if (b[i] !== 0x30 && b[i] !== 0x31) return PHP_BAD;
        return this.expect(i + 1, 0x3b);
      case 0x69: case 0x72: case 0x52: { // i: r: R: integers
        const j = this.number(i, true);
        return j < 0 ? -j : this.expect(j, 0x3b);
      }
      case 0x64: { // d: float, INF, NAN
        let j = i;
        while (j < b.length && isPhpFloatByte(b[j])) j++;
        if (j >= b.length) return PHP_SHORT;
        return j === i ? PHP_BAD : this.expect(j, 0x3b);
      }
      case 0x73: case 0x45: { // s:<len>:"<bytes>"; and enums E:<len>:"Class:Case";
        const j = this.quoted(i);
        return j < 0 ? -j : this.expect(j, 0x3b);
      }
      case 0x53: { // S:<len>:"<chars, \hh escapes>";
        const j = this.escapedQuoted(i);
        return j < 0 ? -j : this.expect(j, 0x3b);
      }
      case 0x61: { // a:<n>:{<key><value>...}
        const j = this.number(i, false);
        if (j < 0) return -j;
        return this.members(j, this.count, depth);
      }
      case 0x4f: case 0x43: { // O:<len>:"<class>":<n>:{...}  C:<len>:"<class>":<len>:{<bytes>}
        let j = this.quoted(i, true);
        if (j < 0) return -j;
        if (j >= b.length) return PHP_SHORT;
        if (b[j] !== 0x3a) return PHP_BAD;
        j = this.number(j + 1, false);
        if (j < 0) return -j;
        const n = this.count;
        let r: number;
        if (type === 0x4f) {
          r = this.members(j, n, depth);
        } else {
          if (j + 1 >= b.length) return PHP_SHORT;
          if (b[j] !== 0x3a || b[j + 1] !== 0x7b) return PHP_BAD;
          const close = j + 2 + n;
          if (close >= b.length) return PHP_SHORT;
          this.pos = close + 1;
          r = b[close] === 0x7d ? PHP_OK : PHP_BAD;
        }
        if (r === PHP_OK) this.objects++;
        return r;
      }
      default:
        return PHP_BAD;
    }
  }

  private count = 0;

  /** `:{`, then n key/value pairs, then `}`. */
  private members(at: number, n: number, depth: number): number {
    const b = this.b;
    if (at + 1 >= b.length) return PHP_SHORT;
    if (b[at] !== 0x3a || b[at + 1] !== 0x7b) return PHP_BAD;
    // Deeper nesting than this is structure enough; PHP's own default limit is 4096.
    if (depth >= PHP_MAX_DEPTH) return PHP_DEEP;
    let i = at + 2;
    for (let k = 0; k < n; k++) {
      if (i >= b.length) return PHP_SHORT;
      const kt = b[i];
      if (kt !== 0x69 && kt !== 0x73 && kt !== 0x53) return PHP_BAD; // keys are integers or strings
      let r = this.value(i, depth + 1);
      if (r !== PHP_OK) return r;
      r = this.value(this.pos, depth + 1);
      if (r !== PHP_OK) return r;
      i = this.pos;
    }
    return this.expect(i, 0x7d);
  }

  private expect(at: number, c: number): number {
    if (at >= this.b.length) return PHP_SHORT;
    this.pos = at + 1;
    return this.b[at] === c ? PHP_OK : PHP_BAD;
  }

  /**
   * Digits (a sign only where PHP reads a signed integer; a `+` on lengths, which old PHP
   * versions accepted and filters matching `O:\d` missed). Sets `count`; returns the
   * position after the digits, or minus a PHP_ code.
   */
  private number(at: number, signed: boolean): number {
    const b = this.b;
    let i = at;
    if (i < b.length && (b[i] === 0x2b || (signed && b[i] === 0x2d))) i++;
    const digits = i;
    let v = 0;
    while (i < b.length && b[i] >= 0x30 && b[i] <= 0x39) {
      if (i - digits >= 10) return -PHP_BAD;
      v = v * 10 + (b[i] - 0x30);
      i++;
    }
    if (i >= b.length) return -PHP_SHORT;
    if (i === digits) return -PHP_BAD;
    this.count = v;
    return i;
  }

  /** `<len>:"`: the position after the opening quote (the length in this.count), or minus a PHP_ code. */
  private lengthOpen(at: number): number {
    const b = this.b;
    const i = this.number(at, false);
    if (i < 0) return i;
    if (i + 1 >= b.length) return -PHP_SHORT;
    if (b[i] !== 0x3a || b[i + 1] !== 0x22) return -PHP_BAD;
    return i + 2;
  }

  /** `<len>:"<len bytes>"`: the position after the closing quote, or minus a PHP_ code. */
  private quoted(at: number, className = false): number {
    const b = this.b;
    const i = this.lengthOpen(at);
    if (i < 0) return i;
    const len = this.count;
    if (className && len === 0) return -PHP_BAD;
    const close = i + len;
    if (close >= b.length) return -PHP_SHORT;
    if (b[close] !== 0x22) return -PHP_BAD;
    if (className) {
      for (let k = i; k < close; k++) if (!isPhpClassByte(b[k], k === i)) return -PHP_BAD;
    }
    return close + 1;
  }

  private escapedQuoted(at: number): number {
    const b = this.b;
    let i = this.lengthOpen(at);
    if (i < 0) return i;
    const len = this.count;
    for (let k = 0; k < len; k++) {
      if (i >= b.length) return -PHP_SHORT;
      if (b[i] === 0x5c) {
        if (i + 2 >= b.length) return -PHP_SHORT;
        if (hexValue(b, i + 1, 2) < 0) return -PHP_BAD;
        i += 3;
      } else {
        i++;
      }
    }
    if (i >= b.length) return -PHP_SHORT;
    return b[i] === 0x22 ? i + 1 : -PHP_BAD;
  }
}

function isPhpFloatByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x45 || c === 0x65 ||
    c === 0x49 || c === 0x4e || c === 0x46 || c === 0x41;
}

// Class names: letters, digits (not first), `_`, `\` between namespaces, bytes >= 0x80.
function isPhpClassByte(c: number, first: boolean): boolean {
  return isAsciiLetter(c) || c === 0x5f || c === 0x5c || c >= 0x80 || (!first && c >= 0x30 && c <= 0x39);
}

// ------------------------------------------------------------------ shared

function isAsciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function matchesAscii(b: Uint8Array, at: number, s: string): boolean {
  if (at + s.length > b.length) return false;
  for (let k = 0; k < s.length; k++) if (b[at + k] !== s.charCodeAt(k)) return false;
  return true;
}
