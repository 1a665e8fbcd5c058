// Loads the language-neutral vector files in tests/vectors/ (shared with the Python and Go SDKs).

import { readFileSync } from 'node:fs';

const dir = new URL('../vectors/', import.meta.url);

/** Parsed tests/vectors/<name>.json. */
export function loadVectors(name) {
  const file = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
  if (!Array.isArray(file.cases) || file.cases.length === 0) throw new Error(`tests/vectors/${name}.json has no cases`);
  return file;
}

/** The detector files, each `{ vector, cases, sanitizeOptions? }` (options for the `sanitized` checks). */
export const DETECTOR_FILES = ['xss', 'sql', 'path', 'ssti', 'xxe', 'command', 'ldap-injection'];

/** Every rule id named in assembly/rules/*.json (the source the default blob is built from). */
export function ruleIdsFromSource() {
  const ids = [];
  for (const name of ['xss', 'sql', 'path', 'decode', 'limits', 'engine', 'ssti', 'xxe', 'command', 'ldap', 'nosql', 'prototype', 'ssrf']) {
    const src = JSON.parse(readFileSync(new URL(`../../assembly/rules/${name}.json`, import.meta.url), 'utf8'));
    for (const r of src.rules) ids.push(`patterns.${src.vector}.${r.name}`);
  }
  return ids;
}

/** Short, printable label for a test name (control and invisible characters escaped). */
export function label(s, max = 70) {
  let t = JSON.stringify(s).slice(1, -1).replace(/[\p{Default_Ignorable_Code_Point}\u2028\u2029]|(?! )\p{Zs}/gu,
    (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
  if ([...t].length > max) t = [...t].slice(0, max - 1).join('') + '…';
  return t;
}

/** First n code points of s. */
export function firstCodePoints(s, n) {
  return [...s].slice(0, n).join('');
}
