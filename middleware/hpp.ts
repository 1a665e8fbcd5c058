// HTTP parameter pollution: `?role=user&role=admin` parses to an array, which code expecting a
// string mishandles (type confusion, checks done on one value and use of another). Duplicates
// resolve last-value-wins; the original arrays stay in `req.queryPolluted` (and
// `req.bodyPolluted` for form bodies); whitelisted names keep their arrays. JSON bodies are
// left alone: an array there is the client's explicit choice, not a repeated parameter.

import { define } from '../bindings/object.js';

export interface HppOptions {
  /** Parameter names allowed to repeat (they keep their arrays). */
  whitelist?: readonly string[];
  /** Also resolve repeated fields of urlencoded form bodies (default true). */
  body?: boolean;
}

export interface CompiledHpp {
  whitelist: ReadonlySet<string>;
  body: boolean;
}

/** Checks the options; a TypeError names the bad one. */
export function compileHpp(options: HppOptions = {}): CompiledHpp {
  if (options === null || typeof options !== 'object') throw new TypeError('hpp: options must be an object');
  const wl = options.whitelist ?? [];
  if (!Array.isArray(wl) || wl.some((w) => typeof w !== 'string')) throw new TypeError('hpp: option "whitelist" must be an array of parameter names');
  if (options.body !== undefined && typeof options.body !== 'boolean') throw new TypeError('hpp: option "body" must be a boolean');
  return { whitelist: new Set(wl), body: options.body ?? true };
}

export interface Deduped {
  /** The object with every repeated parameter resolved to its last value (a copy; the input is unchanged). */
  value: Record<string, unknown>;
  /** The original arrays, by parameter name (null-prototype object). */
  polluted: Record<string, unknown[]>;
}

/** Resolves the top-level arrays of a parsed query or form body, or returns null when there are none. */
export function dedupe(params: unknown, hpp: CompiledHpp): Deduped | null {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return null;
  let out: Deduped | null = null;
  for (const key of Object.keys(params)) {
    const v = (params as Record<string, unknown>)[key];
    if (!Array.isArray(v) || hpp.whitelist.has(key)) continue;
    if (out === null) {
      const copy = Object.create(Object.getPrototypeOf(params) === null ? null : Object.prototype) as Record<string, unknown>;
      for (const k of Object.keys(params)) define(copy, k, (params as Record<string, unknown>)[k]);
      out = { value: copy, polluted: Object.create(null) as Record<string, unknown[]> };
    }
    define(out.polluted, key, v);
    // defined, never assigned: a key named __proto__ must stay a plain property
    define(out.value, key, v.length === 0 ? '' : v[v.length - 1]);
  }
  return out;
}

/** Replaces `req.query` with a plain value (Express 5 defines it as a getter that re-parses the URL). */
export function setQuery(req: object, value: unknown): void {
  define(req, 'query', value);
}

function isForm(req: { headers: Record<string, string | string[] | undefined> }): boolean {
  const ct = req.headers['content-type'];
  return typeof ct === 'string' && ct.toLowerCase().startsWith('application/x-www-form-urlencoded');
}

interface HppRequest {
  query?: unknown;
  body?: unknown;
  headers: Record<string, string | string[] | undefined>;
  queryPolluted?: Record<string, unknown[]>;
  bodyPolluted?: Record<string, unknown[]>;
}

/**
 * Applies parameter-pollution resolution to a request. `query` is the parsed query to resolve
 * (default `req.query`); shield() passes the object it scanned and rewrote, because Express 5's
 * getter would parse the URL again.
 */
export function applyHpp(req: HppRequest, hpp: CompiledHpp, query: unknown = req.query): void {
  const q = dedupe(query, hpp);
  req.queryPolluted = q === null ? (Object.create(null) as Record<string, unknown[]>) : q.polluted;
  if (q !== null) setQuery(req, q.value);
  if (hpp.body && req.body !== undefined && isForm(req)) {
    const b = dedupe(req.body, hpp);
    req.bodyPolluted = b === null ? (Object.create(null) as Record<string, unknown[]>) : b.polluted;
    if (b !== null) req.body = b.value;
  }
}

/** Express middleware: last-value-wins for repeated query (and form body) parameters. */
export function hpp(options?: HppOptions): (req: HppRequest, res: unknown, next: () => void) => void {
  const compiled = compileHpp(options);
  return (req, _res, next) => {
    applyHpp(req, compiled);
    next();
  };
}
