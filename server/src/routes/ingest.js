// POST /v1/events and POST /v1/findings. Their bodies carry attack text by design: they are
// read here, raw, after shield() has looked at the path, query and cookies only, and they are
// stored and served as inert data.
import { Router } from 'express';
import { ApiError, rateLimited, forbidden } from '../errors.js';
import { readBody, parseJson } from '../http/body.js';
import { parseFindingsUpload } from '../findings/parse.js';
import { ingestEventsBody } from '../ingest/events.js';

const IDEMPOTENCY_KEY_MAX = 200;

/**
 * @param {{ store: any, auth: ReturnType<typeof import('../auth/principal.js').principals>, config: any, keyLimiter: import('../http/limiter.js').Limiter }} ctx
 */
export function ingestRoutes({ store, auth, config, keyLimiter }) {
  const router = Router();

  /**
   * Authenticates and checks what the credential may send before the body is read, so a
   * refused caller costs no parsing: events take an API key with the `events` scope; findings
   * an API key with the `findings` scope or a `shield login` token of a current member.
   * @param {'events' | 'findings'} what
   */
  async function caller(req, what) {
    const p = await auth.requirePrincipal(req);
    if (p.kind === 'session') throw forbidden(`${what} take ${what === 'events' ? 'an API key' : 'an API key or access token'} in Authorization: Bearer, not a session`);
    if (what === 'events' && p.kind !== 'key') throw forbidden('events are sent with a workspace API key');
    if (p.kind === 'key' && !p.scopes.includes(what)) throw forbidden(`this API key may not send ${what} (scopes: ${p.scopes.join(', ')})`);
    if (p.kind === 'token') await auth.requireWorkspace(req, p.workspaceId, 'ingest');
    const wait = keyLimiter.take(p.kind === 'key' ? p.keyId : `token:${p.accountId}:${p.workspaceId}`);
    if (wait > 0) throw rateLimited('too many requests for this credential', wait);
    return p;
  }

  // Batches being read, parsed or stored: past the cap the server says 503 at once rather
  // than queueing without end (SDKs retry with their Idempotency-Key after Retry-After).
  let eventsInFlight = 0;
  let findingsInFlight = 0;
  const busy = (what) => new ApiError(503, 'unavailable', `the control plane is busy with other ${what}; retry shortly`, { headers: { 'Retry-After': '1' } });

  router.post('/v1/events', async (req, res) => {
    const p = await caller(req, 'events');
    if (eventsInFlight >= config.maxIngestInFlight) throw busy('batches');
    eventsInFlight++;
    try {
      await ingestEvents(req, res, p);
    } finally {
      eventsInFlight--;
    }
  });

  router.post('/v1/findings', async (req, res) => {
    const p = await caller(req, 'findings');
    if (findingsInFlight >= config.maxFindingsInFlight) throw busy('uploads');
    findingsInFlight++;
    try {
      const body = parseJson(await readBody(req, config.findings));
      const upload = parseFindingsUpload(body, { query: req.query });
      const stored = await store.ingestFindings(p.workspaceId, upload);
      res.status(201).json({ upload_id: stored.uploadId, repository: upload.repository.name, findings: stored.findings, inventory: stored.inventory });
    } finally {
      findingsInFlight--;
    }
  });

  async function ingestEvents(req, res, p) {
    const idempotencyKey = idempotencyKeyOf(req);
    const bytes = await readBody(req, config.ingest);
    const workspace = await store.workspace(p.workspaceId);
    const out = await ingestEventsBody(store, bytes, { workspaceId: p.workspaceId, retentionDays: workspace.retentionDays, idempotencyKey, maxClockSkewMs: config.maxClockSkewMs });
    if (out.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(202).json(out.body);
  }

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
