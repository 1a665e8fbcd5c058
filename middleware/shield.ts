// shield(): the request pipeline for Express 4 and 5. Per request, in order: security headers,
// parameter pollution, then one engine call over every string of the query, the parsed body,
// the raw path segments and the cookies (keys included: operator and prototype keys, also in
// bracket form), then exactly one decision: pass, sanitize (rewrite only what has a finding),
// observe, or block (403). The decision becomes one event for onDecision and telemetry.

import { randomUUID } from 'node:crypto';
import { Engine, type Finding } from '../bindings/engine.js';
import { defaultEngine } from '../bindings/index.js';
import { scanObject, ObjectLimitError, OBJECT_LIMITS, type ObjectPath } from '../bindings/object.js';
import { keyCheck, keyFindings } from '../bindings/object-keys.js';
import type { Severity } from '../bindings/rule-blob.js';
import { compileTrustProxy, normalizeIp, type TrustProxy, type ClientIpResolver } from './client-ip.js';
import { compileExclude, type ExcludeOptions } from './exclude.js';
import { compileHpp, dedupe, setQuery, type HppOptions } from './hpp.js';
import { createIpHasher, ipHashKey } from './ip-hash.js';
import { applyEdits, type Edit } from './rewrite.js';
import { normalizeRoute, routeTemplate } from './route.js';
import { securityHeaderSetter, type SecurityHeadersOptions } from './security-headers.js';
import { LOCAL_WORKSPACE_ID, SDK_NAME, SDK_VERSION, type Action, type DecisionEvent } from './event.js';
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
}
interface Res {
  statusCode: number;
  headersSent: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  end(body?: string): unknown;
  once(event: 'close', fn: () => void): unknown;
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
    }
  }
}

/** Cookie header -> [name, value] pairs (first of a repeated name wins, as cookie parsers do). */
function parseCookies(header: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  let i = 0;
  const n = header.length;
  while (i < n && out.length < 200) {
    let end = header.indexOf(';', i);
    if (end < 0) end = n;
    const eq = header.indexOf('=', i);
    if (eq > i && eq < end) {
      const name = header.slice(i, eq).trim();
      const value = header.slice(eq + 1, end).trim();
      if (name.length > 0 && !seen.has(name)) {
        seen.add(name);
        out.push([name, value]);
      }
    }
    i = end + 1;
  }
  return out;
}

function hasBody(req: Req): boolean {
  const cl = req.headers['content-length'];
  return (typeof cl === 'string' && cl !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function isTextType(req: Req): boolean {
  const ct = req.headers['content-type'];
  if (typeof ct !== 'string') return false;
  const t = ct.toLowerCase();
  return t.startsWith('text/') || t.includes('xml') || t.includes('json') || t.startsWith('application/x-www-form-urlencoded');
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

  const clientIp = (req: Req): string => {
    // Express's own setting wins when the app set one (req.ip then follows it)
    const appTrust = req.app?.get('trust proxy');
    if (appTrust !== undefined && appTrust !== false && typeof req.ip === 'string') return normalizeIp(req.ip);
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
      timestamp: new Date().toISOString(),
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
    res.once('close', () => {
      const route = routeTemplate(req.baseUrl, req.route?.path) ?? normalizeRoute(req.originalUrl ?? req.url);
      emit(req, decision, action, top, route, context);
    });
  };

  const refuse = (req: Req, res: Res, status: number, body: Record<string, string>, top: RequestFinding | null, context: DecisionContext): void => {
    emit(req, 'deny', 'blocked', top, normalizeRoute(req.originalUrl ?? req.url), context);
    if (res.headersSent) return;
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(JSON.stringify(body));
  };

  return function shieldMiddleware(req: Req, res: Res, next: Next): void {
    let query: unknown;
    try {
      if (setHeaders !== null) setHeaders(req, res);
      const url = req.originalUrl ?? req.url;
      if (exclude.route(url)) { next(); return; }

      query = req.query; // Express 5 re-parses on every read: read once
      if (hppConf !== null) {
        const q = dedupe(query, hppConf);
        req.queryPolluted = q === null ? Object.create(null) : q.polluted;
        if (q !== null) { query = q.value; setQuery(req, query); }
        if (hppConf.body && req.body !== undefined && req.headers['content-type']?.toString().toLowerCase().startsWith('application/x-www-form-urlencoded')) {
          const b = dedupe(req.body, hppConf);
          req.bodyPolluted = b === null ? Object.create(null) : b.polluted;
          if (b !== null) req.body = b.value;
        }
      }

      // everything the engine sees, under one null-prototype root: one walk, one wasm call
      const root = Object.create(null) as Record<Location, unknown>;
      if (query !== undefined && query !== null && (typeof query !== 'object' || Object.keys(query).length > 0)) root.query = query;
      let body = req.body;
      let bodyWasBuffer = false;
      if (body === undefined) {
        if (hasBody(req)) warnOnce('parsers', 'a request body arrived before any body parser ran, so bodies are not scanned: mount shield() after express.json() and express.urlencoded()');
      } else if (Buffer.isBuffer(body)) {
        if (isTextType(req)) { body = body.toString('utf8'); bodyWasBuffer = true; root.body = body; }
      } else if (body !== null && (typeof body === 'object' || typeof body === 'string')) {
        root.body = body;
      }
      const q = url.indexOf('?');
      const rawPath = q >= 0 ? url.slice(0, q) : url;
      const segs = rawPath.split('/');
      // only segments that could hold anything: most paths are short plain names
      let pathHasText = false;
      for (let i = 1; i < segs.length; i++) if (segs[i]!.length > 0) { pathHasText = true; break; }
      if (pathHasText) root.path = segs.slice(); // edited in place: segs keeps the originals
      let cookiePairs: Array<[string, string]> | null = null;
      const cookieHeader = scanCookies ? req.headers.cookie : undefined;
      if (typeof cookieHeader === 'string' && cookieHeader.length > 0) {
        cookiePairs = parseCookies(cookieHeader);
        const jar = Object.create(null) as Record<string, string>;
        for (const [k, v] of cookiePairs) jar[k] = v;
        root.cookie = jar;
      }

      const raw = scanObject(root, limits);
      const findings: RequestFinding[] = [];
      for (const f of raw) {
        if (exclude.hasFields && exclude.field(f.path)) continue;
        findings.push({
          vector: f.vector, rule: f.rule, matched: f.matched, start: f.start, end: f.end,
          location: f.path[0] as Location, path: f.path.slice(1), part: f.part,
          severity: severityOf.get(f.rule) ?? 'medium',
        });
      }
      if (findings.length === 0) {
        emitOnClose(req, res, 'allow', 'passed', null, { findings, incident: null });
        next();
        return;
      }
      // most severe first; the engine's order (by position) breaks ties
      findings.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity]);
      const top = findings[0]!;
      const incident = randomUUID();
      const context: DecisionContext = { findings, incident };
      if (block) {
        refuse(req, res, 403, { error: 'blocked', vector: top.vector, incident }, top, context);
        return;
      }
      if (observe) {
        emitOnClose(req, res, 'allow', 'observed', top, context);
        next();
        return;
      }

      // sanitize: only the keys and values with a finding change
      const edits: Edit[] = findings.map((f) => ({
        path: [f.location, ...f.path], part: f.part, structural: f.part === 'key' && structuralRules.has(f.rule),
      }));
      applyEdits(root, edits, engine, (name) => keyFindings(kc, name) !== null);
      const touched = new Set(findings.map((f) => f.location));
      if (touched.has('query')) setQuery(req, root.query);
      if (touched.has('body')) req.body = bodyWasBuffer ? Buffer.from(root.body as string, 'utf8') : root.body;
      if (touched.has('path')) {
        const out = (root.path as string[]).map((s, i) => (s === segs[i] ? s : encodeURIComponent(s)));
        const rest = q >= 0 ? url.slice(q) : '';
        const newUrl = out.join('/') + rest;
        // req.url is relative to a router's mount point; at app level it is the whole URL
        if (req.url === url) req.url = newUrl;
        req.originalUrl = newUrl;
      }
      if (touched.has('cookie') && cookiePairs !== null) {
        // untouched cookies keep their exact bytes; rewritten ones are percent-encoded
        const jar = root.cookie as Record<string, string>;
        const before = new Map(cookiePairs);
        req.headers.cookie = Object.keys(jar).map((k) => `${k}=${before.get(k) === jar[k] ? jar[k] : encodeURIComponent(jar[k]!)}`).join('; ');
      }
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
      // an infrastructure fault: fail open, logged once
      warnOnce('fault', `internal error, request passed unscanned (logged once): ${(err as Error)?.stack ?? String(err)}`);
      next();
    }
  };
}
