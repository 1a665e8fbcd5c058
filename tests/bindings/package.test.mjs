// The package resolves by name both ways DESIGN promises: ESM `import` and CommonJS `require()`
// (no top-level await; the wasm is compiled synchronously). Checked in-process and in fresh
// Node processes, which load the package exactly as an application would (no vitest transforms).

import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as esm from '@shield/node';
import { sanitizeString, scan, decode } from '@shield/node';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

// Inputs covering each step of the pipeline; results are compared as JSON.
const INPUTS = [
  '<script>alert(1)</script>hello',
  '%253Csvg%252Fonload%253Dalert(1)%253E',
  "' OR 1=1--",
  '../../etc/passwd',
  'a%20b',
  "O'Brien & Tom <3",
  '＜ｓｃｒｉｐｔ＞',
];
const SNIPPET = `JSON.stringify(INPUTS.map((v) => [m.sanitizeString(v), m.scan(v), m.decode(v)]))`;
const inputsLiteral = JSON.stringify(INPUTS);

function runNode(args) {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

const expected = JSON.stringify(INPUTS.map((v) => [sanitizeString(v), scan(v), decode(v)]));

describe('@shield/node by name', () => {
  it('import { sanitizeString } works and sanitizes', () => {
    expect(typeof sanitizeString).toBe('function');
    expect(sanitizeString('<script>alert(1)</script>hello')).toBe('hello');
    expect(sanitizeString('a%20b')).toBe('a b');
  });

  it('the ESM namespace exports the documented functions', () => {
    for (const name of ['sanitizeString', 'scan', 'scanValues', 'decode', 'Engine', 'engineBytes', 'validateUrl', 'validateUrlAsync',
      'createPinnedLookup', 'ssrfSafeAgent', 'validateRedirect', 'sanitizeLdap', 'sanitizeLdapDn', 'sanitizeJsonpCallback',
      'sanitizeHeaderValue', 'detectDeserialization', 'scanObject', 'sanitizeObject', 'detectPromptInjection',
      'shield', 'securityHeaders', 'csrfProtection', 'hpp', 'errorHandler', 'scrubText', 'telemetryFromEnv', 'TelemetryClient']) expect(typeof esm[name], name).toBe('function');
    expect(typeof require('@shield/node').shield, 'shield by require()').toBe('function');
    const cjs = require('@shield/node');
    expect(cjs.validateUrl('http://127.0.0.1/').ok).toBe(false);
    expect(cjs.sanitizeJsonpCallback('cb.fn')).toBe('cb.fn');
    expect(esm.engineBytes()).toBeInstanceOf(Uint8Array);
    expect(new WebAssembly.Module(esm.engineBytes())).toBeInstanceOf(WebAssembly.Module);
  });

  it('require() in the same process gives the same functions and results', () => {
    const cjs = require('@shield/node');
    expect(typeof cjs.sanitizeString).toBe('function');
    expect(JSON.stringify(INPUTS.map((v) => [cjs.sanitizeString(v), cjs.scan(v), cjs.decode(v)]))).toBe(expected);
  });

  it('a fresh CommonJS process can require it and gets the same results', () => {
    const out = runNode(['-e', `const m = require('@shield/node'); const INPUTS = ${inputsLiteral}; process.stdout.write(${SNIPPET});`]);
    expect(out).toBe(expected);
  });

  it('a .cjs module requiring the package by name gets the same results', () => {
    const out = runNode([fileURLToPath(new URL('./fixtures/require-consumer.cjs', import.meta.url)), inputsLiteral]);
    expect(out).toBe(expected);
  });

  it('a fresh ESM process can import it and gets the same results', () => {
    const out = runNode(['--input-type=module', '-e', `import * as m from '@shield/node'; const INPUTS = ${inputsLiteral}; process.stdout.write(${SNIPPET});`]);
    expect(out).toBe(expected);
  });

  it('require() loads silently: no warning or error on stderr', () => {
    const r = spawnSync(process.execPath, ['-e', `require('@shield/node').sanitizeString('x'); process.stdout.write('ok')`], {
      cwd: ROOT, encoding: 'utf8', timeout: 30_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('ok');
    expect(r.stderr).toBe('');
  });

  it('the wasm subpath export resolves to the engine bytes', () => {
    const path = require.resolve('@shield/node/shield.wasm');
    expect(path.endsWith('shield.wasm')).toBe(true);
  });
});
