// shield(): the request pipeline for Express 4 and 5. Per request, in order: security headers,
// parameter pollution, then one engine call over every string of the query, the parsed body,
// the raw path segments and the cookies (keys included: operator and prototype keys, also in
// bracket form), then exactly one decision: pass, sanitize (rewrite only what has a finding),
// observe, or block (403). The decision becomes one event for onDecision and telemetry.

import { randomUUID } from 'node:crypto';
import { Engine, type Finding } from '../bindings/engine.js';
import { defaultEngine } from '../bindings/index.js';
import { scanObject, define, ObjectLimitError, OBJECT_LIMITS, MAX_DEPTH_CEILING, type ObjectPath } from '../bindings/object.js';
import { keyCheck, keyFindings } from '../bindings/object-keys.js';
import type { Severity } from '../bindings/rule-blob.js';
import { compileTrustProxy, normalizeIp, type TrustProxy, type ClientIpResolver } from './client-ip.js';
import { compileExclude, type ExcludeOptions } from './exclude.js';
import { compileHpp, resolvePollution, setQuery, type HppOptions } from './hpp.js';
import { queryFromUrl } from './express-proto.js';
import { createIpHasher, ipHashKey } from './ip-hash.js';
import { applyEdits, neutralize, type Edit } from './rewrite.js';
import { normalizeRoute, routeTemplate } from './route.js';
import { detach } from '../bindings/text.js';
import { securityHeaderSetter, type SecurityHeadersOptions } from './security-headers.js';
import { LOCAL_WORKSPACE_ID, SDK_NAME, SDK_VERSION, isoTimestamp, type Action, type DecisionEvent } from './event.js';
import { telemetryFromEnv, type TelemetryClient, type TelemetryOptions } from './telemetry.js';

/** Where in the request a finding is. */
export type Location = 'query' | 'body' | 'path' | 'cookie';

/** A finding of shield(): the engine's finding, where it is, and whether the key or the value holds it. */
export interface RequestFinding extends Finding {
  location: Location;
  /** Keys from the location down to the key or value (`['user', '$ne']`; path segments by index). */
  path: ObjectPath;
  part: 'key' | 'value';
  severity: Severity;
}

/** The second argument of onDecision. */
export interface DecisionContext {
  /** Every finding, most severe first (the event names the first). */
  findings: RequestFinding[];
  /** The incident id the client saw in a 403 (also set for sanitized and observed requests); null when clean. */
  incident: string | null;
}

export interface ShieldOptions {
  /** Refuse requests with a finding (403 naming the vector and an incident id). Default false: rewrite the hostile values. */
  block?: boolean;
  /** Report findings without changing or refusing anything (decision `allow`, action `observed`). Default false. */
  observe?: boolean;
  /** Receives every decision event, and all findings locally. An exception inside it is caught and logged once. */
  onDecision?: (event: DecisionEvent, context: DecisionContext) => void;
  /** Put the client address in events (`ip`). Default false: only `ip_hash`. */
  raw_ip?: boolean;
  /** The `app_id` of events; default SHIELD_APP_ID, else `default`. */
  appId?: string;
  /** Routes neither scanned nor reported, and fields whose findings are ignored. */
  exclude?: ExcludeOptions;
  /** Rule ids to switch off (`patterns.sql.tautology`, ...). */
  rules?: { disable?: readonly string[] };
  /** Security headers (per-header overrides), or false. */
  headers?: SecurityHeadersOptions | false;
  /** Parameter-pollution resolution, or false. */
  hpp?: HppOptions | false;
  /** Operator and prototype key walks, or false. */
  keys?: boolean;
  /** Scan cookies (default true). */
  cookies?: boolean;
  /** Trusted proxies when the app has not set Express's own `trust proxy`: a hop count or addresses and CIDR blocks. */
  trustProxy?: TrustProxy;
  /** Key of ip_hash; default SHIELD_IP_HASH_KEY, else derived from SHIELD_KEY, else random per process. */
  ipHashKey?: string | Buffer;
  /** Telemetry settings (the three SHIELD_* variables must still be set), or false to never send. */
  telemetry?: Partial<TelemetryOptions> | false;
  /** Longest value scanned, in UTF-16 units; longer ones are findings (`patterns.limits.oversize`). Default 1 MiB of units. */
  maxValueLength?: number;
  /** Bounds of the key walk: nesting depth, keys, total string units (ObjectLimitError past them: 413). */
  limits?: { maxDepth?: number; maxKeys?: number; maxStringUnits?: number };
}

// Minimal structural types: the same code serves Express 4 and 5.
interface Req {
  method: string;
  url: string;
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  query?: unknown;
  body?: unknown;
  baseUrl?: string;
  route?: { path?: unknown };
  ip?: string;
  app?: { get(name: string): unknown };
  socket: { remoteAddress?: string };
  queryPolluted?: Record<string, unknown[]>;
  bodyPolluted?: Record<string, unknown[]>;
  cookies?: unknown;
  signedCookies?: unknown;
}
interface Res {
  statusCode: number;
  headersSent: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  end(body?: string): unknown;
  on(event: 'close', fn: () => void): unknown;
}
type Next = (err?: unknown) => void;

const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 };
const OPTION_NAMES = new Set([
  'block', 'observe', 'onDecision', 'raw_ip', 'appId', 'exclude', 'rules', 'headers', 'hpp', 'keys', 'cookies',
  'trustProxy', 'ipHashKey', 'telemetry', 'maxValueLength', 'limits',
]);
const DEFAULT_MAX_VALUE = 1024 * 1024;

// Logged once per kind per process, never per request.
const warned = new Set<string>();
function warnOnce(kind: string, message: string): void {
  if (warned.has(kind)) return;
  warned.add(kind);
  console.warn(`shield: ${message}`);
}

let sharedTelemetry: TelemetryClient | null | undefined;

/** The process-wide telemetry client (null in local-only mode), created from the environment on first use. */
export function telemetryClient(overrides?: Partial<TelemetryOptions>): TelemetryClient | null {
  if (sharedTelemetry === undefined) sharedTelemetry = telemetryFromEnv(process.env, overrides);
  return sharedTelemetry;
}

function checkOptions(o: ShieldOptions): void {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new TypeError('shield: options must be an object');
  for (const k of Object.keys(o)) if (!OPTION_NAMES.has(k)) throw new TypeError(`shield: option "${k}" is not known`);
  for (const k of ['block', 'observe', 'raw_ip', 'keys', 'cookies'] as const) {
    if (o[k] !== undefined && typeof o[k] !== 'boolean') throw new TypeError(`shield: option "${k}" must be a boolean`);
  }
  if (o.block && o.observe) throw new TypeError('shield: options "block" and "observe" cannot both be true');
  if (o.onDecision !== undefined && typeof o.onDecision !== 'function') throw new TypeError('shield: option "onDecision" must be a function');
  if (o.appId !== undefined && (typeof o.appId !== 'string' || o.appId.length === 0 || o.appId.length > 128)) {
    throw new TypeError('shield: option "appId" must be a string of 1 to 128 characters');
  }
  if (o.rules !== undefined) {
    if (o.rules === null || typeof o.rules !== 'object') throw new TypeError('shield: option "rules" must be an object: { disable?: string[] }');
    if (o.rules.disable !== undefined && (!Array.isArray(o.rules.disable) || o.rules.disable.some((r) => typeof r !== 'string'))) {
      throw new TypeError('shield: option "rules.disable" must be an array of rule ids');
    }
  }
  if (o.maxValueLength !== undefined && (!Number.isInteger(o.maxValueLength) || o.maxValueLength < 1)) {
    throw new TypeError('shield: option "maxValueLength" must be a positive integer');
  }
  if (o.limits !== undefined) {
    if (o.limits === null || typeof o.limits !== 'object') throw new TypeError('shield: option "limits" must be an object');
    for (const [k, v] of Object.entries(o.limits)) {
      if (!(k in OBJECT_LIMITS)) throw new TypeError(`shield: option "limits.${k}" is not known`);
      if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1)) throw new TypeError(`shield: option "limits.${k}" must be a positive integer`);
      if (k === 'maxDepth' && (v as number) > MAX_DEPTH_CEILING) throw new TypeError(`shield: option "limits.maxDepth" must be at most ${MAX_DEPTH_CEILING}`);
    }
  }
}

/** One cookie of a Cookie header: its name and value, and where the value and the whole pair sit in the header. */
interface CookieEntry {
  name: string;
  value: string;
  /** The value as scanned: cookie-parser's JSON cookies (`j:{...}`) without their prefix. */
  scanned: string;
  json: boolean;
  valueStart: number;
  valueEnd: number;
  pairStart: number;
  pairEnd: number; // past the `;` that ends the pair, if any
}

/** Every pair of a Cookie header (repeated names too: parsers differ on which one wins), in one linear pass. */
function parseCookies(header: string): CookieEntry[] {
  const out: CookieEntry[] = [];
  const n = header.length;
  let i = 0;
  let eq = -1; // the next '=' at or after i, kept while it lies beyond the current pair (no rescans)
  while (i < n) {
    let end = header.indexOf(';', i);
    if (end < 0) end = n;
    if (eq < i) eq = header.indexOf('=', i);
    if (eq < 0) eq = n;
    if (eq < end) {
      let ns = i;
      let ne = eq;
      while (ns < ne && header.charCodeAt(ns) <= 32) ns++;
      while (ne > ns && header.charCodeAt(ne - 1) <= 32) ne--;
      let vs = eq + 1;
      let ve = end;
      while (vs < ve && header.charCodeAt(vs) <= 32) vs++;
      while (ve > vs && header.charCodeAt(ve - 1) <= 32) ve--;
      if (ne > ns) {
        const value = header.slice(vs, ve);
        // what a cookie parser hands the app: percent-decoded, and JSON cookies without `j:`
        let decoded = value;
        if (value.indexOf('%') >= 0) {
          try { decoded = decodeURIComponent(value); } catch { /* malformed: the engine decodes what it can */ }
        }
        const json = decoded.startsWith('j:');
        out.push({ name: header.slice(ns, ne), value, scanned: json ? decoded.slice(2) : decoded, json, valueStart: vs, valueEnd: ve, pairStart: i, pairEnd: end < n ? end + 1 : n });
      }
    }
    i = end + 1;
  }
  return out;
}

type Headers = Req['headers'];

function hasBody(headers: Headers): boolean {
  const cl = headers['content-length'];
  return (typeof cl === 'string' && cl !== '0') || headers['transfer-encoding'] !== undefined;
}

function isTextType(headers: Headers): boolean {
  const ct = headers['content-type'];
  if (typeof ct !== 'string') return false;
  const t = ct.toLowerCase();
  return t.startsWith('text/') || t.includes('xml') || t.includes('json') || t.startsWith('application/x-www-form-urlencoded');
}

/**
 * Splices the rewritten cookies into the original header (every other byte stays), and updates
 * `req.cookies` / `req.signedCookies` when a cookie parser already ran.
 */
function rewriteCookies(req: Req, header: string, cookies: CookieEntry[], edits: Map<number, 'drop' | 'value'>, engine: Engine): void {
  // From the last edited cookie to the first, as always: when a name repeats, what the jars
  // end up holding depends on that order. The new header is collected as pieces and joined
  // once; splicing each edit into the whole header cost edits x header length.
  const order = [...edits.keys()].sort((a, b) => b - a);
  const jars = [req.cookies, req.signedCookies].filter((j): j is Record<string, unknown> => j !== null && typeof j === 'object');
  const pieces: string[] = []; // in reverse order
  let keptTo = header.length; // header[keptTo..] is already among the pieces
  for (const idx of order) {
    const c = cookies[idx]!;
    if (edits.get(idx) === 'drop') {
      pieces.push(header.slice(c.pairEnd, keptTo));
      keptTo = c.pairStart;
      for (const jar of jars) if (Object.prototype.hasOwnProperty.call(jar, c.name)) delete jar[c.name];
      continue;
    }
    const clean = neutralize(engine, c.scanned);
    // (an emptied JSON cookie loses its "j:" too: cookie-parser would hand the route "j:")
    pieces.push(header.slice(c.valueEnd, keptTo), (c.json && clean.length > 0 ? 'j:' : '') + encodeURIComponent(clean));
    keptTo = c.valueStart;
    for (const jar of jars) {
      if (Object.prototype.hasOwnProperty.call(jar, c.name)) define(jar, c.name, clean);
    }
  }
  pieces.push(header.slice(0, keptTo));
  const out = pieces.reverse().join('');
  // a dropped last pair leaves "...; " behind: trim it (a loop, no regular expression on request data)
  let e = out.length;
  while (e > 0 && (out.charCodeAt(e - 1) <= 32 || out.charCodeAt(e - 1) === 59)) e--;
  req.headers.cookie = out.slice(0, e);
}

/**
 * The raw path holds a percent-encoded '/' or '\\' (also encoded again, up to the engine's four
 * decoding rounds: "%252F"). Reads each '%' once per round.
 */
function encodedSeparator(rawPath: string): boolean {
  let s = rawPath;
  for (let round = 0; round < 4 && s.includes('%'); round++) {
    const lower = s.toLowerCase();
    if (lower.includes('%2f') || lower.includes('%5c')) return true;
    let next: string;
    try {
      next = decodeURIComponent(s);
    } catch {
      return true; // a malformed escape: the engine's decoder keeps what this one refuses; refuse
    }
    if (next === s) return false;
    s = next;
  }
  return false;
}

/**
 * The URL path sanitize mode hands on, rebuilt from the path's rewritten entries (`p[0]` the whole
 * path, then each segment), or null when the request must be refused instead:
 * - a segment with nothing usable left (neutralize made it empty): no route would match what
 *   remains;
 * - a finding spread over segments (the whole path's sanitized text is used, re-encoded segment by
 *   segment) in a path with an encoded separator, which that text holds decoded (re-splitting it
 *   would route the request elsewhere: "report%2Fq3.pdf");
 * - the rebuilt path, whole or any segment of it as the route will read it, still flagged
 *   (sanitized segments can join into a finding, "/a/%3C/script%3E...", and a whole path's text
 *   can be clean while a segment of it is not).
 */
function rebuiltPath(p: string[], edits: Edit[], crossSegment: boolean, rawPath: string, segs: string[], engine: Engine): string | null {
  for (const e of edits) if (e.path[0] === 'path' && e.part === 'value' && p[e.path[1] as number] === '') return null;
  let newPath: string;
  if (crossSegment && p[0] !== rawPath) {
    if (encodedSeparator(rawPath)) return null;
    newPath = p[0]!.split('/').map((x) => encodeURIComponent(x)).join('/');
    if (newPath.charCodeAt(0) !== 47) newPath = `/${newPath}`;
  } else {
    newPath = p.map((x, i) => (i === 0 ? '' : x === segs[i] ? x : encodeURIComponent(x))).join('/');
  }
  return engine.scanValues(newPath.split('/').concat(newPath)).some((f) => f.length > 0) ? null : newPath;
}

/**
 * Express middleware protecting every route after it. Mount it after the body parsers
 * (`express.json()`, `express.urlencoded()`) so bodies are scanned:
 * `app.use(express.json()); app.use(shield());`
 */
export function shield(options: ShieldOptions = {}): (req: Req, res: Res, next: Next) => void {
  checkOptions(options);
  const block = options.block === true;
  const observe = options.observe === true;
  const onDecision = options.onDecision;
  const rawIp = options.raw_ip === true;
  const scanCookies = options.cookies !== false;
  const disable = [...(options.rules?.disable ?? [])];
  const keyRuleIds = defaultEngine().rules.filter((r) => r.kind === 'object-key').map((r) => r.id);
  if (options.keys === false) disable.push(...keyRuleIds);
  const custom = disable.length > 0 || options.maxValueLength !== undefined;
  // an unknown rule id is refused by the Engine constructor, naming it
  const engine = custom ? new Engine({ rules: { disable }, maxValueLength: options.maxValueLength ?? DEFAULT_MAX_VALUE }) : defaultEngine();
  const kc = keyCheck(engine);
  const severityOf = new Map(engine.rules.map((r) => [r.id, r.severity]));
  const structuralRules = new Set(keyRuleIds);
  const exclude = compileExclude(options.exclude);
  const hppConf = options.hpp === false ? null : compileHpp(options.hpp ?? {});
  const setHeaders = securityHeaderSetter(options.headers === undefined ? {} : options.headers);
  const trust: ClientIpResolver | null = options.trustProxy === undefined ? null : compileTrustProxy(options.trustProxy);
  const hashIp = createIpHasher(ipHashKey(options.ipHashKey));
  const appId = options.appId ?? (process.env.SHIELD_APP_ID || 'default');
  const workspaceId = process.env.SHIELD_WORKSPACE_ID || LOCAL_WORKSPACE_ID;
  const telemetry = options.telemetry === false ? null : telemetryClient(options.telemetry === undefined ? { appId } : { appId, ...options.telemetry });
  const limits = { engine, ...options.limits };
  // with neither onDecision nor telemetry no event has anywhere to go: none is built, and no
  // listener waits for the response to finish (about 5 us of a request's CPU in a server)
  const eventsWanted = onDecision !== undefined || telemetry !== null;

  const clientIp = (req: Req): string => {
    // Express's own setting wins when the app set one (req.ip then follows it)
    const appTrust = req.app?.get('trust proxy');
    // a copy: Express's req.ip can be a slice of the X-Forwarded-For header, which the event and
    // the ip_hash cache would otherwise keep alive
    if (appTrust !== undefined && appTrust !== false && typeof req.ip === 'string') return detach(normalizeIp(req.ip));
    const peer = req.socket.remoteAddress ?? '';
    return trust === null ? normalizeIp(peer) : trust(peer, req.headers['x-forwarded-for']);
  };

  const emit = (req: Req, decision: 'allow' | 'deny', action: Action, top: RequestFinding | null, route: string, context: DecisionContext): void => {
    const ip = clientIp(req);
    const event: DecisionEvent = {
      workspace_id: workspaceId,
      app_id: appId,
      sdk: SDK_NAME,
      sdk_version: SDK_VERSION,
      decision,
      vector: top === null ? 'none' : top.vector,
      rule: top === null ? 'none' : top.rule,
      matched: top === null ? '' : top.matched,
      route,
      method: req.method,
      ip_hash: hashIp(ip),
      timestamp: isoTimestamp(),
      action,
    };
    if (rawIp) event.ip = ip;
    if (onDecision !== undefined) {
      try {
        onDecision(event, context);
      } catch (err) {
        warnOnce('onDecision', `onDecision threw (logged once; requests are unaffected): ${(err as Error)?.stack ?? String(err)}`);
      }
    }
    telemetry?.enqueue(event);
  };

  // emitted when the response is done: the route template is known only after routing
  const emitOnClose = (req: Req, res: Res, decision: 'allow' | 'deny', action: Action, top: RequestFinding | null, context: DecisionContext): void => {
    if (!eventsWanted) return;
    // on() with a flag, not once(): once() binds a wrapper per call (about 0.1 us); a response
    // closes once, and the flag keeps it to one event if a 'close' were emitted again
    let done = false;
    res.on('close', () => {
      if (done) return;
      done = true;
      const route = routeTemplate(req.baseUrl, req.route?.path) ?? normalizeRoute(req.originalUrl ?? req.url);
      emit(req, decision, action, top, route, context);
    });
  };

  const refuse = (req: Req, res: Res, status: number, body: Record<string, string>, top: RequestFinding | null, context: DecisionContext): void => {
    if (eventsWanted) emit(req, 'deny', 'blocked', top, normalizeRoute(req.originalUrl ?? req.url), context);
    if (res.headersSent) return;
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(body));
  };

  return function shieldMiddleware(req: Req, res: Res, next: Next): void {
    // once findings are known, a fault while acting on them refuses the request (never a silent pass)
    let pending: { top: RequestFinding; context: DecisionContext } | null = null;
    try {
      // In an Express app every read of a property of req or res misses V8's inline caches
      // (Express replaces their prototypes: see setEmpty in hpp.ts), about 0.1-0.5 us each, so
      // each is read once here and passed on.
      const headers = req.headers;
      if (setHeaders !== null) setHeaders(req, res, headers);
      const url = req.originalUrl ?? req.url;
      if (exclude.route(url)) { next(); return; }

      // everything the engine sees, under one null-prototype root: one walk, one wasm call. The
      // query and form bodies are scanned before parameter pollution is resolved, so every
      // repeated value is judged (and rewritten), not only the one that wins.
      const root = Object.create(null) as Record<string, unknown>;
      // Express 5's req.query is a getter that parses req.url on every read (and stores the parsed
      // URL on the request): read once, and not at all where it can only be {}: the getter is
      // Express 5's (express-proto.ts), neither req.url nor req.originalUrl has a query string,
      // and the request has no query of its own (Express 4 and other routers store one)
      const reqUrl = req.url;
      const query = typeof reqUrl !== 'string' || reqUrl.indexOf('?') >= 0 || url.indexOf('?') >= 0 ||
        !queryFromUrl(req) || Object.hasOwn(req, 'query') ? req.query : undefined;
      if (query !== undefined && query !== null && (typeof query !== 'object' || Object.keys(query).length > 0)) root.query = query;
      let bodyWasBuffer = false;
      const body = req.body;
      if (body === undefined) {
        if (hasBody(headers)) warnOnce('parsers', 'a request body arrived before any body parser ran, so bodies are not scanned: mount shield() after express.json() and express.urlencoded()');
      } else if (Buffer.isBuffer(body)) {
        if (isTextType(headers)) { root.body = body.toString('utf8'); bodyWasBuffer = true; }
      } else if (body !== null && (typeof body === 'object' || typeof body === 'string')) {
        root.body = body;
      }
      // the path: the whole raw path at index 0 (traversal spread over segments: /a/../../etc),
      // then each segment (what a route parameter will hold)
      const q = url.indexOf('?');
      const rawPath = q >= 0 ? url.slice(0, q) : url;
      const segs = rawPath.split('/');
      if (rawPath.length > 1) {
        const p = segs.slice();
        p[0] = rawPath;
        root.path = p;
      }
      let cookies: CookieEntry[] | null = null;
      const cookieHeader = scanCookies ? headers.cookie : undefined;
      if (typeof cookieHeader === 'string' && cookieHeader.length > 0) {
        cookies = parseCookies(cookieHeader);
        if (cookies.length > 0) {
          root.cookie = cookies.map((c) => c.scanned);
          root.cookieName = cookies.map((c) => c.name);
        }
      }

      const raw = scanObject(root, limits);
      const findings: RequestFinding[] = [];
      const wholePath: RequestFinding[] = [];
      for (const f of raw) {
        const where = f.path[0] as string;
        let location = where as Location;
        let path = f.path.slice(1);
        let part = f.part;
        if (where === 'cookie' || where === 'cookieName') {
          // cookies are reported by name; a hostile name counts as the key
          location = 'cookie';
          const c = cookies![f.path[1] as number]!;
          path = [c.name, ...f.path.slice(2)];
          if (where === 'cookieName') part = 'key';
        }
        const rf: RequestFinding = {
          vector: f.vector, rule: f.rule, matched: f.matched, start: f.start, end: f.end,
          location, path, part, severity: severityOf.get(f.rule) ?? 'medium',
        };
        // operator and prototype keys are never exempted by a field exclude
        if (exclude.hasFields && !structuralRules.has(f.rule) && exclude.field([location, ...path])) continue;
        if (where === 'path' && f.path[1] === 0) { rf.path = []; wholePath.push(rf); continue; }
        findings.push(rf);
      }
      // the whole path repeats what its segments hold: keep only what no segment reports
      let crossSegment = false; // a finding only the whole path shows (traversal spread over segments)
      if (wholePath.length > 0) {
        const segmentRules = new Set(findings.filter((f) => f.location === 'path').map((f) => f.rule));
        for (const f of wholePath) if (!segmentRules.has(f.rule)) { findings.push(f); crossSegment = true; }
      }

      if (findings.length === 0) {
        if (hppConf !== null) resolvePollution(req, hppConf, root.query, body, headers);
        emitOnClose(req, res, 'allow', 'passed', null, { findings, incident: null });
        next();
        return;
      }
      // most severe first; the engine's order (by position) breaks ties
      if (findings.length > 1) findings.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
      const top = findings[0]!;
      const incident = randomUUID();
      const context: DecisionContext = { findings, incident };
      pending = { top, context };
      if (block) {
        refuse(req, res, 403, { error: 'blocked', vector: top.vector, incident }, top, context);
        return;
      }
      if (observe) {
        if (hppConf !== null) resolvePollution(req, hppConf, root.query, body, headers);
        emitOnClose(req, res, 'allow', 'observed', top, context);
        next();
        return;
      }
      // a path rewrite needs the whole URL: shield() mounted under a prefix sees only part of it
      if (findings.some((f) => f.location === 'path') && reqUrl !== url) {
        refuse(req, res, 403, { error: 'blocked', vector: top.vector, incident }, top, context);
        return;
      }

      // sanitize: only the keys and values with a finding change
      const edits: Edit[] = [];
      const cookieEdits = new Map<number, 'drop' | 'value'>();
      for (const f of raw) {
        const where = f.path[0];
        if (where !== 'query' && where !== 'body' && where !== 'path') continue;
        if (exclude.hasFields && !structuralRules.has(f.rule) && exclude.field(f.path)) continue;
        edits.push({ path: f.path, part: f.part, structural: f.part === 'key' && structuralRules.has(f.rule) });
      }
      for (const f of raw) {
        const where = f.path[0];
        if (where !== 'cookie' && where !== 'cookieName') continue;
        const idx = f.path[1] as number;
        if (exclude.hasFields && !structuralRules.has(f.rule) && exclude.field(['cookie', cookies![idx]!.name])) continue;
        if (where === 'cookieName') cookieEdits.set(idx, 'drop');
        else if (cookieEdits.get(idx) !== 'drop') cookieEdits.set(idx, 'value');
      }
      applyEdits(root, edits, engine, (name) => keyFindings(kc, name) !== null);
      const touched = new Set(edits.map((e) => e.path[0]));
      if (touched.has('query')) setQuery(req, root.query);
      let bodyNow = body;
      if (touched.has('body')) {
        bodyNow = bodyWasBuffer ? Buffer.from(root.body as string, 'utf8') : root.body;
        // an object body was edited in place: storing it again would be one more write to a
        // request whose properties miss V8's inline caches in an Express app
        if (bodyNow !== body) req.body = bodyNow;
      }
      if (touched.has('path')) {
        const newPath = rebuiltPath(root.path as string[], edits, crossSegment, rawPath, segs, engine);
        if (newPath === null) {
          refuse(req, res, 403, { error: 'blocked', vector: top.vector, incident }, top, context);
          return;
        }
        const newUrl = newPath + (q >= 0 ? url.slice(q) : '');
        req.url = newUrl;
        req.originalUrl = newUrl;
      }
      if (cookieEdits.size > 0 && cookies !== null && typeof cookieHeader === 'string') rewriteCookies(req, cookieHeader, cookies, cookieEdits, engine);
      if (hppConf !== null) resolvePollution(req, hppConf, root.query, bodyNow, headers);
      emitOnClose(req, res, 'deny', 'sanitized', top, context);
      next();
    } catch (err) {
      if (err instanceof ObjectLimitError) {
        const top: RequestFinding = {
          vector: 'limits', rule: 'patterns.limits.object', matched: `${err.limit} over ${err.max}`, start: 0, end: 0,
          location: (err.path[0] as Location) ?? 'body', path: err.path.slice(1), part: 'value', severity: 'high',
        };
        const incident = randomUUID();
        if (observe) {
          emitOnClose(req, res, 'allow', 'observed', top, { findings: [top], incident });
          next();
          return;
        }
        refuse(req, res, 413, { error: 'too_large', vector: 'limits', incident }, top, { findings: [top], incident });
        return;
      }
      if (pending !== null && !observe) {
        // hostile input and a fault while neutralizing it: refuse rather than pass it on
        warnOnce('fault-after', `internal error while acting on findings, request refused (logged once): ${(err as Error)?.stack ?? String(err)}`);
        refuse(req, res, 403, { error: 'blocked', vector: pending.top.vector, incident: pending.context.incident! }, pending.top, pending.context);
        return;
      }
      // an infrastructure fault before anything was found: fail open, logged once, reported as unscanned
      warnOnce('fault', `internal error, request passed unscanned (logged once): ${(err as Error)?.stack ?? String(err)}`);
      const top: RequestFinding = {
        vector: 'engine', rule: 'patterns.engine.fault', matched: '', start: 0, end: 0, location: 'query', path: [], part: 'value', severity: 'high',
      };
      try {
        emitOnClose(req, res, 'allow', 'passed', top, { findings: [top], incident: null });
      } catch { /* nothing more to do */ }
      next();
    }
  };
}
