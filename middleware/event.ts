// The decision event: one per request decision, handed to `onDecision` and, when telemetry is
// on, queued for the control plane. Its JSON Schema is schema/event.schema.json (the control
// plane validates with it); the two must change together, and a test checks they agree.

import { createRequire } from 'node:module';

/** The SDK identifier and version carried by every event and telemetry envelope. */
export const SDK_NAME = '@shield/node';
export const SDK_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** The workspace id of an event when no workspace is configured (local-only mode): the nil UUID. */
export const LOCAL_WORKSPACE_ID = '00000000-0000-0000-0000-000000000000';

/** Attack classes (the `vector` field), and `none` for a clean allow. */
export const VECTORS = Object.freeze([
  'xss', 'sql', 'nosql', 'command', 'path', 'ssti', 'xxe', 'ssrf', 'ldap', 'jsonp', 'header', 'prototype',
  'redirect', 'csrf', 'hpp', 'prompt_injection', 'deserialization', 'graphql', 'rate_limit', 'bot',
  'correlation', 'token_budget', 'decode', 'limits', 'engine', 'none',
] as const);
export type Vector = (typeof VECTORS)[number];

/**
 * What happened to the request: `blocked` (refused), `sanitized` (hostile values rewritten
 * before the handler ran), `observed` (findings, but the handler saw the request untouched:
 * observe mode) or `passed` (nothing found).
 */
export type Action = 'blocked' | 'sanitized' | 'observed' | 'passed';

/** One decision. `decision` is `deny` when the request was blocked or a hostile value neutralized. */
export interface DecisionEvent {
  workspace_id: string;
  app_id: string;
  sdk: string;
  sdk_version: string;
  decision: 'allow' | 'deny';
  /** The most severe finding's attack class, or `none`. */
  vector: string;
  /** The most severe finding's rule id (`patterns.<vector>.<rule-name>`), or `none`. */
  rule: string;
  /** At most 80 characters of the offending (decoded) text; empty for a clean request. */
  matched: string;
  /** The route template (`/users/:id`), or the path with id-like segments as `:param`; never a query string. */
  route: string;
  method: string;
  /** HMAC-SHA-256 (hex) of the client address (IPv6 by its /64). */
  ip_hash: string;
  /** ISO 8601 UTC. */
  timestamp: string;
  action: Action;
  /** The client address, only with `raw_ip: true`. */
  ip?: string;
}

/** What a telemetry batch travels in (schema/envelope.schema.json). */
export interface TelemetryEnvelope {
  sdk: string;
  sdk_version: string;
  app_id: string;
  workspace_id: string;
  /** Random per process: one SDK instance in the Fleet view. */
  instance_id: string;
  /** `events` carries events; `heartbeat` (no events) says an idle instance is alive. */
  kind: 'events' | 'heartbeat';
  sent_at: string;
  /** Events this instance has dropped (queue full) since it started. */
  dropped: number;
  events: DecisionEvent[];
}

// Date#toISOString costs about 0.36 us a call; an event needs one. The first 20 characters
// (`2026-11-28T19:45:07.`) change once a second, so they are kept and only the milliseconds
// are written (about 0.05 us). Years outside 0..9999 have another form: toISOString there.
let isoSecond = Number.NaN;
let isoPrefix = '';

/** `new Date(ms).toISOString()`, for the current time by default, from a per-second cache. */
export function isoTimestamp(ms: number = Date.now()): string {
  ms = Math.trunc(ms); // what a Date keeps of a fractional time
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    const full = new Date(ms).toISOString(); // throws RangeError on an invalid time, as toISOString does
    if (full.length !== 24) return full;
    isoSecond = second;
    isoPrefix = full.slice(0, 20);
  }
  const milli = ms - second * 1000;
  return isoPrefix + (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z';
}
