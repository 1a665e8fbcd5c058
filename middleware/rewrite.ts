// Sanitize mode's rewriting: only the keys and values that have a finding change, in place,
// and every other value stays byte-identical. Hostile values become their neutralized text
// (neutralize below); operator and prototype keys go with their values; a hostile key is renamed
// to its neutralized text, or dropped when nothing usable is left.

import type { Engine } from '../bindings/engine.js';
import { define } from '../bindings/object.js';

type Path = readonly (string | number)[];

export interface Edit {
  path: Path;
  part: 'key' | 'value';
  /** The key itself is the danger (an operator or prototype key): drop it with its value. */
  structural: boolean;
}

function hasOwn(o: object, k: string | number): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** The container that holds the last element of `path`, or null when the path no longer leads anywhere. */
function containerOf(root: object, path: Path): Record<string | number, unknown> | null {
  let c: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    if (c === null || typeof c !== 'object' || !hasOwn(c, path[i]!)) return null;
    c = (c as Record<string | number, unknown>)[path[i]!];
  }
  return c !== null && typeof c === 'object' ? (c as Record<string | number, unknown>) : null;
}

/**
 * The text sanitize mode gives a value that has a finding: SPEC's sanitizeString pipeline; when
 * the engine still finds something in that, the same with the sanitizers of the vectors it still
 * finds switched on too (command, template, XML); when even that leaves a finding, an empty
 * string. So the handler never receives a value the engine flags, whatever the vector: the
 * default pipeline leaves a command line or a template expression as it is, and some vectors
 * have no sanitizer at all (a URL to an internal address, an LDAP filter).
 */
export function neutralize(engine: Engine, value: string): string {
  const s = engine.sanitize(value);
  const left = engine.scan(s);
  if (left.length === 0) return s;
  let command = false;
  let ssti = false;
  let xxe = false;
  for (const f of left) {
    if (f.vector === 'command') command = true;
    else if (f.vector === 'ssti') ssti = true;
    else if (f.vector === 'xxe') xxe = true;
  }
  if (!command && !ssti && !xxe) return '';
  const t = engine.sanitize(value, { command, ssti, xxe });
  return engine.scan(t).length === 0 ? t : '';
}

const SCAN_EDITS = 16;

/** Whether an edit before `edits[n]` has the same part and path. */
function repeats(edits: readonly Edit[], n: number): boolean {
  const e = edits[n]!;
  for (let m = 0; m < n; m++) {
    const o = edits[m]!;
    if (o.part !== e.part || o.path.length !== e.path.length) continue;
    let same = true;
    for (let i = 0; i < e.path.length && same; i++) same = o.path[i] === e.path[i];
    if (same) return true;
  }
  return false;
}

/**
 * Applies the edits to `root` in place. Deeper paths first, values before keys, so a renamed
 * or dropped key never strands an edit below it. `isDangerousKey` says whether a sanitized key
 * name is itself an operator or prototype key (then it is dropped, not renamed).
 */
export function applyEdits(root: object, edits: Edit[], engine: Engine, isDangerousKey: (name: string) => boolean): void {
  edits.sort((a, b) => b.path.length - a.path.length || (a.part === b.part ? 0 : a.part === 'value' ? -1 : 1));
  // several findings in one value are one edit. A request has a few edits: earlier ones are
  // compared one by one (a joined-string key costs a concatenation and a hash each); a Set of
  // joined keys only past SCAN_EDITS, so the work stays linear in the number of edits
  const few = edits.length <= SCAN_EDITS;
  const done = few ? null : new Set<string>();
  for (let n = 0; n < edits.length; n++) {
    const e = edits[n]!;
    if (done === null) {
      if (repeats(edits, n)) continue;
    } else {
      const id = `${e.part}\u0000${e.path.join('\u0000')}`;
      if (done.has(id)) continue;
      done.add(id);
    }
    const c = containerOf(root, e.path);
    const k = e.path[e.path.length - 1]!;
    if (c === null || !hasOwn(c, k)) continue;
    if (e.part === 'value') {
      const v = c[k];
      if (typeof v === 'string') define(c, k, neutralize(engine, v));
      continue;
    }
    if (Array.isArray(c)) continue; // an index is never a hostile key
    const value = c[k];
    delete c[k];
    if (e.structural) continue;
    const name = neutralize(engine, String(k));
    if (name.length === 0 || hasOwn(c, name) || isDangerousKey(name)) continue;
    define(c, name, value);
  }
}
