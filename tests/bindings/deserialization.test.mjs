// detectDeserialization: the shared vectors in every carrier (string, bytes, latin1 string,
// standard and URL-safe base64 with and without padding, wrapped, padded with whitespace),
// the documented prefix bound, tails that break a stream after it has acted, and properties:
// never throws, one of the five tags or null, and nothing past the read limit matters.

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  detectDeserialization,
  DESERIALIZATION_READ_LIMIT,
  DESERIALIZATION_CHECK_LIMIT,
} from '../../dist/bindings/deserialization.js';
import { loadVectors, label } from '../support/vectors.mjs';

const SEED = 42;
const TAGS = ['python_pickle', 'java_fastjson', 'php_unserialize', 'ruby_marshal', 'dotnet_binary_formatter'];
const { cases } = loadVectors('deserialization');

/** The payload bytes of a vector: strings as UTF-8, unless the vector says its units are bytes. */
function bytesOf(c) {
  if ('input_hex' in c) return Uint8Array.from(Buffer.from(c.input_hex, 'hex'));
  if ('input_base64' in c) return Uint8Array.from(Buffer.from(c.input_base64, 'ascii'));
  return Uint8Array.from(Buffer.from(c.input, c.encoding === 'latin1' ? 'latin1' : 'utf8'));
}

/** What the vector hands to the function as written: a string, or bytes for input_hex. */
function payloadOf(c) {
  if ('input_hex' in c) return bytesOf(c);
  return 'input_base64' in c ? c.input_base64 : c.input;
}

function nameOf(c) {
  const shown = 'input' in c ? c.input : 'input_hex' in c ? `hex ${c.input_hex}` : `base64 ${c.input_base64}`;
  return `${c.expected ?? 'null'}: ${label(shown, 60)}`;
}

function urlSafe(b64) {
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

describe('vectors (tests/vectors/deserialization.json)', () => {
  it.each(cases.map((c) => [nameOf(c), c]))('%s', (_n, c) => {
    expect(detectDeserialization(payloadOf(c))).toBe(c.expected);
  });
  it('cover every tag with hostile cases and hold benign ones', () => {
    for (const tag of TAGS) expect(cases.filter((c) => c.expected === tag).length).toBeGreaterThanOrEqual(5);
    expect(cases.filter((c) => c.expected === null).length).toBeGreaterThanOrEqual(25);
  });
});

// Vectors whose raw bytes carry the format (not the ones that are base64 text already).
const raw = cases.filter((c) => !('input_base64' in c) && c.input !== '');

describe('every carrier of a vector gives the same answer', () => {
  it.each(raw.map((c) => [nameOf(c), c]))('%s', (_n, c) => {
    const bytes = bytesOf(c);
    const b64 = Buffer.from(bytes).toString('base64');
    expect(detectDeserialization(bytes)).toBe(c.expected);
    expect(detectDeserialization(Buffer.from(bytes))).toBe(c.expected);
    expect(detectDeserialization(Buffer.from(bytes).toString('latin1'))).toBe(c.expected);
    expect(detectDeserialization(b64)).toBe(c.expected);
    expect(detectDeserialization(b64.replace(/=+$/, ''))).toBe(c.expected);
    expect(detectDeserialization(urlSafe(b64).replace(/=+$/, ''))).toBe(c.expected);
    expect(detectDeserialization(`\n  ${b64.replace(/.{1,8}/g, '$&\r\n')}  \t`)).toBe(c.expected);
    expect(detectDeserialization(Buffer.from(b64))).toBe(c.expected);
  });
});

describe('decisions', () => {
  it('Java native serialization is not one of the five tags', () => {
    expect(detectDeserialization(Uint8Array.from([0xac, 0xed, 0x00, 0x05, 0x73, 0x72]))).toBeNull();
    expect(detectDeserialization('rO0ABXNyABNqYXZhLnV0aWwuQXJyYXlMaXN0')).toBeNull();
  });
  it('base64 is decoded one level only', () => {
    const once = Buffer.from('O:8:"stdClass":0:{}').toString('base64');
    expect(detectDeserialization(once)).toBe('php_unserialize');
    expect(detectDeserialization(Buffer.from(once).toString('base64'))).toBeNull();
  });
  it('a pickle that acts and then breaks is still a pickle', () => {
    const acting = "cos\nsystem\n(S'id'\ntR";
    for (const tail of ['', '.', 'garbage', '\u0000\u00ff', ' '.repeat(5000)]) {
      expect(detectDeserialization(acting + tail)).toBe('python_pickle');
    }
  });
  it('REDUCE with no argument tuple does not call anything, so GLOBAL-like prose stays clean', () => {
    expect(detectDeserialization('cheers\nBob\nVery nice\nRegards')).toBeNull();
    expect(detectDeserialization("cbuiltins\nprint\nS'x'\nR.")).toBeNull();
  });
  it('a PHP object finished before the stream breaks counts; prose with the same prefix does not', () => {
    expect(detectDeserialization('a:2:{i:0;O:8:"stdClass":0:{}i:1;X')).toBe('php_unserialize');
    expect(detectDeserialization('a:2:{i:0;O:8:"stdClass":0:{')).toBeNull();
  });
  it('non-string, non-Uint8Array input is null', () => {
    for (const v of [null, undefined, 42, {}, [0x80, 0x04], new Uint16Array([0x0480]), new ArrayBuffer(8), new DataView(new ArrayBuffer(4))]) {
      expect(detectDeserialization(v)).toBeNull();
    }
  });
});

describe('bounded work', () => {
  it('documents its limits', () => {
    expect(DESERIALIZATION_READ_LIMIT).toBe(8192);
    expect(DESERIALIZATION_CHECK_LIMIT).toBe(4096);
  });
  it('a structure still valid where the inspected prefix ends counts', () => {
    const big = `a:2:{i:0;s:20000:"${'x'.repeat(20000)}";i:1;O:8:"stdClass":0:{}}`;
    expect(detectDeserialization(big)).toBe('php_unserialize');
    expect(detectDeserialization(Buffer.from(big).toString('base64'))).toBe('php_unserialize');
    const longPickle = Buffer.concat([Buffer.from([0x80, 0x04, 0x58, 0x20, 0x4e, 0, 0]), Buffer.alloc(20000, 0x61), Buffer.from('.')]);
    expect(detectDeserialization(longPickle)).toBe('python_pickle');
  });
  it('what lies past the inspected prefix is not seen', () => {
    const padded = `{"pad":"${'x'.repeat(DESERIALIZATION_CHECK_LIMIT)}","@type":"org.example.Gadget"}`;
    expect(detectDeserialization(padded)).toBeNull();
    expect(detectDeserialization(`{"@type":"org.example.Gadget","pad":"${'x'.repeat(100000)}"}`)).toBe('java_fastjson');
  });
  it('a payload of several megabytes is handled', () => {
    const huge = new Uint8Array(8 << 20).fill(0x41);
    expect(detectDeserialization(huge)).toBeNull();
    expect(detectDeserialization('A'.repeat(8 << 20))).toBeNull();
  });
});

// ------------------------------------------------------------------ properties

const hostileBytes = raw.filter((c) => c.expected !== null).map(bytesOf);

describe('properties', () => {
  it('never throws; the answer is one of the five tags or null (strings, lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ maxLength: 200 })), (s) => {
        const r = detectDeserialization(s);
        return r === null || TAGS.includes(r);
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        const r = detectDeserialization(b);
        return r === null || TAGS.includes(r);
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
  it('never throws on hostile vectors cut, spliced or flipped anywhere', () => {
    fc.assert(
      fc.property(fc.constantFrom(...hostileBytes), fc.nat(), fc.nat(), fc.uint8Array({ maxLength: 8 }), (b, at, len, insert) => {
        const i = at % (b.length + 1);
        const mutated = Buffer.concat([b.subarray(0, i), insert, b.subarray(Math.min(b.length, i + (len % 4)))]);
        const r1 = detectDeserialization(mutated);
        const r2 = detectDeserialization(mutated.toString('base64'));
        const r3 = detectDeserialization(mutated.toString('latin1'));
        return [r1, r2, r3].every((r) => r === null || TAGS.includes(r));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
  it('never throws on values of any type', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }), (v) => {
        const r = detectDeserialization(v);
        return r === null || TAGS.includes(r);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
  it('nothing after the first 8192 units changes the answer', () => {
    fc.assert(
      fc.property(fc.constantFrom(...cases), fc.string({ unit: 'binary', maxLength: 50 }), fc.uint8Array({ maxLength: 50 }), (c, tail, tailBytes) => {
        const bytes = bytesOf(c);
        const fill = DESERIALIZATION_READ_LIMIT - bytes.length;
        if (fill < 0) return true;
        // Pad with spaces (legal after every text format and inside base64), then append anything.
        const head = Buffer.concat([bytes, Buffer.alloc(fill, 0x20)]);
        const s = head.toString('latin1');
        // Both sides are longer than the limit, so both are equally "cut short".
        return (
          detectDeserialization(`${s} ${tail}`) === detectDeserialization(`${s} `) &&
          detectDeserialization(Buffer.concat([head, Buffer.from(' '), tailBytes])) ===
            detectDeserialization(Buffer.concat([head, Buffer.from(' ')]))
        );
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
