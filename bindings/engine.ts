// Thin TypeScript over shield.wasm: loads it once, packs all values of a call into one batch,
// makes one wasm call, and reads every finding from one result table. No per-value wasm calls.

import { WASM_BASE64 } from './gen/wasm-bytes.js';
import { urlFinding, internalTargetRule, type UrlTargetRules } from './ssrf-scan.js';
import { keyCheck, jsonFindings, type KeyCheck } from './object-keys.js';
import { parseRuleBlob, type RuleInfo } from './rule-blob.js';
import { detach } from './text.js';

export interface Finding {
  /** Attack class: xss, sql, path, ... (the second part of the rule id). */
  vector: string;
  /** Rule id, `patterns.<vector>.<rule-name>`. */
  rule: string;
  /** The offending text (decoded), at most 80 characters. */
  matched: string;
  /** Offsets in the decoded value (after NFKC and URL/HTML decoding), in UTF-16 code units. */
  start: number;
  end: number;
}

export interface EngineOptions {
  rules?: { disable?: readonly string[] };
  /** Values longer than this (UTF-16 code units) are not scanned but reported as patterns.limits.oversize. */
  maxValueLength?: number;
  /**
   * Upper bound on the engine's linear memory in MiB; an input that needs more is reported as
   * patterns.engine.fault. The module starts with about 0.5 MiB, which a smaller cap cannot undo.
   */
  maxMemoryMiB?: number;
}

export interface SanitizeOptions {
  /** Strip script elements, javascript: URLs, event handlers, embedding and injection tags (default true). */
  xss?: boolean;
  /** Replace SQL injection hits with [BLOCKED] (default true). */
  sql?: boolean;
  /** Strip ../ and ..\ until stable (default true). */
  path?: boolean;
  /** HTML-encode < > " ' & in the result (default true). */
  encode?: boolean;
  /** Remove template expressions that hold code and Python dunder names (default false: not part of SPEC's sanitizeString). */
  ssti?: boolean;
  /** Remove DOCTYPE declarations with a subset or external id, ENTITY declarations, CDATA sections (default false). */
  xxe?: boolean;
  /** SPEC's command sanitizer: strip ; & | ` $( ${ >> << and control characters (default false: it changes "R&D" too). */
  command?: boolean;
}

interface Exports {
  memory: WebAssembly.Memory;
  abi_version(): number;
  rules_default_ptr(): number;
  rules_default_len(): number;
  init(ptr: number, len: number): number;
  set_rule_enabled(index: number, on: number): void;
  set_max_value_length(units: number): void;
  set_memory_limit(pages: number): void;
  batch_reserve(count: number, units: number): number;
  scan_batch(): number;
  result_ptr(): number;
  decode_value(index: number): number;
  batch_changed_ptr(): number;
  batch_urls_ptr(): number;
  sanitize_value(index: number, flags: number): number;
  output_ptr(): number;
}

export const ABI_VERSION = 1;
/** Findings one batch's result table holds (assembly/findings.ts MAX_PER_BATCH, ABI.md). */
const MAX_PER_BATCH = 4096;
/** Values a batch may hold without filling the result table (16 findings per value at most). */
const SAFE_BATCH = MAX_PER_BATCH / 16;
const DEFAULT_MAX_VALUE = 1 << 20;

let wasmModule: WebAssembly.Module | undefined;

function decodeBase64(b64: string): Uint8Array {
  const B = (globalThis as { Buffer?: { from(s: string, e: string): Uint8Array } }).Buffer;
  if (B) return new Uint8Array(B.from(b64, 'base64'));
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The compiled engine module (compiled once per process, synchronously). */
export function engineModule(): WebAssembly.Module {
  wasmModule ??= new WebAssembly.Module(decodeBase64(WASM_BASE64) as BufferSource);
  return wasmModule;
}

/** The engine's wasm bytes, for hosts that instantiate it themselves. */
export function engineBytes(): Uint8Array {
  return decodeBase64(WASM_BASE64);
}

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === 'function';

function readUtf16(mem: ArrayBuffer, ptr: number, units: number): string {
  if (units === 0) return '';
  if (hasBuffer && units > 64) return Buffer.from(mem, ptr, units * 2).toString('utf16le');
  const u16 = new Uint16Array(mem, ptr, units);
  let s = '';
  for (let i = 0; i < units; i += 4096) s += String.fromCharCode.apply(null, u16.subarray(i, i + 4096) as unknown as number[]);
  return s;
}

/** Rules reported for values the engine did not scan; they cannot be disabled (why, per id). */
const UNSCANNED_RULES = new Map<string, string>([
  ['patterns.limits.oversize', 'a value over maxValueLength is not scanned, so it is always reported (raise maxValueLength instead)'],
  ['patterns.engine.fault', 'a value that crashed the engine was not scanned, so it is always reported'],
]);

/** The first n code points of s (a surrogate pair is never split). */
function firstCodePoints(s: string, n: number): string {
  let end = 0;
  for (let cps = 0; cps < n && end < s.length; cps++) {
    const c = s.charCodeAt(end);
    end += c >= 0xd800 && c < 0xdc00 && end + 1 < s.length && (s.charCodeAt(end + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return detach(s.slice(0, end));
}

export class Engine {
  readonly rules: readonly RuleInfo[];
  private ex!: Exports;
  private readonly disabled = new Set<number>();
  private readonly maxValueLength: number;
  private readonly memoryPages: number;
  /** Traps survived since creation (each one re-instantiated the module). */
  faults = 0;

  constructor(options: EngineOptions = {}) {
    const max = options.maxValueLength ?? DEFAULT_MAX_VALUE;
    if (!Number.isInteger(max) || max < 1 || max > 0x7fffffff) {
      throw new TypeError(`maxValueLength must be an integer from 1 to 2147483647, got ${String(options.maxValueLength)}`);
    }
    this.maxValueLength = max;
    const mib = options.maxMemoryMiB ?? 4096;
    if (!(typeof mib === 'number' && mib >= 1)) throw new TypeError(`maxMemoryMiB must be a number >= 1, got ${String(options.maxMemoryMiB)}`);
    this.memoryPages = Math.min(65536, Math.floor(mib * 16));
    this.instantiate();
    const ex = this.ex;
    this.rules = parseRuleBlob(new Uint8Array(ex.memory.buffer, ex.rules_default_ptr(), ex.rules_default_len()).slice());
    this.oversizeIndex = this.rules.findIndex((r) => r.id === 'patterns.limits.oversize');
    for (const id of options.rules?.disable ?? []) this.disable(id);
  }

  private instantiate(): void {
    const instance = new WebAssembly.Instance(engineModule(), { env: { abort: () => {} } });
    const ex = instance.exports as unknown as Exports;
    if (ex.abi_version() !== ABI_VERSION) throw new Error(`shield.wasm ABI ${ex.abi_version()} does not match the bindings (${ABI_VERSION})`);
    const n = ex.init(ex.rules_default_ptr(), ex.rules_default_len());
    if (n < 0) throw new Error(`shield.wasm rejected its default rule blob (error ${n})`);
    ex.set_max_value_length(this.maxValueLength);
    ex.set_memory_limit(this.memoryPages);
    for (const i of this.disabled) ex.set_rule_enabled(i, 0);
    this.ex = ex;
    this.u8View = null; // a new instance has a memory of its own
  }

  /**
   * Switches off a rule by id, or every rule of a vector with `patterns.<vector>.*`. The two
   * rules that stand for a value that was not scanned (oversize, engine fault) cannot be
   * switched off: that would let such a value pass silently.
   */
  disable(id: string): void {
    if (typeof id !== 'string') throw new TypeError(`rules.disable entries must be strings, got ${typeof id}`);
    const why = UNSCANNED_RULES.get(id.endsWith('.*') ? '' : id);
    if (why) throw new Error(`rules.disable: "${id}" cannot be switched off: ${why}`);
    let hit = false;
    let protectedOnly = false;
    const prefix = id.endsWith('.*') ? id.slice(0, -1) : null;
    this.rules.forEach((r, i) => {
      if (prefix ? r.id.startsWith(prefix) : r.id === id) {
        if (UNSCANNED_RULES.has(r.id)) { protectedOnly = !hit; return; }
        this.disabled.add(i);
        this.ex.set_rule_enabled(i, 0);
        hit = true;
        protectedOnly = false;
      }
    });
    if (protectedOnly) throw new Error(`rules.disable: "${id}" names only rules that cannot be switched off (${[...UNSCANNED_RULES.keys()].join(', ')})`);
    if (!hit) throw new Error(`rules.disable: unknown rule id "${id}" (known ids: engine.rules, e.g. patterns.sql.comment)`);
  }

  /** Total length of the values; throws a TypeError naming the first value that is not a string. */
  private static units(values: readonly string[]): number {
    let units = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== 'string') throw new TypeError(`value ${i} must be a string, got ${v === null ? 'null' : typeof v}`);
      units += v.length;
    }
    return units;
  }

  // Views over the engine's memory, made again when memory grows or the engine is made anew.
  // Growing detaches the old buffer, so a view of length 0 means stale: this test costs a field
  // read, where reading `memory.buffer` costs ~17 ns (two or three times per scan). `length`,
  // not `byteLength`: V8 inlines the one and calls a builtin for the other (~15 ns a batch).
  private viewBuf: ArrayBuffer | null = null;
  private u32 = new Uint32Array(0);
  private u16 = new Uint16Array(0);
  private bytes: Buffer | null = null;

  private u8View: Uint8Array | null = null;

  private views(): void {
    if (this.u8View !== null && this.u8View.length !== 0) return;
    const buf = this.ex.memory.buffer;
    this.viewBuf = buf;
    this.u8View = new Uint8Array(buf);
    this.u32 = new Uint32Array(buf);
    this.u16 = new Uint16Array(buf);
    this.bytes = hasBuffer ? Buffer.from(buf) : null;
  }

  /** Packs values into the engine's batch (may trap when the memory cap is too small for them). */
  private pack(values: readonly string[], units: number): void {
    const ex = this.ex;
    const ptr = ex.batch_reserve(values.length, units);
    this.views();
    const u32 = this.u32;
    const h = ptr >>> 2; // the batch is 16-byte aligned
    u32[h] = values.length;
    const textByte = ptr + 4 + values.length * 8;
    let off = 0;
    if (this.bytes !== null && units > 256) {
      // Buffer#write pays ~0.1 us per call: long values only; short ones (most keys and
      // form fields) are copied unit by unit
      const b = this.bytes;
      const u16 = this.u16;
      const t = textByte >>> 1;
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        u32[h + 1 + i * 2] = off;
        u32[h + 2 + i * 2] = v.length;
        if (v.length > 48) b.write(v, textByte + off * 2, v.length * 2, 'utf16le');
        else for (let k = 0, base = t + off; k < v.length; k++) u16[base + k] = v.charCodeAt(k);
        off += v.length;
      }
    } else {
      const u16 = this.u16;
      const t = textByte >>> 1;
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        u32[h + 1 + i * 2] = off;
        u32[h + 2 + i * 2] = v.length;
        const base = t + off;
        for (let k = 0; k < v.length; k++) u16[base + k] = v.charCodeAt(k);
        off += v.length;
      }
    }
  }

  /** Reads the batch's findings of values before `upTo` (all of them by default). */
  private readFindings(count: number, out: Finding[][], upTo = Infinity): void {
    if (count === 0) return;
    this.views();
    const buf = this.viewBuf!;
    // Buffer#toString over the whole memory: no view made per text (about 50 ns a finding, 80 with one)
    const bytes = this.bytes;
    const table = this.u32;
    const t = this.ex.result_ptr() >>> 2;
    for (let k = 0; k < count; k++) {
      const e = t + 2 + k * 6;
      if (table[e] >= upTo) break; // entries are in value order
      const rule = this.rules[table[e + 1]];
      const mp = table[e + 4];
      const mn = table[e + 5];
      out[table[e]].push({
        vector: rule.vector,
        rule: rule.id,
        matched: mn === 0 ? '' : bytes !== null ? bytes.toString('utf16le', mp, mp + mn * 2) : readUtf16(buf, mp, mn),
        start: table[e + 2],
        end: table[e + 3],
      });
    }
  }

  private faultFinding(value: string): Finding {
    return { vector: 'engine', rule: 'patterns.engine.fault', matched: firstCodePoints(value, 80), start: 0, end: value.length };
  }

  private recover(): void {
    this.faults++;
    if (this.faults === 1) console.error('shield: the detection engine trapped; it was re-instantiated and the request reported as patterns.engine.fault');
    this.instantiate();
  }

  /** Scans every value in one wasm call; returns the findings of each value, in order. */
  scanValues(values: readonly string[]): Finding[][] {
    // a plain loop: Array#map with a closure costs ~60 ns more per 8-value batch
    const out: Finding[][] = new Array(values.length);
    for (let i = 0; i < out.length; i++) out[i] = [];
    if (values.length === 0) return out;
    let units = Engine.units(values);
    if (units > this.maxValueLength) {
      // values over the cap are reported here and packed empty: never copied into the engine
      let oversized = false;
      for (const v of values) if (v.length > this.maxValueLength) { oversized = true; break; }
      if (oversized) {
        const kept = values.map((v, i) => {
          if (v.length <= this.maxValueLength) return v;
          if (this.oversizeIndex >= 0 && !this.disabled.has(this.oversizeIndex)) out[i].push(this.oversizeFinding(v));
          return '';
        });
        return this.scanPacked(kept, Engine.units(kept), out);
      }
    }
    return this.scanPacked(values, units, out);
  }

  private readonly oversizeIndex: number = -1;

  private oversizeFinding(v: string): Finding {
    return { vector: 'limits', rule: 'patterns.limits.oversize', matched: firstCodePoints(v, 80), start: 0, end: v.length };
  }

  private scanPacked(values: readonly string[], units: number, out: Finding[][]): Finding[][] {
    let count: number;
    try {
      this.pack(values, units);
      count = this.ex.scan_batch();
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      this.recover();
      // isolate the value that trapped: scan one at a time on a fresh instance
      for (let i = 0; i < values.length; i++) {
        try {
          const one = this.scanOne(values[i]);
          out[i].push(...one);
        } catch {
          this.recover();
          out[i].push(this.faultFinding(values[i]));
        }
      }
      return out;
    }
    if (count < 0) throw new Error('shield.wasm rejected the batch header (bindings bug)');
    // The result table holds MAX_PER_BATCH findings. When it filled up, the value its last
    // finding belongs to, and every value after it, may have lost findings (and would pass a
    // sanitizing shield() untouched): they are scanned again, in batches of SAFE_BATCH values,
    // which cannot fill the table (a value has at most 16 findings), so no value is scanned
    // more than twice.
    const upTo = count >= MAX_PER_BATCH ? this.overflowFrom(count, values.length) : values.length;
    this.readFindings(count, out, upTo);
    this.decodedChecks(values, out, upTo);
    for (let from = upTo; from < values.length; from += SAFE_BATCH) {
      const part = values.slice(from, from + SAFE_BATCH);
      const partOut: Finding[][] = part.map(() => []);
      this.scanPacked(part, Engine.units(part), partOut);
      for (let k = 0; k < part.length; k++) for (const f of partOut[k]) out[from + k].push(f);
    }
    return out;
  }

  /**
   * After a batch whose result table is full: the first value whose findings may be incomplete
   * (the one the last recorded finding belongs to), or `n` when nothing was dropped.
   */
  private overflowFrom(count: number, n: number): number {
    this.views();
    const t = this.ex.result_ptr() >>> 2;
    if (this.u32[t + 1] === 0) return n; // full, but nothing dropped
    const last = this.u32[t + 2 + (count - 1) * 6];
    return last > 0 ? last : n; // 0: one value filled the table alone (cannot happen: 16 per value)
  }

  /**
   * The checks the bindings make on decoded text (SSRF, ssrf-scan.ts; listed keys in JSON
   * values, object-keys.ts), only for values the engine flagged, while the batch is still
   * packed. Flags and listed URLs are copied out first: decode_value may grow memory and
   * detach every view.
   */
  private decodedChecks(values: readonly string[], out: Finding[][], upTo = values.length): void {
    const at = this.ex.batch_changed_ptr();
    this.views(); // the scan may have grown memory
    const flags = this.u8View!;
    let work: { i: number; fl: number; urls: number[] }[] | null = null;
    for (let i = 0; i < upTo; i++) {
      const fl = flags[at + i];
      if ((fl & 6) === 0) continue; // bit 1: URLs to judge, bit 2: JSON that may hold a listed key
      let urls: number[] = [];
      if ((fl & 2) !== 0) {
        const row = (this.ex.batch_urls_ptr() >>> 2) + i * 17;
        const listed = this.u32[row];
        urls = Array.from(this.u32.subarray(row + 1, row + 1 + Math.min(listed, 16)));
        if (listed > 16) urls.push(-1); // past 16: everything from the last one
      }
      (work ??= []).push({ i, fl, urls });
    }
    if (work === null) return;
    const rules = this.urlRules();
    let kc: KeyCheck | null = null;
    for (const { i, fl, urls } of work) {
      // a value the pipeline left as it is needs no second engine call
      let text = values[i];
      if ((fl & 1) !== 0) {
        const n = this.ex.decode_value(i);
        if (n < 0) continue;
        text = readUtf16(this.ex.memory.buffer, this.ex.output_ptr(), n);
      }
      if (urls.length > 0 && (rules.internal || rules.smuggling)) {
        const past = urls[urls.length - 1] === -1;
        const starts = past ? urls.slice(0, -1) : urls;
        let f: Finding | null = null;
        for (let k = 0; k < starts.length && !f; k++) f = urlFinding(text, rules, starts[k], !(past && k === starts.length - 1));
        if (f && out[i].length < 16) out[i].push(f);
      }
      if ((fl & 4) !== 0) {
        kc ??= keyCheck(this);
        const fs = kc.on === 0 ? null : jsonFindings(kc, text);
        if (fs) for (const f of fs) if (out[i].length < 16) out[i].push(f);
      }
    }
  }

  private urlRulesCache: UrlTargetRules | null = null;
  private urlRulesKey = -1;

  /** The enabled url-internal and url-smuggling rules, recomputed when rules are switched off. */
  private urlRules(): UrlTargetRules {
    if (this.urlRulesCache && this.urlRulesKey === this.disabled.size) return this.urlRulesCache;
    const r: UrlTargetRules = {};
    this.rules.forEach((rule, i) => {
      if ((rule.kind !== 'url-internal' && rule.kind !== 'url-smuggling') || !rule.enabledByDefault || this.disabled.has(i)) return;
      if (rule.kind === 'url-smuggling') r.smuggling = { id: rule.id, schemes: new Set(rule.params) };
      else r.internal = internalTargetRule(rule.id, rule.params);
    });
    this.urlRulesCache = r;
    this.urlRulesKey = this.disabled.size;
    return r;
  }

  private scanOne(value: string): Finding[] {
    const out: Finding[][] = [[]];
    this.pack([value], value.length);
    const count = this.ex.scan_batch();
    this.readFindings(count, out);
    return out[0];
  }

  /** How many rules are switched off (rules can only be switched off, so this changes whenever the set does). */
  get disabledCount(): number {
    return this.disabled.size;
  }

  /** Whether rule `id` is on in this engine (known ids only; an unknown id is false). */
  isEnabled(id: string): boolean {
    const i = this.rules.findIndex((r) => r.id === id);
    return i >= 0 && this.rules[i].enabledByDefault && !this.disabled.has(i);
  }

  scan(value: string): Finding[] {
    return this.scanValues([value])[0];
  }

  /** The text detectors see: NFKC, default-ignorables removed, URL and HTML decoding (at most 4 rounds). */
  decode(value: string): string {
    return this.single(value, (ex) => ex.decode_value(0));
  }

  /** SPEC's sanitizeString pipeline; the result is a fixed point (sanitizing it again changes nothing). */
  sanitize(value: string, options: SanitizeOptions = {}): string {
    const flags = (options.xss === false ? 0 : 1) | (options.sql === false ? 0 : 2) | (options.path === false ? 0 : 4) | (options.encode === false ? 0 : 8) |
      (options.ssti === true ? 16 : 0) | (options.xxe === true ? 32 : 0) | (options.command === true ? 64 : 0);
    return this.single(value, (ex) => ex.sanitize_value(0, flags));
  }

  private single(value: string, call: (ex: Exports) => number): string {
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${value === null ? 'null' : typeof value}`);
    try {
      this.pack([value], value.length);
      const n = call(this.ex);
      if (n < 0) throw new Error('shield.wasm rejected the batch header (bindings bug)');
      return readUtf16(this.ex.memory.buffer, this.ex.output_ptr(), n);
    } catch (e) {
      if (e instanceof TypeError || !(e instanceof WebAssembly.RuntimeError)) throw e;
      this.recover();
      // fail closed for a sanitizer: nothing of a value that crashed the engine is returned
      return '';
    }
  }
}
