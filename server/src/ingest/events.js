// The whole of POST /v1/events after authentication: parse, check (envelope, workspace,
// each event), store.
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { parseJson, tooLarge } from '../http/body.js';
import { envelopeErrors, eventErrors, MAX_EVENTS } from './validate.js';
import { DAY_MS } from '../time.js';


/**
 * @param {any} store a store (store.js)
 * @param {Buffer} bytes the inflated body
 * @param {{ workspaceId: string, retentionDays: number, idempotencyKey: string | null, maxClockSkewMs: number, now?: number }} o
 * @returns {Promise<{ body: { accepted: number, rejected: { index: number, errors: string[] }[] }, replayed: boolean }>}
 */
export async function ingestEventsBody(store, bytes, o) {
  const body = parseJson(bytes);
  const receivedAt = o.now ?? Date.now();
  let events;
  let envelope = null;
  if (Array.isArray(body)) events = body;
  else if (body !== null && typeof body === 'object') {
    if (Array.isArray(body.events) && body.events.length > MAX_EVENTS) throw tooLarge(`a batch holds at most ${MAX_EVENTS} events (got ${body.events.length})`);
    const problems = envelopeErrors(body);
    if (problems.length > 0) throw new ApiError(400, 'invalid_envelope', problems[0].message, { field: problems[0].field, details: problems.map((p) => p.message) });
    events = body.events;
    envelope = { sdk: body.sdk, sdk_version: body.sdk_version, app_id: body.app_id, instance_id: body.instance_id.toLowerCase(), dropped: body.dropped };
    if (body.workspace_id.toLowerCase() !== o.workspaceId) {
      throw new ApiError(403, 'forbidden', 'workspace_id of the envelope is not the workspace of this API key; nothing was stored', { field: 'workspace_id' });
    }
  } else throw new ApiError(400, 'invalid_body', 'body must be a telemetry envelope (object) or an array of events', { field: 'body' });
  if (events.length > MAX_EVENTS) throw tooLarge(`a batch holds at most ${MAX_EVENTS} events (got ${events.length})`);

  // Any event naming another workspace refuses the whole batch: a key reaches one workspace only.
  for (let i = 0; i < events.length; i++) {
    const w = events[i]?.workspace_id;
    if (typeof w === 'string' && w.toLowerCase() !== o.workspaceId) {
      throw new ApiError(403, 'forbidden', `events[${i}].workspace_id is not the workspace of this API key; nothing was stored`, { field: `events[${i}].workspace_id` });
    }
  }

  const window = { now: receivedAt, oldest: receivedAt - o.retentionDays * DAY_MS, maxSkewMs: o.maxClockSkewMs };
  const accepted = [];
  const rejected = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const { errors, ts } = eventErrors(e, window);
    if (errors.length > 0) { rejected.push({ index: i, errors }); continue; }
    accepted.push({
      ts, app_id: e.app_id, sdk: e.sdk, sdk_version: e.sdk_version, decision: e.decision, action: e.action ?? null, vector: e.vector,
      rule: e.rule, matched: e.matched, route: e.route, method: e.method, ip_hash: e.ip_hash, ip: e.ip ?? null,
    });
  }
  const response = { accepted: accepted.length, rejected };
  const result = await store.ingestEvents({
    workspaceId: o.workspaceId, events: accepted, envelope, idempotencyKey: o.idempotencyKey,
    requestHash: createHash('sha256').update(bytes).digest('hex'), response, receivedAt,
  });
  if (result.status === 'conflict') throw new ApiError(409, 'idempotency_conflict', 'this Idempotency-Key was used before with a different body', { field: 'Idempotency-Key' });
  return { body: result.response, replayed: result.status === 'replayed' };
}
