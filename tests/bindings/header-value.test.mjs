// sanitizeHeaderValue: the shared vectors, properties checked against Node's own header
// validation (http.validateHeaderValue), and a real HTTP server on 127.0.0.1 that writes the
// sanitized values so the wire shows no injected header.

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import http from 'node:http';
import { sanitizeHeaderValue } from '../../dist/bindings/header-value.js';
import { loadVectors, label } from '../support/vectors.mjs';

const SEED = 42;

function nodeAccepts(value) {
  try {
    http.validateHeaderValue('x-test', value);
    return true;
  } catch {
    return false;
  }
}

/** True when `out` is `input` with some code units deleted (nothing added or reordered). */
function isDeletionOf(out, input) {
  let j = 0;
  for (let i = 0; i < input.length && j < out.length; i++) if (input[i] === out[j]) j++;
  return j === out.length;
}

describe('vectors (tests/vectors/header.json)', () => {
  const { cases } = loadVectors('header');
  it.each(cases.map((c) => [label(typeof c.input === 'string' ? c.input : JSON.stringify(c.input)), c]))('%s', (_l, c) => {
    const out = sanitizeHeaderValue(c.input);
    expect(out).toBe(c.expected);
    expect(nodeAccepts(out)).toBe(true);
  });
  it('has hostile and benign cases', () => {
    expect(cases.some((c) => c.input === c.expected)).toBe(true);
    expect(cases.filter((c) => typeof c.input === 'string' && /[\r\n\u0000]/.test(c.input)).length).toBeGreaterThan(5);
  });
});

describe('on the wire', () => {
  it('a sanitized value cannot add a header or a body', async () => {
    const hostile = [
      'a\r\nSet-Cookie: session=evil',
      'b\r\n\r\n<script>alert(1)</script>',
      'c\nX-Injected: 1',
      'd\u010d\u010aX-Injected: 2',
      'e\u0000\u0007\u007f',
    ];
    const server = http.createServer((req, res) => {
      hostile.forEach((v, i) => res.setHeader(`x-value-${i}`, sanitizeHeaderValue(v)));
      res.end('ok');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address();
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(await res.text()).toBe('ok');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('x-injected')).toBeNull();
      expect(res.headers.get('x-value-0')).toBe('aSet-Cookie: session=evil');
      expect(res.headers.get('x-value-1')).toBe('b<script>alert(1)</script>');
      expect(res.headers.get('x-value-3')).toBe('dX-Injected: 2');
      expect(res.headers.get('x-value-4')).toBe('e');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// ------------------------------------------------------------------ properties

const headerText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc
    .array(fc.constantFrom('\r', '\n', '\r\n', '\u0000', '\t', ' ', 'a', '\u007f', '\u0085', 'é', '\u010a', '\ud800', '\udc00', '€', 'Set-Cookie: x'), {
      maxLength: 20,
    })
    .map((a) => a.join('')),
);

describe('properties', () => {
  it('idempotent, and the output never holds CR, LF or NUL', () => {
    fc.assert(
      fc.property(headerText, (s) => {
        const out = sanitizeHeaderValue(s);
        return sanitizeHeaderValue(out) === out && !/[\r\n\u0000]/.test(out);
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
  it("Node's setHeader() accepts every output; only deletions; values Node accepts stay as they are", () => {
    fc.assert(
      fc.property(headerText, (s) => {
        const out = sanitizeHeaderValue(s);
        if (!nodeAccepts(out) || !isDeletionOf(out, s)) return false;
        return !nodeAccepts(s) || out === s;
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
  it('never throws on any value', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }), (v) => {
        return typeof sanitizeHeaderValue(v) === 'string';
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
