// JSONP callback names. The name is written into a script the browser runs, so it is
// accepted only when it can be nothing but a property path: ASCII identifier parts joined
// by single dots. An allowlist of the callbacks an app really serves is stronger still; this
// check only guarantees the name cannot add code of its own.

/** Longest accepted name, in characters; real callbacks (`jQuery3600...`) stay far below it. */
export const MAX_JSONP_CALLBACK_LENGTH = 128;

// Parts refused although they are well-formed identifiers:
// - reserved words and literals (a script would not parse, or `this.x` would reach the page);
// - the names that lead from any object to Function or to prototypes (`x.constructor` is
//   Function for every function x, and Function builds code from its argument);
// - `eval` and `arguments`, which strict mode forbids as names; `eval(json)` with a string
//   payload would run that string as code.
// Comparisons are exact: JavaScript property names are case-sensitive, and `Prototype` is a
// legitimate library name.
const REFUSED_PARTS = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do',
  'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in',
  'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try',
  'typeof', 'var', 'void', 'while', 'with',
  'await', 'yield', 'let', 'static', 'implements', 'interface', 'package', 'private', 'protected', 'public',
  'eval', 'arguments',
  '__proto__', 'constructor', 'prototype',
  '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
]);

/**
 * The callback name unchanged when it is a dotted path of ASCII identifiers (`app.onData`),
 * at most 128 characters, with no reserved word or prototype key as a part; otherwise null.
 */
export function sanitizeJsonpCallback(name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_JSONP_CALLBACK_LENGTH) return null;
  let partStart = 0;
  for (let i = 0; i <= name.length; i++) {
    const c = i < name.length ? name.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      // An empty part covers a leading dot, a trailing dot and `..`.
      if (i === partStart || REFUSED_PARTS.has(name.slice(partStart, i))) return null;
      partStart = i + 1;
    } else if (i === partStart ? !isIdentifierStart(c) : !isIdentifierPart(c)) {
      // Non-ASCII letters are valid in JavaScript identifiers but are refused: they open
      // look-alike names and normalization questions that no real callback needs.
      return null;
    }
  }
  return name;
}

function isIdentifierStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
}

function isIdentifierPart(c: number): boolean {
  return isIdentifierStart(c) || (c >= 0x30 && c <= 0x39);
}
