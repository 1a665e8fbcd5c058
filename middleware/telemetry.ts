// The telemetry client: queues decision events and sends them in batches to the control plane
// (`POST {SHIELD_ENDPOINT}/v1/events`, body schema/envelope.schema.json). Opt-in only: without
// SHIELD_ENDPOINT, SHIELD_WORKSPACE_ID and SHIELD_KEY, telemetryFromEnv() returns null and no
// socket or timer is ever created. The request path only pushes onto a bounded queue; encoding,
// compression and I/O happen later, one request at a time, and every failure goes to onError.

import { request as httpRequest, Agent as HttpAgent, type ClientRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { createGzip, constants as zlibConstants, type Gzip, type ZlibReset } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { SDK_NAME, SDK_VERSION, type DecisionEvent, type TelemetryEnvelope } from './event.js';

export interface TelemetryOptions {
  /** Control-plane base URL (SHIELD_ENDPOINT): https, or http to a loopback address. */
  endpoint: string;
  /** Workspace UUID (SHIELD_WORKSPACE_ID). */
  workspaceId: string;
  /** Workspace API key (SHIELD_KEY), sent as `Authorization: Bearer <key>`. */
  key: string;
  /** Application identifier (appId option, SHIELD_APP_ID, else `default`); 1 to 128 characters. */
  appId: string;
  /** Events held at most, denies and allows together (default 10,000). When full, the oldest allow goes first. */
  queueSize?: number;
  /** Events per request, 1 to 1000 (default 500); a full batch is sent without waiting for the interval. */
  batchSize?: number;
  /** Queued events are sent at least this often (default 2000 ms). */
  flushIntervalMs?: number;
  /** An instance that sent nothing for this long sends a heartbeat envelope (default 60,000 ms). */
  heartbeatMs?: number;
  /** Fraction (0 to 1) of clean allows (vector `none`) kept (default 1: all). Denies are always kept. */
  sampleAllow?: number;
  /** Compress request bodies with gzip (default true). */
  gzip?: boolean;
  /** Retries of one batch after network errors, timeouts, 5xx, 408 and 429 (default 6). */
  maxRetries?: number;
  /** Deadline of one request, response included; also the longest close() waits (default 10,000 ms). */
  timeoutMs?: number;
  /** Receives every failure: a batch given up, a failed heartbeat, events lost at close (default: console.warn, once per kind). */
  onError?: (err: Error) => void;
  /** First retry delay ceiling; each retry doubles it, full jitter (default 500 ms). */
  backoffBaseMs?: number;
  /** Largest retry delay without Retry-After (default 30,000 ms). */
  backoffCapMs?: number;
}

/** A telemetry failure. `kind` groups failures for logging; `status` is the HTTP status, if any. */
export class TelemetryError extends Error {
  readonly kind: 'rejected' | 'gave-up' | 'heartbeat' | 'encode' | 'close' | 'internal';
  readonly status: number | undefined;
  constructor(kind: TelemetryError['kind'], message: string, status?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TelemetryError';
    this.kind = kind;
    this.status = status;
  }
}

export interface TelemetryStats {
  /** Events waiting in the queue (not counting a batch being sent). */
  queued: number;
  /** Events dropped because the queue was full (the envelope's `dropped`). */
  dropped: number;
  /** Events the control plane acknowledged (2xx). */
  sent: number;
  /** Batches given up: refused (4xx other than 408/429), retries exhausted, or not encodable. */
  failedBatches: number;
  /** Retry attempts made. */
  retries: number;
}

const MAX_BATCH = 1000;
const MAX_TIMER_MS = 2_147_483_647; // setTimeout's ceiling; beyond it Node fires after 1 ms
const RETRY_AFTER_CAP_MS = 5 * 60_000;
const USER_AGENT = `shield-node/${SDK_VERSION}`;
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
// Anything Node would refuse in a header value, CR and LF above all.
const BAD_HEADER_CHAR_RE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Parses SHIELD_ENDPOINT. Only https is accepted, except http to a loopback address
 * (127.0.0.0/8, ::1, localhost) for a control plane on the same machine.
 */
export function validateEndpoint(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw new TypeError('SHIELD_ENDPOINT must be an absolute https:// URL (the control plane base URL)');
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return parsed;
  throw new TypeError(
    `SHIELD_ENDPOINT must use https:// (http:// is accepted only for a loopback address); got ${parsed.protocol}//${parsed.host}`,
  );
}

function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h === '[::1]') return true;
  // The URL parser has already normalized IPv4 (127.1, 0x7f.1 become 127.0.0.1).
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  // IPv4-mapped loopback, as the parser prints it: [::ffff:7f00:1] ... [::ffff:7fff:ffff].
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

function checkInt(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`telemetry option ${name} must be an integer from ${min} to ${max}; got ${String(value)}`);
  }
  return value;
}

/** Ring-buffer FIFO: O(1) push and shift, grows by doubling up to `max`. */
class Ring<T> {
  private buf: (T | undefined)[];
  private head = 0;
  length = 0;
  constructor(private readonly max: number) {
    this.buf = new Array<T | undefined>(Math.min(max, 256)).fill(undefined);
  }
  push(v: T): void {
    if (this.length === this.buf.length) this.grow();
    let i = this.head + this.length;
    if (i >= this.buf.length) i -= this.buf.length;
    this.buf[i] = v;
    this.length++;
  }
  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const v = this.buf[this.head];
    this.buf[this.head] = undefined;
    if (++this.head === this.buf.length) this.head = 0;
    this.length--;
    return v;
  }
  clear(): void {
    this.buf = new Array<T | undefined>(Math.min(this.max, 256)).fill(undefined);
    this.head = 0;
    this.length = 0;
  }
  private grow(): void {
    const size = Math.max(Math.min(this.buf.length * 2, this.max), this.buf.length + 1);
    const next = new Array<T | undefined>(size).fill(undefined);
    for (let k = 0; k < this.length; k++) {
      let i = this.head + k;
      if (i >= this.buf.length) i -= this.buf.length;
      next[k] = this.buf[i];
    }
    this.buf = next;
    this.head = 0;
  }
}

interface PostResult {
  status?: number;
  body?: string;
  retryAfterMs?: number;
  error?: Error;
}

interface Waiter {
  remaining: number;
  resolve: () => void;
}

// JSON encoding, straight into a Buffer. Telemetry's CPU is mostly JSON and gzip, and this costs
// about half of JSON.stringify plus Buffer.from: values with few distinct values are encoded once
// and cached, the four per-instance fields are one cached prefix, and an all-ASCII event (nearly
// all of them) is copied byte for byte. It also sends exactly the schema's fields: any other
// property an event object carries stays in the process. The bytes parse to the same value as
// JSON.stringify of those fields would.
const SPECIAL_RE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/; // anything but printable ASCII other than " and \
const NON_ASCII_RE = /[^\x00-\x7f]/;
const CACHE_LIMIT = 1024;
const NO_PREFIX = Symbol('no prefix yet');

class EventEncoder {
  private readonly cache = new Map<string, string>();
  private prefixKey: unknown[] = [NO_PREFIX]; // matches no event, even one without these fields
  private prefix = '';
  private prefixWide = false;
  /** Set when the string being built has a non-ASCII character (then it is written as UTF-8). */
  private wide = false;

  private str(v: unknown): string {
    if (typeof v === 'string') {
      if (!SPECIAL_RE.test(v)) return `"${v}"`;
      if (NON_ASCII_RE.test(v)) this.wide = true;
      return JSON.stringify(v);
    }
    this.wide = true; // not a string: a bug upstream; let the schema refuse it, but keep the JSON valid
    return JSON.stringify(v) ?? 'null';
  }

  /** A field with few distinct values (decision, vector, rule, route, method, action). */
  private lit(v: unknown): string {
    let j = this.cache.get(v as string);
    if (j === undefined) {
      if (typeof v !== 'string' || v.length > 256 || SPECIAL_RE.test(v)) return this.str(v);
      j = `"${v}"`;
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(v, j);
    }
    return j;
  }

  private event(e: DecisionEvent): string {
    const k = this.prefixKey;
    if (e.workspace_id !== k[0] || e.app_id !== k[1] || e.sdk !== k[2] || e.sdk_version !== k[3]) {
      this.wide = false;
      this.prefix = `{"workspace_id":${this.str(e.workspace_id)},"app_id":${this.str(e.app_id)},"sdk":${this.str(e.sdk)},"sdk_version":${this.str(e.sdk_version)}`;
      this.prefixWide = this.wide;
      this.prefixKey = [e.workspace_id, e.app_id, e.sdk, e.sdk_version];
    }
    this.wide = this.prefixWide;
    let s = `${this.prefix},"decision":${this.lit(e.decision)},"vector":${this.lit(e.vector)},"rule":${this.lit(e.rule)},"matched":${e.matched === '' ? '""' : this.str(e.matched)},"route":${this.lit(e.route)},"method":${this.lit(e.method)},"ip_hash":${this.str(e.ip_hash)},"timestamp":${this.str(e.timestamp)}`;
    if (e.action !== undefined) s += `,"action":${this.lit(e.action)}`;
    if (e.ip !== undefined) s += `,"ip":${this.str(e.ip)}`;
    return `${s}}`;
  }

  envelope(env: TelemetryEnvelope): Buffer {
    const head = `{"sdk":${this.str(env.sdk)},"sdk_version":${this.str(env.sdk_version)},"app_id":${this.str(env.app_id)},"workspace_id":${this.str(env.workspace_id)},"instance_id":"${env.instance_id}","kind":"${env.kind}","sent_at":"${env.sent_at}","dropped":${env.dropped},"events":[`;
    const events = env.events;
    let buf = Buffer.allocUnsafe(head.length * 3 + events.length * 480 + 16);
    let o = buf.write(head, 0, 'utf8');
    for (let i = 0; i < events.length; i++) {
      const s = this.event(events[i]);
      const wide = this.wide;
      const room = (wide ? s.length * 3 : s.length) + 3;
      if (o + room > buf.length) {
        const next = Buffer.allocUnsafe(Math.max(buf.length * 2, o + room));
        buf.copy(next, 0, 0, o);
        buf = next;
      }
      if (i > 0) buf[o++] = 0x2c; // ,
      o += buf.write(s, o, wide ? 'utf8' : 'latin1');
    }
    buf[o++] = 0x5d; // ]
    buf[o++] = 0x7d; // }
    return buf.subarray(0, o);
  }
}

/**
 * gzip on the libuv pool through one long-lived deflate state, reset after each body: a fresh
 * zlib.gzip() per batch would allocate and initialize ~400 KB of zlib state every time.
 * Level 1: batches of similar events compress almost as well as at level 6 for a third of the CPU.
 */
class Gzipper {
  private stream: (Gzip & ZlibReset) | undefined; // Gzip has reset() at run time; the typings omit it

  private pending: ((err: Error) => void) | undefined;

  /** One body at a time (the send loop never overlaps two). */
  compress(input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const s = (this.stream ??= createGzip({ level: 1, memLevel: 9, chunkSize: 64 * 1024 }) as Gzip & ZlibReset);
      const chunks: Buffer[] = [];
      let settled = false;
      const onData = (chunk: Buffer): void => void chunks.push(chunk);
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        this.pending = undefined;
        s.off('data', onData);
        if (this.stream === s) this.stream = undefined;
        s.destroy();
        reject(err);
      };
      this.pending = fail;
      s.on('data', onData);
      s.once('error', fail);
      s.write(input);
      s.flush(zlibConstants.Z_FINISH, () => {
        if (settled) return;
        settled = true;
        this.pending = undefined;
        s.off('data', onData);
        s.off('error', fail);
        try {
          s.reset();
        } catch {
          this.stream = undefined; // a new one next time
        }
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      });
    });
  }

  close(): void {
    this.pending?.(new Error('telemetry client closed'));
    this.stream?.destroy();
    this.stream = undefined;
  }
}

/** Seconds or an HTTP date, at most 5 minutes; undefined when absent or unreadable. */
function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const s = v.trim();
  let ms: number;
  if (/^\d+$/.test(s)) ms = Number(s) * 1000;
  else {
    const at = Date.parse(s);
    if (Number.isNaN(at)) return undefined;
    ms = at - Date.now();
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}

// A loop, not /\/+$/: that expression retries from every '/' of a run that does not end the
// text, quadratic in the run's length.
function withoutTrailingSlashes(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 0x2f) e--;
  return s.slice(0, e);
}

function printable(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]+/g, ' ');
}

const warnedKinds = new Set<string>();
function warnOnce(err: Error): void {
  const kind = err instanceof TelemetryError ? `${err.kind}:${err.status ?? ''}` : err.name;
  if (warnedKinds.has(kind)) return;
  warnedKinds.add(kind);
  console.warn(`[shield] telemetry: ${err.message} (further failures of this kind are not logged)`);
}

/**
 * Sends decision events to the control plane. enqueue() is all the request path calls: it only
 * pushes onto a bounded queue. Timers are unref()ed and sockets too (except while a flush() or
 * close() is awaited), so the client never keeps a process alive.
 */
export class TelemetryClient {
  /** Random per process: this SDK instance in the Fleet view. */
  readonly instanceId: string = randomUUID();

  private readonly url: URL;
  private readonly workspaceId: string;
  private readonly key: string;
  private readonly appId: string;
  private readonly queueSize: number;
  private readonly batchSize: number;
  private readonly sampleAllow: number;
  private readonly useGzip: boolean;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly backoffBaseMs: number;
  private readonly backoffCapMs: number;
  private readonly onError: (err: Error) => void;
  private readonly requestOptions: RequestOptions;
  private readonly send: typeof httpRequest;
  private readonly agent: HttpAgent;
  private readonly target: string;

  private readonly encoder = new EventEncoder();
  private readonly gzipper = new Gzipper();
  private readonly denies: Ring<DecisionEvent>;
  private readonly allows: Ring<DecisionEvent>;
  private dropped = 0;
  private sent = 0;
  private failedBatches = 0;
  private retries = 0;

  private closed = false; // enqueue() ignores events
  private dead = false; // nothing more is sent
  private running = false; // the send loop is active (at most one request in flight)
  private kickPending = false;
  private heartbeatDue = false;
  /** Events to send now regardless of batchSize (set by the interval, flush() and close()). */
  private budget = 0;
  private waiters: Waiter[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private sleepTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private req: ClientRequest | undefined;
  private socket: Socket | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: TelemetryOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('telemetry options must be an object');
    this.url = validateEndpoint(options.endpoint);
    if (typeof options.workspaceId !== 'string' || !UUID_RE.test(options.workspaceId)) {
      throw new TypeError('SHIELD_WORKSPACE_ID must be the workspace UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)');
    }
    if (typeof options.key !== 'string' || options.key === '' || BAD_HEADER_CHAR_RE.test(options.key)) {
      throw new TypeError('SHIELD_KEY must be a non-empty API key without CR, LF or other control characters');
    }
    if (typeof options.appId !== 'string' || options.appId.length < 1 || options.appId.length > 128) {
      throw new TypeError('appId (SHIELD_APP_ID) must be a string of 1 to 128 characters');
    }
    this.workspaceId = options.workspaceId;
    this.key = options.key;
    this.appId = options.appId;
    this.queueSize = checkInt('queueSize', options.queueSize, 10_000, 1, 10_000_000);
    this.batchSize = checkInt('batchSize', options.batchSize, 500, 1, MAX_BATCH);
    const flushIntervalMs = checkInt('flushIntervalMs', options.flushIntervalMs, 2000, 1, MAX_TIMER_MS);
    const heartbeatMs = checkInt('heartbeatMs', options.heartbeatMs, 60_000, 1, MAX_TIMER_MS);
    this.maxRetries = checkInt('maxRetries', options.maxRetries, 6, 0, 1000);
    this.timeoutMs = checkInt('timeoutMs', options.timeoutMs, 10_000, 1, MAX_TIMER_MS);
    this.backoffBaseMs = checkInt('backoffBaseMs', options.backoffBaseMs, 500, 0, MAX_TIMER_MS);
    this.backoffCapMs = checkInt('backoffCapMs', options.backoffCapMs, 30_000, 0, MAX_TIMER_MS);
    const sample = options.sampleAllow ?? 1;
    if (typeof sample !== 'number' || !(sample >= 0 && sample <= 1)) {
      throw new TypeError(`telemetry option sampleAllow must be a number from 0 to 1; got ${String(sample)}`);
    }
    this.sampleAllow = sample;
    this.useGzip = options.gzip ?? true;
    if (options.onError !== undefined && typeof options.onError !== 'function') {
      throw new TypeError('telemetry option onError must be a function');
    }
    this.onError = options.onError ?? warnOnce;

    this.denies = new Ring(this.queueSize);
    this.allows = new Ring(this.queueSize);

    const https = this.url.protocol === 'https:';
    this.send = https ? (httpsRequest as typeof httpRequest) : httpRequest;
    this.agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 1 }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
    const base = withoutTrailingSlashes(this.url.pathname);
    const path = `${base}/v1/events${this.url.search}`;
    this.target = `${this.url.protocol}//${this.url.host}${base}/v1/events`;
    this.requestOptions = {
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: this.url.port === '' ? undefined : Number(this.url.port),
      path,
      method: 'POST',
      agent: this.agent,
    };

    this.flushTimer = setInterval(() => this.onInterval(), flushIntervalMs);
    this.flushTimer.unref();
    this.heartbeatTimer = setTimeout(() => this.onHeartbeatTimer(), heartbeatMs);
    this.heartbeatTimer.unref();
  }

  /** Queues one event. O(1); never throws, never waits, does no I/O. Ignored after close(). */
  enqueue(event: DecisionEvent): void {
    if (this.closed) return;
    try {
      const deny = event.decision === 'deny';
      if (!deny && this.sampleAllow < 1 && event.vector === 'none' && Math.random() >= this.sampleAllow) return;
      const denies = this.denies;
      const allows = this.allows;
      if (denies.length + allows.length >= this.queueSize) {
        // Full: allows make room first. An allow never displaces a deny; it is dropped itself.
        this.dropped++;
        if (allows.length > 0) allows.shift();
        else if (!deny) return;
        else denies.shift();
      }
      (deny ? denies : allows).push(event);
      if (denies.length + allows.length >= this.batchSize && !this.running && !this.kickPending) {
        this.kickPending = true;
        setImmediate(() => {
          this.kickPending = false;
          void this.pump();
        });
      }
    } catch (err) {
      this.report(new TelemetryError('internal', `enqueue failed: ${(err as Error)?.message}`, undefined, err));
    }
  }

  /** Sends every event queued now (and waits for a batch in flight). Resolves when done or given up; never rejects. */
  flush(): Promise<void> {
    if (this.dead) return Promise.resolve();
    const size = this.denies.length + this.allows.length;
    if (size === 0 && !this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiters.push({ remaining: size, resolve });
      this.budget = Math.max(this.budget, size);
      this.holdProcess(true);
      void this.pump();
    });
  }

  /**
   * Stops the timers, ignores further events and sends what is queued, waiting at most
   * timeoutMs; whatever is still unsent then is reported to onError and discarded. Never rejects.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    clearInterval(this.flushTimer);
    clearTimeout(this.heartbeatTimer);
    this.flushTimer = undefined;
    this.heartbeatTimer = undefined;
    this.closing = new Promise<void>((resolve) => {
      // Ref'd on purpose: it bounds how long an awaited close() may keep the process alive.
      const limit = setTimeout(() => finish(false), this.timeoutMs);
      const finish = (delivered: boolean): void => {
        clearTimeout(limit);
        this.shutdown(delivered);
        resolve();
      };
      void this.flush().then(() => finish(true));
    });
    return this.closing;
  }

  /** Counters since the client started. */
  stats(): TelemetryStats {
    return {
      queued: this.denies.length + this.allows.length,
      dropped: this.dropped,
      sent: this.sent,
      failedBatches: this.failedBatches,
      retries: this.retries,
    };
  }

  private shutdown(delivered: boolean): void {
    if (this.dead) return;
    this.dead = true;
    const unsent = this.denies.length + this.allows.length;
    const inFlight = this.running;
    this.wake?.();
    this.req?.destroy();
    this.agent.destroy();
    this.gzipper.close();
    this.denies.clear();
    this.allows.clear();
    this.releaseWaiters();
    if (!delivered && (unsent > 0 || inFlight)) {
      this.report(
        new TelemetryError(
          'close',
          `close(): ${unsent} queued event(s)${inFlight ? ' and a batch in flight' : ''} not delivered within ${this.timeoutMs} ms to ${this.target}`,
        ),
      );
    }
  }

  private onInterval(): void {
    const size = this.denies.length + this.allows.length;
    if (size === 0 || this.dead) return;
    this.budget = Math.max(this.budget, size);
    void this.pump();
  }

  private onHeartbeatTimer(): void {
    if (this.dead || this.closed) return;
    // Sending or about to send events already tells the control plane this instance is alive.
    if (!this.running && this.denies.length + this.allows.length === 0) {
      this.heartbeatDue = true;
      void this.pump();
    }
    this.heartbeatTimer?.refresh();
  }

  /** The send loop: one request at a time, batches while there is enough to send, then a due heartbeat. */
  private async pump(): Promise<void> {
    if (this.running || this.dead) return;
    this.running = true;
    try {
      while (!this.dead) {
        const size = this.denies.length + this.allows.length;
        if (size > 0 && (size >= this.batchSize || this.budget > 0)) {
          const batch = this.take();
          this.budget -= batch.length;
          for (const w of this.waiters) w.remaining -= batch.length;
          await this.sendEvents(batch);
          this.settleWaiters();
        } else if (this.heartbeatDue) {
          this.heartbeatDue = false;
          if (size === 0 && !this.closed) await this.sendHeartbeat();
        } else break;
      }
    } catch (err) {
      this.report(new TelemetryError('internal', `send loop failed: ${(err as Error)?.message}`, undefined, err));
    } finally {
      this.running = false;
      this.budget = 0;
      this.releaseWaiters();
    }
  }

  /** Up to batchSize events, denies first, each queue oldest first. */
  private take(): DecisionEvent[] {
    const n = Math.min(this.batchSize, this.denies.length + this.allows.length);
    const batch = new Array<DecisionEvent>(n);
    for (let i = 0; i < n; i++) {
      batch[i] = (this.denies.length > 0 ? this.denies.shift() : this.allows.shift()) as DecisionEvent;
    }
    return batch;
  }

  private envelope(kind: TelemetryEnvelope['kind'], events: DecisionEvent[]): TelemetryEnvelope {
    return {
      sdk: SDK_NAME,
      sdk_version: SDK_VERSION,
      app_id: this.appId,
      workspace_id: this.workspaceId,
      instance_id: this.instanceId,
      kind,
      sent_at: new Date().toISOString(),
      dropped: this.dropped,
      events,
    };
  }

  private async encode(envelope: TelemetryEnvelope): Promise<Buffer> {
    const json = this.encoder.envelope(envelope);
    return this.useGzip ? this.gzipper.compress(json) : json;
  }

  private async sendEvents(batch: DecisionEvent[]): Promise<void> {
    let body: Buffer;
    try {
      body = await this.encode(this.envelope('events', batch));
    } catch (err) {
      this.failedBatches++;
      this.report(new TelemetryError('encode', `a batch of ${batch.length} event(s) could not be encoded: ${(err as Error)?.message}`, undefined, err));
      return;
    }
    // One key per batch, the same on each retry, so the control plane can drop duplicates.
    const idempotencyKey = randomUUID();
    for (let attempt = 0; ; attempt++) {
      const r = await this.post(body, idempotencyKey);
      if (this.dead) return;
      if (r.status !== undefined && r.status >= 200 && r.status < 300) {
        this.sent += batch.length;
        this.heartbeatTimer?.refresh();
        return;
      }
      const retryable = r.status === undefined || r.status >= 500 || r.status === 429 || r.status === 408;
      if (!retryable) {
        this.failedBatches++;
        this.report(
          new TelemetryError(
            'rejected',
            `${this.target} refused a batch of ${batch.length} event(s) with HTTP ${r.status}: ${printable(r.body ?? '').slice(0, 200)}`,
            r.status,
          ),
        );
        return;
      }
      if (attempt >= this.maxRetries) {
        this.failedBatches++;
        const why = r.error ? r.error.message : `HTTP ${r.status}`;
        this.report(
          new TelemetryError('gave-up', `a batch of ${batch.length} event(s) was dropped after ${attempt + 1} attempt(s) to ${this.target}: ${why}`, r.status, r.error),
        );
        return;
      }
      this.retries++;
      const honoured = r.status === 429 || r.status === 503 ? r.retryAfterMs : undefined;
      await this.sleep(honoured ?? this.backoff(attempt));
      if (this.dead) return;
    }
  }

  private async sendHeartbeat(): Promise<void> {
    let body: Buffer;
    try {
      body = await this.encode(this.envelope('heartbeat', []));
    } catch (err) {
      this.report(new TelemetryError('encode', `heartbeat could not be encoded: ${(err as Error)?.message}`, undefined, err));
      return;
    }
    // Not retried: the next one follows heartbeatMs later.
    const r = await this.post(body, randomUUID());
    if (this.dead) return;
    if (r.status !== undefined && r.status >= 200 && r.status < 300) return;
    const why = r.error ? r.error.message : `HTTP ${r.status}: ${printable(r.body ?? '').slice(0, 200)}`;
    this.report(new TelemetryError('heartbeat', `heartbeat to ${this.target} failed: ${why}`, r.status, r.error));
  }

  /** Full jitter: uniform in [0, min(cap, base * 2^attempt)]. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.backoffCapMs, this.backoffBaseMs * 2 ** Math.min(attempt, 30));
    return Math.floor(Math.random() * (ceiling + 1));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.sleepTimer = undefined;
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (this.waiters.length === 0) timer.unref();
      this.sleepTimer = timer;
      this.wake = done;
    });
  }

  /** One POST; resolves with the status or the network error, never rejects. */
  private post(body: Buffer, idempotencyKey: string): Promise<PostResult> {
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      const finish = (r: PostResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        this.req = undefined;
        this.socket = undefined;
        resolve(r);
      };
      const headers: Record<string, string | number> = {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        Authorization: `Bearer ${this.key}`,
        'Idempotency-Key': idempotencyKey,
        'User-Agent': USER_AGENT,
      };
      if (this.useGzip) headers['Content-Encoding'] = 'gzip';
      let req: ClientRequest;
      try {
        req = this.send({ ...this.requestOptions, headers });
      } catch (err) {
        finish({ error: err as Error });
        return;
      }
      this.req = req;
      deadline = setTimeout(() => req.destroy(new Error(`no complete response within ${this.timeoutMs} ms`)), this.timeoutMs);
      deadline.unref();
      req.on('socket', (socket: Socket) => {
        this.socket = socket;
        if (this.waiters.length > 0) socket.ref();
        else socket.unref();
      });
      req.on('error', (err) => finish({ error: err }));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < 200) text += chunk;
        });
        res.on('error', (err) => finish({ error: err }));
        res.on('end', () =>
          finish({ status, body: text.slice(0, 200), retryAfterMs: parseRetryAfter(res.headers['retry-after']) }),
        );
        res.on('close', () => {
          if (!res.complete) finish({ error: new Error('connection closed before the response was complete') });
        });
      });
      req.end(body);
    });
  }

  /** While someone awaits flush()/close(), the socket and backoff timer keep the process alive. */
  private holdProcess(hold: boolean): void {
    if (hold) {
      this.socket?.ref();
      this.sleepTimer?.ref();
    } else {
      this.socket?.unref();
      this.sleepTimer?.unref();
    }
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const pending: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.remaining <= 0) w.resolve();
      else pending.push(w);
    }
    this.waiters = pending;
    if (pending.length === 0) this.holdProcess(false);
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) w.resolve();
    this.holdProcess(false);
  }

  private report(err: Error): void {
    try {
      this.onError(err);
    } catch {
      // A throwing onError must not break the client.
    }
  }
}

/**
 * The client when SHIELD_ENDPOINT, SHIELD_WORKSPACE_ID and SHIELD_KEY are all set (non-empty),
 * else null, and then nothing at all is created. Throws a TypeError naming the variable when one
 * is set but invalid.
 */
export function telemetryFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<TelemetryOptions> = {},
): TelemetryClient | null {
  const endpoint = env.SHIELD_ENDPOINT?.trim();
  const workspaceId = env.SHIELD_WORKSPACE_ID?.trim();
  const key = env.SHIELD_KEY?.trim();
  if (!endpoint || !workspaceId || !key) return null;
  return new TelemetryClient({
    ...overrides,
    endpoint: overrides.endpoint ?? endpoint,
    workspaceId: overrides.workspaceId ?? workspaceId,
    key: overrides.key ?? key,
    appId: overrides.appId ?? (env.SHIELD_APP_ID?.trim() || 'default'),
  });
}
