// HTTP parameter pollution: `?role=user&role=admin` parses to an array, which code expecting a
// string mishandles (type confusion, checks done on one value and use of another). Duplicates
// resolve last-value-wins; the original arrays stay in `req.queryPolluted` (and
// `req.bodyPolluted` for form bodies); whitelisted names keep their arrays. JSON bodies are
// left alone: an array there is the client's explicit choice, not a repeated parameter.

import { IncomingMessage } from 'node:http';
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

type PollutionName = 'queryPolluted' | 'bodyPolluted';

// The requests whose pollution map is empty and not stored (see setEmpty), by property name.
const emptyMaps: Record<PollutionName, WeakSet<object>> = { queryPolluted: new WeakSet(), bodyPolluted: new WeakSet() };
// Per request prototype: whether the accessor below answers for its requests.
const lazyProtos = new WeakMap<object, boolean>();
let lastProto: object | null = null;
let lastLazy = false;

/**
 * Gives `req[name]` an empty null-prototype object, every request's answer when nothing
 * repeats. Express replaces each request's prototype (Object.setPrototypeOf), after which V8
 * (Node 20) gives the object a map of its own with every property added to it: one more
 * property costs about 1-2 us there (`node bench/middleware-direct.mjs --express`), against
 * 0.05 us on a plain node:http request. So on such a request the empty map is not stored: the
 * request joins a WeakSet, and an accessor on the prototype just above node's
 * IncomingMessage.prototype (Express's `request`, which every app's request inherits from, so
 * sub-apps are covered) makes the empty object, as the request's own property, when it is first
 * read. A request that never came through here reads undefined, as before; an assignment stores
 * its value as a plain own property; a value an earlier hpp() stored on the request stays.
 */
function setEmpty(req: object, name: PollutionName): void {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto !== lastProto) {
    lastProto = proto;
    lastLazy = proto !== null && lazyFor(proto);
  }
  if (lastLazy) emptyMaps[name].add(req);
  else if (!Object.hasOwn(req, name)) (req as Record<string, unknown>)[name] = Object.create(null);
}

function lazyFor(proto: object): boolean {
  const known = lazyProtos.get(proto);
  if (known !== undefined) return known;
  let lazy = false;
  if (proto !== IncomingMessage.prototype) {
    // the prototype whose own prototype is IncomingMessage.prototype; none: not a node:http
    // request. A prototype on the way that defines one of the names (the app's own) wins: then
    // the maps are stored on the request, as before.
    let top: object | null = proto;
    let shadowed = false;
    while (top !== null && Object.getPrototypeOf(top) !== IncomingMessage.prototype) {
      if (Object.hasOwn(top, 'queryPolluted') || Object.hasOwn(top, 'bodyPolluted')) shadowed = true;
      top = Object.getPrototypeOf(top) as object | null;
    }
    if (top !== null && !shadowed) lazy = installAccessors(top);
  }
  lazyProtos.set(proto, lazy);
  return lazy;
}

const installed = new WeakSet<object>();

function installAccessors(top: object): boolean {
  if (installed.has(top)) return true;
  const names: PollutionName[] = ['queryPolluted', 'bodyPolluted'];
  // a name the prototype already defines (the app's own, or another copy of this module's) is left alone
  if (names.some((n) => Object.getOwnPropertyDescriptor(top, n) !== undefined)) return false;
  for (const name of names) {
    const marked = emptyMaps[name];
    Object.defineProperty(top, name, {
      configurable: true,
      enumerable: false,
      get(this: object): unknown {
        if (!marked.has(this)) return undefined;
        const empty = Object.create(null) as Record<string, unknown[]>;
        define(this, name, empty);
        return empty;
      },
      set(this: object, value: unknown): void {
        define(this, name, value);
      },
    });
  }
  installed.add(top);
  return true;
}

function isForm(headers: Record<string, string | string[] | undefined>): boolean {
  const ct = headers['content-type'];
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
  resolvePollution(req, hpp, query, req.body, req.headers);
}

/**
 * applyHpp() with the request's body and headers already read (each read of a property of an
 * Express request misses V8's inline caches: see setEmpty).
 */
export function resolvePollution(req: HppRequest, hpp: CompiledHpp, query: unknown, body: unknown, headers: Record<string, string | string[] | undefined>): void {
  const q = dedupe(query, hpp);
  if (q === null) setEmpty(req, 'queryPolluted');
  else {
    req.queryPolluted = q.polluted;
    setQuery(req, q.value);
  }
  if (hpp.body && body !== undefined && isForm(headers)) {
    const b = dedupe(body, hpp);
    if (b === null) setEmpty(req, 'bodyPolluted');
    else {
      req.bodyPolluted = b.polluted;
      req.body = b.value;
    }
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
