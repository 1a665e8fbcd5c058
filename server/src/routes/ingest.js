// POST /v1/events and POST /v1/findings. Their bodies carry attack text by design: they are
// read here, raw, after shield() has looked at the path, query and cookies only, and they are
// stored and served as inert data.
import { createHash } from 'node:crypto';
import { Router } from 'express';
import { ApiError } from '../errors.js';
import { readBody, parseJson, tooLarge } from '../http/body.js';
import { envelopeErrors, eventErrors, MAX_EVENTS } from '../ingest/validate.js';
import { parseFindingsUpload } from '../findings/parse.js';

const DAY_MS = 86_400_000;
const IDEMPOTENCY_KEY_MAX = 200;

/**
 * @param {{ store: any, auth: ReturnType<typeof import('../auth/principal.js').principals>, config: any, keyLimiter: import('../http/limiter.js').Limiter }} ctx
 */
export function ingestRoutes({ store, auth, config, keyLimiter }) {
  const router = Router();

  /** Authenticates before the body is read, so an unknown caller costs no parsing. */
  async function caller(req) {
    const p = await auth.requirePrincipal(req);
    if (p.kind === 'session') throw new ApiError(403, 'forbidden', 'ingest takes an API key or access token in Authorization: Bearer, not a session');
    const wait = keyLimiter.take(p.kind === 'key' ? p.keyId : `token:${p.accountId}:${p.workspaceId}`);
    if (wait > 0) throw new ApiError(429, 'rate_limited', `too many requests for this credential; retry in ${wait} s`, { headers: { 'Retry-After': String(wait) } });
    return p;
  }

  router.post('/v1/events', async (req, res) => {
    const p = await caller(req);
    if (p.kind !== 'key') throw new ApiError(403, 'forbidden', 'events are sent with a workspace API key');
    const idempotencyKey = idempotencyKeyOf(req);
    const bytes = await readBody(req, config.ingest);
    const body = parseJson(bytes);
    const receivedAt = Date.now();

    let events;
    let envelope = null;
    if (Array.isArray(body)) events = body;
    else if (body !== null && typeof body === 'object') {
      if (Array.isArray(body.events) && body.events.length > MAX_EVENTS) throw tooLarge(`a batch holds at most ${MAX_EVENTS} events (got ${body.events.length})`);
      const problems = envelopeErrors(body);
      if (problems.length > 0) throw new ApiError(400, 'invalid_envelope', problems[0], { field: problems[0].split(' ')[0], details: problems });
      events = body.events;
      envelope = { sdk: body.sdk, sdk_version: body.sdk_version, app_id: body.app_id, instance_id: body.instance_id.toLowerCase(), dropped: body.dropped };
      if (body.workspace_id.toLowerCase() !== p.workspaceId) throw new ApiError(403, 'forbidden', 'workspace_id of the envelope is not the workspace of this API key; nothing was stored', { field: 'workspace_id' });
    } else throw new ApiError(400, 'invalid_body', 'body must be a telemetry envelope (object) or an array of events', { field: 'body' });
    if (events.length > MAX_EVENTS) throw tooLarge(`a batch holds at most ${MAX_EVENTS} events (got ${events.length})`);

    // Any event naming another workspace refuses the whole batch: a key reaches one workspace only.
    for (let i = 0; i < events.length; i++) {
      const w = events[i]?.workspace_id;
      if (typeof w === 'string' && w.toLowerCase() !== p.workspaceId) {
        throw new ApiError(403, 'forbidden', `events[${i}].workspace_id is not the workspace of this API key; nothing was stored`, { field: `events[${i}].workspace_id` });
      }
    }

    const workspace = await store.workspace(p.workspaceId);
    const window = { now: receivedAt, oldest: receivedAt - workspace.retentionDays * DAY_MS, maxSkewMs: config.maxClockSkewMs };
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
      workspaceId: p.workspaceId, events: accepted, envelope, idempotencyKey, requestHash: createHash('sha256').update(bytes).digest('hex'), response, receivedAt,
    });
    if (result.status === 'conflict') throw new ApiError(409, 'idempotency_conflict', 'this Idempotency-Key was used before with a different body', { field: 'Idempotency-Key' });
    if (result.status === 'replayed') res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(result.response);
  });

  router.post('/v1/findings', async (req, res) => {
    const p = await caller(req);
    const body = parseJson(await readBody(req, config.findings));
    const upload = parseFindingsUpload(body, { query: req.query });
    const stored = await store.ingestFindings(p.workspaceId, upload);
    res.status(201).json({ upload_id: stored.uploadId, repository: upload.repository.name, findings: stored.findings, inventory: stored.inventory });
  });

  return router;
}

function idempotencyKeyOf(req) {
  const v = req.headers['idempotency-key'];
  if (v === undefined) return null;
  if (typeof v !== 'string' || v.length === 0 || v.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(v)) {
    throw new ApiError(400, 'invalid_request', `Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX} visible ASCII characters`, { field: 'Idempotency-Key' });
  }
  return v;
}
