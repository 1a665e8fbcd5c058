// The telemetry client: queues decision events and sends them in batches to the control plane
// (`POST {SHIELD_ENDPOINT}/v1/events`, body schema/envelope.schema.json). Opt-in only: without
// SHIELD_ENDPOINT, SHIELD_WORKSPACE_ID and SHIELD_KEY, telemetryFromEnv() returns null and no
// socket or timer is ever created. The request path only pushes onto a bounded queue; encoding,
// compression and I/O happen later, one request at a time, and every failure goes to onError.

import { request as httpRequest, Agent as HttpAgent, type ClientRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { brotliCompress, createGzip, constants as zlibConstants, type Gzip, type ZlibReset } from 'node:zlib';
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
  /** Events per request, 1 to 1000 (default 1000); a full batch is sent without waiting for the interval. */
  batchSize?: number;
  /** Queued events are sent at least this often (default 2000 ms). */
  flushIntervalMs?: number;
  /** An instance that sent nothing for this long sends a heartbeat envelope (default 60,000 ms). */
  heartbeatMs?: number;
  /** Fraction (0 to 1) of clean allows (vector `none`) kept (default 1: all). Denies are always kept. */
  sampleAllow?: number;
  /**
   * How request bodies are compressed (default `'br'`): `'br'` is brotli at quality 1, `'gzip'` is
   * gzip at level 1, `'none'` sends plain JSON. brotli costs about a quarter of gzip's CPU for a
   * smaller body. A control plane that answers 415 to a brotli body gets gzip from then on.
   */
  compression?: TelemetryCompression;
  /** Older spelling: `gzip: true` is `compression: 'gzip'`, `gzip: false` is `compression: 'none'`. Give one or the other. */
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
  /** The Content-Encoding of the next body: `br`, `gzip` (asked for, or after a 415 to brotli) or `identity`. */
  encoding: 'br' | 'gzip' | 'identity';
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

const COMPRESSIONS: readonly TelemetryCompression[] = ['br', 'gzip', 'none'];

function checkCompression(compression: unknown, gzip: unknown): TelemetryCompression {
  if (gzip !== undefined && typeof gzip !== 'boolean') {
    throw new TypeError(`telemetry option gzip must be true or false; got ${String(gzip)}`);
  }
  if (compression === undefined) return gzip === undefined ? 'br' : gzip ? 'gzip' : 'none';
  if (!COMPRESSIONS.includes(compression as TelemetryCompression)) {
    throw new TypeError(`telemetry option compression must be 'br', 'gzip' or 'none'; got ${typeof compression === 'string' ? JSON.stringify(compression) : typeof compression}`);
  }
  if (gzip !== undefined) {
    throw new TypeError('telemetry options compression and gzip both given: give compression only (gzip is its older spelling)');
  }
  return compression as TelemetryCompression;
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

// JSON encoding, straight into a Buffer, piece by piece. Telemetry's CPU is mostly encoding,
// compression and HTTP, and this costs about half of building each event's JSON as one string and
// writing that: a field with few distinct values (decision, vector, rule, route, method, action)
// is cached as the bytes of its whole `,"key":"value"` and copied, the four per-instance fields
// are one cached prefix, ip_hash values are cached the same way (a client makes many requests),
// and other printable ASCII (nearly every matched text and timestamp) is checked by one regular
// expression and written byte for byte. It also sends exactly the schema's fields: any other
// property an event object carries stays in the process. The bytes parse to the same value as
// JSON.stringify of those fields would, except that a field JSON.stringify would leave out
// (undefined, a function, a symbol) or refuse (a BigInt, a cycle) is written as null (jsonOf).
const SPECIAL_RE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/; // anything but printable ASCII other than " and \
const CACHE_LIMIT = 1024;
const HASH_CACHE_LIMIT = 4096;
const NO_PREFIX = Symbol('no prefix yet');
/** Bytes reserved per event before it is written; a longer event makes room as it goes. */
const EVENT_ROOM = 480;

/** The bytes of `,"key":` (or `{"key":` for the first field). */
function keyBytes(key: string, first = false): Buffer {
  return Buffer.from(`${first ? '{' : ','}"${key}":`, 'latin1');
}

const K_DECISION = keyBytes('decision');
const K_VECTOR = keyBytes('vector');
const K_RULE = keyBytes('rule');
const K_MATCHED = keyBytes('matched');
const K_ROUTE = keyBytes('route');
const K_METHOD = keyBytes('method');
const K_IP_HASH = keyBytes('ip_hash');
const K_TIMESTAMP = keyBytes('timestamp');
const K_ACTION = keyBytes('action');
const K_IP = keyBytes('ip');
const EMPTY_MATCHED = Buffer.from(',"matched":""', 'latin1');

/**
 * The JSON of any value: JSON.stringify's, except that what it cannot write (undefined, a
 * function, a symbol: it returns undefined) or refuses (a BigInt, a cycle: it throws) is null.
 * A malformed field then gets that one event refused by the schema, not its whole batch dropped.
 */
function jsonOf(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return 'null';
  }
}

/** A field's cached `,"key":<JSON value>` bytes, by value (strings only; cleared when full). */
class FieldCache {
  private readonly map = new Map<string, Buffer>();
  constructor(
    private readonly key: Buffer,
    private readonly limit: number,
  ) {}
  get(v: unknown): Buffer {
    if (typeof v === 'string') {
      let b = this.map.get(v);
      if (b === undefined) {
        if (v.length > 256) return this.bytes(v, false);
        b = this.bytes(v, true);
        if (this.map.size >= this.limit) this.map.clear();
        this.map.set(v, b);
      }
      return b;
    }
    // not a string: a bug upstream; let the schema refuse it, but keep the JSON valid
    return this.bytes(v, false);
  }
  private bytes(v: unknown, kept: boolean): Buffer {
    const json = jsonOf(v);
    const n = this.key.length + Buffer.byteLength(json, 'utf8');
    // a kept entry gets memory of its own: allocUnsafe cuts small buffers from Node's shared 8 KB
    // pool, and a cached entry would keep its whole 8 KB block alive; a passing one comes from
    // the pool (allocUnsafeSlow costs about 0.5 us against 0.1)
    const b = kept ? Buffer.allocUnsafeSlow(n) : Buffer.allocUnsafe(n);
    this.key.copy(b, 0);
    b.write(json, this.key.length, 'utf8');
    return b;
  }
}

class EventEncoder {
  private readonly decision = new FieldCache(K_DECISION, CACHE_LIMIT);
  private readonly vector = new FieldCache(K_VECTOR, CACHE_LIMIT);
  private readonly rule = new FieldCache(K_RULE, CACHE_LIMIT);
  private readonly route = new FieldCache(K_ROUTE, CACHE_LIMIT);
  private readonly method = new FieldCache(K_METHOD, CACHE_LIMIT);
  private readonly action = new FieldCache(K_ACTION, CACHE_LIMIT);
  private readonly ipHash = new FieldCache(K_IP_HASH, HASH_CACHE_LIMIT);
  private prefixKey: unknown[] = [NO_PREFIX]; // matches no event, even one without these fields
  private prefix: Buffer = Buffer.alloc(0);
  private buf: Buffer = Buffer.alloc(0);
  private o = 0;

  /** Makes room for n more bytes. */
  private room(n: number): void {
    if (this.o + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.o + n));
    this.buf.copy(next, 0, 0, this.o);
    this.buf = next;
  }

  private put(b: Buffer): void {
    this.room(b.length);
    this.buf.set(b, this.o);
    this.o += b.length;
  }

  /** `,"key":` and the JSON of v: printable ASCII byte for byte, anything else through JSON.stringify. */
  private text(key: Buffer, v: unknown): void {
    this.put(key);
    if (typeof v === 'string' && !SPECIAL_RE.test(v)) {
      this.room(v.length + 2);
      const buf = this.buf;
      buf[this.o++] = 0x22; // "
      this.o += buf.write(v, this.o, 'latin1');
      buf[this.o++] = 0x22;
      return;
    }
    const json = jsonOf(v);
    this.room(Buffer.byteLength(json, 'utf8'));
    this.o += this.buf.write(json, this.o, 'utf8');
  }

  private event(e: DecisionEvent): void {
    const k = this.prefixKey;
    if (e.workspace_id !== k[0] || e.app_id !== k[1] || e.sdk !== k[2] || e.sdk_version !== k[3]) {
      const id = e.workspace_id;
      const app = e.app_id;
      const sdk = e.sdk;
      const version = e.sdk_version;
      this.prefix = Buffer.from(
        `{"workspace_id":${jsonOf(id)},"app_id":${jsonOf(app)},"sdk":${jsonOf(sdk)},"sdk_version":${jsonOf(version)}`,
        'utf8',
      );
      // kept only for strings: an object compared by identity could change under the cache
      const strings = typeof id === 'string' && typeof app === 'string' && typeof sdk === 'string' && typeof version === 'string';
      this.prefixKey = strings ? [id, app, sdk, version] : [NO_PREFIX];
    }
    this.put(this.prefix);
    this.put(this.decision.get(e.decision));
    this.put(this.vector.get(e.vector));
    this.put(this.rule.get(e.rule));
    if (e.matched === '') this.put(EMPTY_MATCHED);
    else this.text(K_MATCHED, e.matched);
    this.put(this.route.get(e.route));
    this.put(this.method.get(e.method));
    const h = e.ip_hash;
    if (typeof h === 'string' && h.length === 64) this.put(this.ipHash.get(h));
    else this.text(K_IP_HASH, h);
    this.text(K_TIMESTAMP, e.timestamp);
    if (e.action !== undefined) this.put(this.action.get(e.action));
    if (e.ip !== undefined) this.text(K_IP, e.ip);
    this.room(1);
    this.buf[this.o++] = 0x7d; // }
  }

  envelope(env: TelemetryEnvelope): Buffer {
    const head = `{"sdk":${JSON.stringify(env.sdk)},"sdk_version":${JSON.stringify(env.sdk_version)},"app_id":${JSON.stringify(env.app_id)},"workspace_id":${JSON.stringify(env.workspace_id)},"instance_id":"${env.instance_id}","kind":"${env.kind}","sent_at":"${env.sent_at}","dropped":${env.dropped},"events":[`;
    const events = env.events;
    // A new buffer per envelope: the body is held until the control plane acknowledges it.
    this.buf = Buffer.allocUnsafe(head.length * 3 + events.length * EVENT_ROOM + 16);
    this.o = this.buf.write(head, 0, 'utf8');
    for (let i = 0; i < events.length; i++) {
      if (i > 0) {
        this.room(1);
        this.buf[this.o++] = 0x2c; // ,
      }
      this.event(events[i]);
    }
    this.room(2);
    this.buf[this.o++] = 0x5d; // ]
    this.buf[this.o++] = 0x7d; // }
    const out = this.buf.subarray(0, this.o);
    this.buf = Buffer.alloc(0);
    return out;
  }
}

/** How request bodies are encoded: brotli (the default), gzip, or not at all. */
export type TelemetryCompression = 'br' | 'gzip' | 'none';

const BROTLI_QUALITY = 1;
const BROTLI_WINDOW_BITS = 20;

/**
 * Compression on the libuv pool, one body at a time (the send loop never overlaps two).
 *
 * brotli at quality 1 is the default: on batches of decision events it costs about a quarter of
 * gzip's CPU at level 1 and gives smaller bodies, because gzip spends most of its time on the
 * one field it cannot shorten, the 64 random hex digits of ip_hash. Each body gets a fresh
 * encoder (its set-up is about 20 µs, under 0.1 µs per event of a full batch).
 *
 * gzip goes through one long-lived deflate state, reset after each body: a fresh zlib.gzip() per
 * batch would allocate and initialize ~400 KB of zlib state every time. Level 1: batches of
 * similar events compress almost as well as at level 6 for a third of the CPU.
 */
class Compressor {
  private stream: (Gzip & ZlibReset) | undefined; // Gzip has reset() at run time; the typings omit it

  private pending: ((err: Error) => void) | undefined;

  compress(input: Buffer, encoding: 'br' | 'gzip'): Promise<Buffer> {
    return encoding === 'br' ? this.brotli(input) : this.gzip(input);
  }

  private brotli(input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        this.pending = undefined;
        reject(err);
      };
      this.pending = fail;
      const params = {
        [zlibConstants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: input.length,
        // a 1 MiB window (the default is 4): the control plane's decoder holds one per body it
        // inflates; a batch of 1,000 events compresses as well (28 bytes per event either way)
        [zlibConstants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      };
      brotliCompress(input, { params }, (err, out) => {
        if (err) return fail(err);
        if (settled) return;
        settled = true;
        this.pending = undefined;
        resolve(out);
      });
    });
  }

  private gzip(input: Buffer): Promise<Buffer> {
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
  private encoding: TelemetryCompression;
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
  private readonly compressor = new Compressor();
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
    this.batchSize = checkInt('batchSize', options.batchSize, MAX_BATCH, 1, MAX_BATCH);
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
    this.encoding = checkCompression(options.compression, options.gzip);
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
      encoding: this.encoding === 'none' ? 'identity' : this.encoding,
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
    this.compressor.close();
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

  private compress(json: Buffer, encoding: TelemetryCompression): Promise<Buffer> | Buffer {
    return encoding === 'none' ? json : this.compressor.compress(json, encoding);
  }

  /**
   * A 415 to a brotli body: the control plane does not take brotli (one older than this SDK, or
   * a proxy in front of it), so gzip from now on. True when the body should go again as gzip.
   */
  private brotliRefused(r: PostResult, encoding: TelemetryCompression): boolean {
    if (r.status !== 415 || encoding !== 'br') return false;
    if (this.encoding === 'br') this.encoding = 'gzip';
    return true;
  }

  private encodeFailed(batch: DecisionEvent[], err: unknown): void {
    if (this.dead) return; // close() gave up on this batch and has reported it
    this.failedBatches++;
    this.report(new TelemetryError('encode', `a batch of ${batch.length} event(s) could not be encoded: ${(err as Error)?.message}`, undefined, err));
  }

  private async sendEvents(batch: DecisionEvent[]): Promise<void> {
    let json: Buffer | undefined;
    let body: Buffer;
    let encoding = this.encoding;
    try {
      json = this.encoder.envelope(this.envelope('events', batch));
      body = await this.compress(json, encoding);
    } catch (err) {
      this.encodeFailed(batch, err);
      return;
    }
    if (encoding !== 'br') json = undefined; // kept only for a fallback to gzip
    // One key per batch, the same on each retry, so the control plane can drop duplicates. The
    // same after a fallback to gzip too: an earlier attempt whose answer was lost may have been
    // stored, and the control plane compares the inflated bytes, which are the same.
    const idempotencyKey = randomUUID();
    for (let attempt = 0; ; attempt++) {
      const r = await this.post(body, encoding, idempotencyKey);
      if (this.dead) return;
      if (json !== undefined && this.brotliRefused(r, encoding)) {
        // Sent again at once as gzip, not counted as a retry.
        encoding = 'gzip';
        try {
          body = await this.compress(json, encoding);
        } catch (err) {
          this.encodeFailed(batch, err);
          return;
        }
        json = undefined;
        if (this.dead) return;
        attempt--;
        continue;
      }
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
    let r: PostResult;
    try {
      const json = this.encoder.envelope(this.envelope('heartbeat', []));
      let encoding = this.encoding;
      // Not retried: the next one follows heartbeatMs later. Only a 415 to brotli sends it again, as gzip.
      const key = randomUUID();
      r = await this.post(await this.compress(json, encoding), encoding, key);
      if (this.dead) return;
      if (this.brotliRefused(r, encoding)) {
        encoding = 'gzip';
        r = await this.post(await this.compress(json, encoding), encoding, key);
      }
    } catch (err) {
      if (this.dead) return; // closed meanwhile: nothing to report
      this.report(new TelemetryError('encode', `heartbeat could not be encoded: ${(err as Error)?.message}`, undefined, err));
      return;
    }
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
  private post(body: Buffer, encoding: TelemetryCompression, idempotencyKey: string): Promise<PostResult> {
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
      if (encoding !== 'none') headers['Content-Encoding'] = encoding;
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
