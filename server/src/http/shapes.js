// The read API's JSON: snake_case names and ISO 8601 times throughout, whatever shape the
// store returns internally.

import { iso } from '../time.js';

export function workspaceJson(w) {
  const out = { id: w.id, name: w.name, retention_days: w.retentionDays, created_at: iso(w.createdAt) };
  if (w.role !== undefined) out.role = w.role;
  return out;
}

export function keyJson(k) {
  return { id: k.id, name: k.name, prefix: k.prefix, scopes: k.scopes, created_at: iso(k.createdAt), last_used_at: iso(k.lastUsedAt), revoked_at: iso(k.revokedAt) };
}

export function overviewJson(o) {
  return {
    from: o.from,
    to: o.to,
    totals: o.totals,
    per_day: o.perDay,
    top_vectors: o.topVectors,
    top_categories: o.topCategories,
    top_routes: o.topRoutes,
    top_offenders: o.topOffenders,
  };
}

export function fleetJson(f, now, staleS) {
  return {
    instance_id: f.instanceId, app_id: f.appId, sdk: f.sdk, sdk_version: f.sdkVersion,
    first_seen: iso(f.firstSeen), last_seen: iso(f.lastSeen), last_event_at: iso(f.lastEventAt),
    events: f.events, dropped: f.dropped, status: now - f.lastSeen <= staleS * 1000 ? 'active' : 'stale',
  };
}

export function uploadJson(u) {
  if (u === null) return null;
  return {
    upload_id: u.uploadId, kind: u.kind, format: u.format, ref: u.ref, commit: u.commit, tool: u.tool,
    generated_at: iso(u.generatedAt), received_at: iso(u.receivedAt), counts: u.counts,
  };
}

export function repositoryJson(r) {
  return {
    repository: r.repository, uploads: r.uploads, last_upload_at: iso(r.lastUploadAt),
    latest: uploadJson(r.latest), by_kind: { sca: uploadJson(r.byKind.sca), audit: uploadJson(r.byKind.audit) },
  };
}

export function findingJson(f) {
  return {
    fingerprint: f.fingerprint, rule: f.rule, severity: f.severity, title: f.title, message: f.message, file: f.file, line: f.line,
    package: f.package, version: f.version, ecosystem: f.ecosystem, advisory_id: f.advisoryId, cvss: f.cvss, url: f.url,
  };
}

export function memberJson(m) {
  return { account_id: m.accountId, email: m.email, role: m.role, created_at: iso(m.createdAt) };
}

/** The answer of sign-in and of GET /v1/auth/session. */
export function sessionJson(account, workspaces, csrfToken) {
  return { account: { id: account.id, email: account.email }, workspaces: workspaces.map(workspaceJson), csrf_token: csrfToken };
}
