// Drives build/shield.wasm through the documented ABI (assembly/ABI.md) with nothing but the
// standard WebAssembly API, as the Python and Go SDKs will: no bindings, no AssemblyScript loader.
// Every vector file is checked here at the ABI level.

import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadVectors, DETECTOR_FILES, label, firstCodePoints } from '../support/vectors.mjs';

const WASM = new URL('../../build/shield.wasm', import.meta.url);
const MAGIC = 0x42524853; // "SHRB" little-endian

// ---------------------------------------------------------------- a minimal host

function instantiate(bytes) {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { abort() {} } });
  return instance.exports;
}

/** Parses a rule blob (ABI.md "Rule blob"). */
function parseBlob(u8) {
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  let q = 0;
  const byte = () => u8[q++];
  const u16 = () => { const v = dv.getUint16(q, true); q += 2; return v; };
  const str = () => { const n = byte(); const s = String.fromCharCode(...u8.subarray(q, q + n)); q += n; return s; };
  const magic = dv.getUint32(0, true);
  q = 4;
  const version = u16();
  const count = u16();
  const rules = [];
  for (let i = 0; i < count; i++) {
    const id = str();
    const vector = str();
    const kind = str();
    const severity = byte();
    const flags = byte();
    const pc = u16();
    const params = [];
    for (let k = 0; k < pc; k++) params.push(str());
    rules.push({ id, vector, kind, severity, flags, params });
  }
  return { magic, version, rules, length: q };
}

/** Builds a rule blob from rule records (the inverse of parseBlob). */
function buildBlob(rules, { magic = MAGIC, version = 1 } = {}) {
  const out = [];
  const u8 = (v) => out.push(v & 0xff);
  const u16 = (v) => { u8(v); u8(v >> 8); };
  const str = (s) => { u8(s.length); for (const ch of s) u8(ch.charCodeAt(0)); };
  u8(magic); u8(magic >> 8); u8(magic >> 16); u8(magic >> 24);
  u16(version);
  u16(rules.length);
  for (const r of rules) {
    str(r.id); str(r.vector); str(r.kind);
    u8(r.severity); u8(r.flags);
    u16(r.params.length);
    for (const p of r.params) str(p);
  }
  return Uint8Array.from(out);
}

function defaultBlob(ex) {
  return new Uint8Array(ex.memory.buffer, ex.rules_default_ptr(), ex.rules_default_len()).slice();
}

/** Loads a blob through rules_reserve + init; returns init's result. */
function loadBlob(ex, blob) {
  const ptr = ex.rules_reserve(blob.length);
  new Uint8Array(ex.memory.buffer, ptr, blob.length).set(blob);
  return ex.init(ptr, blob.length);
}

/** Reserves a batch and writes the header and the UTF-16LE text; returns the batch pointer. */
function writeBatch(ex, values) {
  const units = values.reduce((n, v) => n + v.length, 0);
  const ptr = ex.batch_reserve(values.length, units);
  const dv = new DataView(ex.memory.buffer);
  dv.setUint32(ptr, values.length, true);
  const text = ptr + 4 + 8 * values.length;
  let off = 0;
  values.forEach((v, i) => {
    dv.setUint32(ptr + 4 + 8 * i, off, true);
    dv.setUint32(ptr + 8 + 8 * i, v.length, true);
    for (let k = 0; k < v.length; k++) dv.setUint16(text + 2 * (off + k), v.charCodeAt(k), true);
    off += v.length;
  });
  return ptr;
}

function readUtf16(ex, ptr, units) {
  const dv = new DataView(ex.memory.buffer);
  let s = '';
  for (let k = 0; k < units; k++) s += String.fromCharCode(dv.getUint16(ptr + 2 * k, true));
  return s;
}

/** One scan_batch call; returns { rc, dropped, findings: per value [{ rule, id, vector, start, end, matched, matchLen }] }. */
function scanBatch(ex, rules, values) {
  writeBatch(ex, values);
  const rc = ex.scan_batch();
  const findings = values.map(() => []);
  if (rc < 0) return { rc, dropped: 0, findings };
  const dv = new DataView(ex.memory.buffer);
  const base = ex.result_ptr();
  const count = dv.getUint32(base, true);
  const dropped = dv.getUint32(base + 4, true);
  for (let k = 0; k < count; k++) {
    const e = base + 8 + 24 * k;
    const [value, rule, start, end, matchPtr, matchLen] = [0, 4, 8, 12, 16, 20].map((o) => dv.getUint32(e + o, true));
    const r = rules[rule];
    findings[value].push({ rule, id: r?.id, vector: r?.vector, start, end, matchLen, matched: readUtf16(ex, matchPtr, matchLen) });
  }
  return { rc, count, dropped, findings };
}

function decodeValue(ex, value) {
  writeBatch(ex, [value]);
  const n = ex.decode_value(0);
  if (n < 0) throw new Error(`decode_value returned ${n}`);
  return readUtf16(ex, ex.output_ptr(), n);
}

const summary = (fs) => fs.map((f) => `${f.id} [${f.start},${f.end}) ${JSON.stringify(f.matched)}`);

// ---------------------------------------------------------------- setup

const bytes = readFileSync(WASM);
let ex;
let rules;

beforeAll(() => {
  ex = instantiate(bytes);
  const blob = parseBlob(defaultBlob(ex));
  rules = blob.rules;
  const n = ex.init(ex.rules_default_ptr(), ex.rules_default_len());
  expect(n).toBe(rules.length);
});

describe('ABI basics', () => {
  it('abi_version() is 1', () => {
    expect(instantiate(bytes).abi_version()).toBe(1);
  });

  it('the module imports nothing but env.abort', () => {
    const imports = WebAssembly.Module.imports(new WebAssembly.Module(bytes));
    expect(imports.map((i) => `${i.module}.${i.name}:${i.kind}`)).toEqual(['env.abort:function']);
  });

  it('the default blob is a version-1 blob naming every rule as patterns.<vector>.<name>', () => {
    const blob = parseBlob(defaultBlob(ex));
    expect(blob.magic).toBe(MAGIC);
    expect(blob.version).toBe(1);
    expect(blob.length).toBe(ex.rules_default_len());
    expect(ex.rule_count()).toBe(blob.rules.length);
    for (const r of blob.rules) expect(r.id).toBe(`patterns.${r.vector}.${r.id.split('.')[2]}`);
    const ids = blob.rules.map((r) => r.id);
    for (const id of ['patterns.xss.script-tag', 'patterns.sql.tautology', 'patterns.path.traversal', 'patterns.decode.excess-encoding'])
      expect(ids).toContain(id);
  });

  it('an empty batch scans to 0 findings', () => {
    expect(scanBatch(ex, rules, []).rc).toBe(0);
  });

  it('batch_reserve clears the previous result table', () => {
    const first = scanBatch(ex, rules, ['<script>alert(1)</script>']);
    expect(first.rc).toBeGreaterThan(0);
    const ptr = ex.batch_reserve(0, 0);
    new DataView(ex.memory.buffer).setUint32(ptr, 0, true);
    expect(new DataView(ex.memory.buffer).getUint32(ex.result_ptr(), true)).toBe(0);
  });

  it('findings of a batch are attributed to the right value', () => {
    const r = scanBatch(ex, rules, ['hello', "' OR 1=1--", 'world', '../../etc/passwd', '<svg onload=alert(1)>']);
    expect(r.rc).toBe(r.findings.flat().length);
    expect(r.findings[0]).toEqual([]);
    expect(r.findings[2]).toEqual([]);
    expect(r.findings[1].map((f) => f.vector)).toContain('sql');
    expect(r.findings[3].map((f) => f.vector)).toContain('path');
    expect(r.findings[4].map((f) => f.vector)).toContain('xss');
  });
});

describe('batch header validation', () => {
  it('a value range one unit past the text area returns -1', () => {
    const ptr = ex.batch_reserve(2, 10);
    const dv = new DataView(ex.memory.buffer);
    dv.setUint32(ptr, 2, true);
    dv.setUint32(ptr + 4, 0, true); dv.setUint32(ptr + 8, 5, true);
    dv.setUint32(ptr + 12, 5, true); dv.setUint32(ptr + 16, 6, true); // 5 + 6 > 10
    expect(ex.scan_batch()).toBe(-1);
  });

  it('a value length far past the text area returns -1', () => {
    const ptr = ex.batch_reserve(1, 4);
    const dv = new DataView(ex.memory.buffer);
    dv.setUint32(ptr, 1, true);
    dv.setUint32(ptr + 4, 0, true); dv.setUint32(ptr + 8, 1000, true);
    expect(ex.scan_batch()).toBe(-1);
  });

  it('a start offset beyond linear memory returns -1', () => {
    const ptr = ex.batch_reserve(1, 4);
    const dv = new DataView(ex.memory.buffer);
    dv.setUint32(ptr, 1, true);
    dv.setUint32(ptr + 4, 0x7ffffff0, true); dv.setUint32(ptr + 8, 4, true);
    expect(ex.scan_batch()).toBe(-1);
  });

  it('the engine still works after a rejected header', () => {
    const r = scanBatch(ex, rules, ['<script>alert(1)</script>']);
    expect(r.findings[0].map((f) => f.id)).toContain('patterns.xss.script-tag');
  });
});

// ---------------------------------------------------------------- detector vectors

for (const name of DETECTOR_FILES) {
  const file = loadVectors(name);
  describe(`${name}.json through scan_batch`, () => {
    let batch;
    beforeAll(() => {
      batch = scanBatch(ex, rules, file.cases.map((c) => c.input));
    });

    it('the whole file scans in one batch without dropped findings', () => {
      expect(batch.rc).toBeGreaterThanOrEqual(0);
      expect(batch.dropped).toBe(0);
      expect(batch.rc).toBe(batch.findings.flat().length);
    });

    file.cases.forEach((c, i) => {
      const title = `${c.attack ? 'attack' : 'benign'}: ${label(c.input)}`;
      it(title, () => {
        const fs = batch.findings[i];
        if (c.attack) {
          expect(fs.filter((f) => f.vector === file.vector).length, `no ${file.vector} finding; got ${JSON.stringify(summary(fs))}`).toBeGreaterThan(0);
          if (c.rule) expect(fs.map((f) => f.id), `rule ${c.rule} missing`).toContain(c.rule);
        } else {
          expect(summary(fs), 'benign input must have no finding').toEqual([]);
        }
        // every finding: a known rule, offsets inside the decoded text, matched = its first 80 code points
        if (fs.length) {
          const decoded = decodeValue(ex, c.input);
          for (const f of fs) {
            expect(f.id, `rule index ${f.rule} out of range`).toBeTypeOf('string');
            expect(f.start).toBeLessThanOrEqual(f.end);
            expect(f.end).toBeLessThanOrEqual(decoded.length);
            expect(f.matchLen).toBeLessThanOrEqual(160);
            expect([...f.matched].length).toBeLessThanOrEqual(80);
            expect(f.matched).toBe(firstCodePoints(decoded.slice(f.start, f.end), 80));
          }
          expect(new Set(fs.map((f) => f.id)).size, 'each rule at most once per value').toBe(fs.length);
        }
      });
    });
  });
}

// ---------------------------------------------------------------- decode vectors

for (const name of ['nfkc', 'decode']) {
  const file = loadVectors(name);
  describe(`${name}.json through decode_value`, () => {
    for (const c of file.cases) {
      it(`${label(c.input)} -> ${label(c.output)}`, () => {
        expect(decodeValue(ex, c.input)).toBe(c.output);
        const ids = scanBatch(ex, rules, [c.input]).findings[0].map((f) => f.id);
        if (c.rule) expect(ids).toContain(c.rule);
        else expect(ids).not.toContain('patterns.decode.excess-encoding');
      });
    }
  });
}

// ---------------------------------------------------------------- custom rule blobs

describe('custom rule blob', () => {
  let cx;
  let custom;
  const pick = ['patterns.sql.tautology', 'patterns.sql.comment', 'patterns.xss.script-tag', 'patterns.path.traversal'];
  beforeAll(() => {
    cx = instantiate(bytes);
    const all = parseBlob(defaultBlob(cx)).rules;
    custom = pick.map((id) => all.find((r) => r.id === id));
    expect(custom.every(Boolean)).toBe(true);
  });

  it('init returns the number of rules and the rule indexes are blob order', () => {
    const blob = buildBlob(custom);
    expect(loadBlob(cx, blob)).toBe(pick.length);
    expect(cx.rule_count()).toBe(pick.length);
    const r = scanBatch(cx, custom, ["admin' OR 1=1--", '<script>alert(1)</script>', '../../x']);
    expect(r.findings[1].map((f) => f.id)).toEqual(['patterns.xss.script-tag']);
    expect(r.findings[2].map((f) => f.id)).toEqual(['patterns.path.traversal']);
    expect(r.findings[0].map((f) => f.id)).toContain('patterns.sql.tautology');
  });

  it('rules absent from the blob never fire', () => {
    loadBlob(cx, buildBlob(custom));
    const r = scanBatch(cx, custom, ['<svg onload=alert(1)>', "'; WAITFOR DELAY '0:0:5'--", 'php://input']);
    expect(r.findings.map((fs) => fs.map((f) => f.id))).toEqual([[], [], []]);
  });

  it('set_rule_enabled switches one rule off and on again', () => {
    loadBlob(cx, buildBlob(custom));
    const values = ["admin'--", "' OR 1=1--", '<script>alert(1)</script>'];
    const before = scanBatch(cx, custom, values).findings;
    expect(before[0].map((f) => f.id)).toContain('patterns.sql.comment');
    expect(before[1].map((f) => f.id)).toContain('patterns.sql.tautology');
    const idx = pick.indexOf('patterns.sql.comment');
    cx.set_rule_enabled(idx, 0);
    const off = scanBatch(cx, custom, values).findings;
    expect(off.flat().map((f) => f.id)).not.toContain('patterns.sql.comment');
    expect(off[1].map((f) => f.id)).toContain('patterns.sql.tautology');
    expect(off[2].map((f) => f.id)).toEqual(['patterns.xss.script-tag']);
    cx.set_rule_enabled(idx, 1);
    expect(scanBatch(cx, custom, values).findings[0].map((f) => f.id)).toContain('patterns.sql.comment');
  });

  it('phrase params that share their first words find the same in any order', () => {
    // the walk of one param goes on where the last one failed at the same start; a param with a
    // word unit right after a shared space must still need the separator there
    const all = parseBlob(defaultBlob(cx)).rules;
    const fileAccess = all.find((r) => r.id === 'patterns.sql.file-access');
    const values = ["copy t from programe'ls'", "copy t from program e'ls'", "copy t from program 'ls'", 'copy t from program $$ls$$',
      "copy t from programme 'ls'", "copy t from\tprogram/**/e'x'"];
    const found = (params) => {
      const rule = { ...fileAccess, params };
      loadBlob(cx, buildBlob([rule]));
      return scanBatch(cx, [rule], values).findings.map((fs) => fs.length > 0);
    };
    const shipped = found(fileAccess.params);
    expect(shipped).toEqual([false, true, true, true, false, true]);
    expect(found(["from program $$", "from program e'", "from program '"])).toEqual(shipped);
    expect(found(["from program '", "from program $$", "from program e'"])).toEqual(shipped);
  });

  it('the host params of a url-internal rule are data: URLs under them are handed to the bindings', () => {
    // batch_changed bit 1: the value holds a URL the bindings must judge (urls.ts)
    const all = parseBlob(defaultBlob(cx)).rules;
    const internal = all.find((r) => r.id === 'patterns.ssrf.internal-target');
    expect(internal.params).toContain('lvh.me');
    expect(internal.params).toContain('{ip}.nip.io');
    const values = ['see http://app.corp-loop.example/a', 'see http://corp-loop.example/', 'see http://x.10.0.0.1.wild.example/',
      'see http://app.lvh.me/', 'see http://a.nip.io/', 'see http://notcorp-loop.example/', 'see http://corp-loop.example.org/',
      'see corp-loop.example://x'];
    const handed = (params) => {
      const rule = { ...internal, params };
      loadBlob(cx, buildBlob([rule]));
      scanBatch(cx, [rule], values);
      const flags = new Uint8Array(cx.memory.buffer, cx.batch_changed_ptr(), values.length);
      return [...flags].map((f) => (f & 2) !== 0);
    };
    expect(handed(internal.params)).toEqual([false, false, false, true, true, false, false, false]);
    expect(handed(['http', 'corp-loop.example', '{ip}.wild.example'])).toEqual([true, true, true, false, false, false, false, false]);
    expect(handed(['http'])).toEqual([false, false, false, false, false, false, false, false]);
    // switched off, its names are not read
    const rule = { ...internal, params: ['http', 'corp-loop.example'] };
    loadBlob(cx, buildBlob([rule]));
    cx.set_rule_enabled(0, 0);
    scanBatch(cx, [rule], values);
    expect(new Uint8Array(cx.memory.buffer, cx.batch_changed_ptr(), 1)[0] & 2).toBe(0);
  });

  it('a rule whose enabled flag is clear in the blob is loaded but off', () => {
    const blob = buildBlob(custom.map((r) => (r.id === 'patterns.xss.script-tag' ? { ...r, flags: r.flags & ~1 } : r)));
    expect(loadBlob(cx, blob)).toBe(pick.length);
    const r = scanBatch(cx, custom, ['<script>alert(1)</script>', '../../x']);
    expect(r.findings[0]).toEqual([]);
    expect(r.findings[1].map((f) => f.id)).toEqual(['patterns.path.traversal']);
    cx.set_rule_enabled(pick.indexOf('patterns.xss.script-tag'), 1);
    expect(scanBatch(cx, custom, ['<script>alert(1)</script>']).findings[0].map((f) => f.id)).toEqual(['patterns.xss.script-tag']);
  });

  it('set_rule_enabled on the default blob switches off path.traversal only', () => {
    const fx = instantiate(bytes);
    const all = parseBlob(defaultBlob(fx)).rules;
    expect(fx.init(fx.rules_default_ptr(), fx.rules_default_len())).toBe(all.length);
    const idx = all.findIndex((r) => r.id === 'patterns.path.traversal');
    fx.set_rule_enabled(idx, 0);
    const r = scanBatch(fx, all, ['../../etc/passwd', '../x/y']);
    expect(r.findings[0].map((f) => f.id)).not.toContain('patterns.path.traversal');
    expect(r.findings[0].map((f) => f.id)).toContain('patterns.path.sensitive-file');
    expect(r.findings[1]).toEqual([]);
  });

  it.each([
    ['bad magic', (rs) => buildBlob(rs, { magic: 0x12345678 }), -1],
    ['bad version', (rs) => buildBlob(rs, { version: 2 }), -2],
    ['truncated', (rs) => buildBlob(rs).slice(0, 20), -3],
    ['unknown rule kind', (rs) => buildBlob([...rs, { ...rs[0], id: 'patterns.sql.made-up', kind: 'no-such-kind' }]), -4],
  ])('init rejects a blob with %s', (_, make, code) => {
    expect(loadBlob(cx, make(custom))).toBe(code);
  });

  // cssRule searches a CSS rule's parameters by their first two characters, noted once per rule
  // (assembly/html.ts noteCssFirsts): the notes follow the blob, and a rule the search cannot
  // take (a parameter of one character, more than 8 pairs) is read unit by unit
  it('a CSS rule from a custom blob is searched with its own parameters', () => {
    const css = parseBlob(defaultBlob(cx)).rules.find((r) => r.id === 'patterns.xss.css-expression');
    const pad = 'color: red; margin: 0 auto; ';
    const found = (params, value) => {
      const rs = [{ ...css, params }];
      expect(loadBlob(cx, buildBlob(rs))).toBe(1);
      return scanBatch(cx, rs, [value]).findings[0].map((f) => f.id);
    };
    expect(found(['aa('], `<style>${pad}AA(1)`)).toEqual(['patterns.xss.css-expression']);
    // the same rule index with other parameters: the pairs of the blob before are forgotten
    expect(found(['bb('], `<style>${pad}Bb(1)`)).toEqual(['patterns.xss.css-expression']);
    expect(found(['bb('], `<style>${pad}aa(1)`)).toEqual([]);
    // a parameter of one character: every unit is read
    expect(found(['q', 'zz('], `<style>${pad}Q`)).toEqual(['patterns.xss.css-expression']);
    expect(found(['q', 'zz('], `<style>${pad}zZ(`)).toEqual(['patterns.xss.css-expression']);
    // nine pairs: every unit is read; the last pair's parameter is still found, at every offset
    const nine = ['ab(', 'cd(', 'ef(', 'gh(', 'ij(', 'kl(', 'mn(', 'op(', 'qr('];
    for (let k = 0; k < 12; k++) expect(found(nine, `<style>${'x'.repeat(k)}QR(`)).toEqual(['patterns.xss.css-expression']);
    // eight pairs (the vector search), each pair at every offset of its eight-unit step
    for (const p of nine.slice(0, 8)) {
      for (let k = 0; k < 12; k++) expect(found(nine.slice(0, 8), `<style>${'x'.repeat(k)}${p.toUpperCase()}${pad}`)).toEqual(['patterns.xss.css-expression']);
      // and in the last units, read one at a time
      for (let k = 0; k < 20; k++) expect(found(nine.slice(0, 8), `<style>${'x'.repeat(k)}${p}`)).toEqual(['patterns.xss.css-expression']);
    }
    expect(found(nine.slice(0, 8), `<style>${pad}${pad}qr(`)).toEqual([]);
  });

  it('after a rejected blob the default blob loads again', () => {
    loadBlob(cx, buildBlob(custom, { magic: 1 }));
    const n = cx.init(cx.rules_default_ptr(), cx.rules_default_len());
    const all = parseBlob(defaultBlob(cx)).rules;
    expect(n).toBe(all.length);
    expect(scanBatch(cx, all, ['<svg onload=alert(1)>']).findings[0].map((f) => f.id)).toContain('patterns.xss.event-handler');
  });
});
