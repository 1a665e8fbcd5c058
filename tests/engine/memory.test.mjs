// The engine manages its own linear memory (an arena above the rule tables). An allocation
// through the AssemblyScript runtime would land in the same place and corrupt the tables, so
// the module must contain none, and no call may leave state behind that changes a later answer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { Engine } from '@shield/node';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('engine memory discipline', () => {
  it('the release build calls no runtime allocator', () => {
    const wat = fs.readFileSync(path.join(root, 'build', 'shield.wat'), 'utf8');
    expect(wat.length).toBeGreaterThan(1000);
    const calls = wat.match(/call \$~lib\/rt\/[^\s)]+/g) || [];
    expect(calls).toEqual([]);
  });

  it('a scan that builds lazy tables leaves later answers unchanged (regression: a runtime array overwrote the rule tables)', () => {
    const e = new Engine();
    const before = e.sanitize('java&#x09;script:');
    const scanBefore = JSON.stringify(e.scan('<a href="javascript:alert(1)">'));
    e.scan('"%c0%aeabc'); // reaches the SQL keyword sets in a double-quote context
    e.scan("' OR 'a'='a");
    expect(e.sanitize('java&#x09;script:')).toBe(before);
    expect(before).toBe('');
    expect(JSON.stringify(e.scan('<a href="javascript:alert(1)">'))).toBe(scanBefore);
  });
});
