// Every literal parameter of the literal-matching rule kinds is found, in short values (the
// plain pass) and in long ones (the eight-lane candidate search), so a rule file change cannot
// add a literal the search never looks for.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { Engine } from '@shield/node';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const rules = [];
for (const f of fs.readdirSync(path.join(root, 'assembly', 'rules')).filter((x) => x.endsWith('.json'))) {
  const doc = JSON.parse(fs.readFileSync(path.join(root, 'assembly', 'rules', f), 'utf8'));
  for (const r of doc.rules) rules.push({ id: `patterns.${doc.vector}.${r.name}`, kind: r.kind, params: r.params || [] });
}

// A value that puts the literal where its kind's boundary rule accepts it.
function place(kind, p, long) {
  const pad = long ? 'plain words come first here ' : '';
  switch (kind) {
    case 'substring': return `${pad}${p}`;
    case 'path-wrapper': return `${pad}${p}x`;
    case 'path-file': return long ? `/srv/some/where/deep/${p}` : `/${p}`;
    case 'sql-phrase': return `${pad}${p} x`;
    case 'js-call': return /[.[=]/.test(p.slice(1)) ? `${pad}${p};` : `${pad}${p}(1)`;
    default: return null;
  }
}

const engine = new Engine();
const cases = [];
for (const r of rules) {
  for (const p of r.params) {
    if (p.length < 3 || p.startsWith('^')) continue;
    for (const long of [false, true]) {
      const v = place(r.kind, p, long);
      if (v !== null) cases.push([r.id, p, long ? 'long' : 'short', v]);
    }
  }
}

describe('every literal parameter is found', () => {
  it('covers the literal kinds', () => {
    expect(new Set(cases.map((c) => c[0])).size).toBeGreaterThanOrEqual(7);
    expect(cases.length).toBeGreaterThan(300);
  });
  it.each(cases)('%s %j (%s value)', (id, _p, _len, value) => {
    const found = engine.scan(value).map((f) => f.rule);
    expect(found).toContain(id);
  });
});

describe('encoded literals inside words of a long value', () => {
  it.each([
    ['patterns.xss.encoded-markup', 'the payload PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg== follows'],
    ['patterns.xss.encoded-markup', 'the payload YWJjPHN2ZyBvbmxvYWQ9YWxlcnQoMSk+ follows'],
    ['patterns.path.encoded-traversal', 'plain words then Li4vLi4vZXRjL3Bhc3N3ZA== here'],
  ])('%s in %j', (id, value) => {
    expect(engine.scan(value).map((f) => f.rule)).toContain(id);
  });
});
