// The one storage interface of the control plane. Routes talk only to this; sqlite3 is the
// default backend (./sqlite/index.js) and tests/server/store-contract.mjs is the suite any
// second backend must pass unchanged. Workspaces are addressed by UUID (`workspaceId`) here;
// how a backend keys them inside is its own business. Times are ms since the epoch (UTC).

/**
 * @typedef {{ id: string, name: string, retentionDays: number, createdAt: number }} Workspace
 * @typedef {{ id: number, email: string, passwordHash: string, isAdmin: boolean, createdAt: number }} Account
 * @typedef {{ accountId: number, email: string, role: 'owner' | 'member', createdAt: number }} Member
 * @typedef {{ id: string, workspaceId: string, name: string, prefix: string, scopes: ('events' | 'findings')[], createdAt: number, lastUsedAt: number | null, revokedAt: number | null }} ApiKey
 * @typedef {{ accountId: number, expiresAt: number }} Session
 * @typedef {{ status: 'pending' | 'approved' | 'denied' | 'used', userCode: string, accountId: number | null, workspaceId: string | null, intervalS: number, lastPollAt: number | null, expiresAt: number }} DeviceCode
 * @typedef {{ accountId: number, workspaceId: string, expiresAt: number }} AccessToken
 *
 * A validated decision event (event.schema.json), with its timestamp parsed.
 * @typedef {{ ts: number, app_id: string, sdk: string, sdk_version: string, decision: string, action: string | null, vector: string, rule: string, matched: string, route: string, method: string, ip_hash: string, ip: string | null }} StoredEventInput
 *
 * @typedef {{ sdk: string, sdk_version: string, app_id: string, instance_id: string, dropped: number }} EnvelopeInfo
 *
 * @typedef {{
 *   workspaceId: string,
 *   events: StoredEventInput[],
 *   envelope: EnvelopeInfo | null,
 *   idempotencyKey: string | null,
 *   requestHash: string,
 *   response: { accepted: number, rejected: { index: number, errors: string[] }[] },
 *   receivedAt: number,
 * }} IngestBatch
 *
 * `replayed`: the Idempotency-Key was seen before with the same body; `response` is the first
 * answer and nothing new was stored. `conflict`: the key was seen with another body.
 * @typedef {{ status: 'stored' | 'replayed' | 'conflict', response: IngestBatch['response'] }} IngestResult
 *
 * @typedef {{ from: string, to: string, app?: string, limit?: number }} OverviewQuery   days 'YYYY-MM-DD', inclusive
 * @typedef {{ from?: number, to?: number, decision?: string, vector?: string, rule?: string, route?: string, method?: string, ip_hash?: string, app?: string, limit: number, cursor?: { ts: number, id: number } }} EventQuery
 */

/**
 * Methods every backend implements (all async):
 *
 * lifecycle   close()
 * accounts    createAccount({ email, passwordHash, isAdmin? }) -> Account; accountByEmail(email); account(id);
 *             setPassword(accountId, passwordHash, { keepSessionHash? }) -> boolean (ends the account's other
 *             sessions, all its access tokens and the device logins it approved but were not exchanged)
 * workspaces  createWorkspace({ id, name, retentionDays, ownerAccountId? }) -> Workspace;
 *             workspace(id); workspacesOf(accountId) -> (Workspace & { role })[];
 *             updateWorkspace(id, { name?, retentionDays? }) -> Workspace | undefined; isEmpty() -> boolean
 * members     members(workspaceId) -> Member[]; role(workspaceId, accountId) -> role | null;
 *             addMember(workspaceId, accountId, role); removeMember(workspaceId, accountId) -> boolean (ends the
 *             member's access tokens and unexchanged approved logins for that workspace); both throw LastOwnerError, atomically, rather than
 *             leave a workspace without an owner
 * api keys    createApiKey({ id, workspaceId, name, prefix, hash, scopes? }) -> ApiKey (scopes default to both);
 *             apiKeys(workspaceId);
 *             apiKeyByHash(hash) -> ApiKey | undefined; revokeApiKey(workspaceId, id) -> boolean;
 *             touchApiKeys(Map<id, lastUsedAt>)
 * sessions    createSession({ hash, accountId, expiresAt }); session(hash) -> Session | undefined;
 *             deleteSession(hash)
 * device flow createDeviceCode({ hash, userCode, intervalS, expiresAt }); pendingDeviceCodes(now) -> number;
 *             deviceCodeByHash(hash);
 *             deviceCodeByUserCode(userCode); decideDeviceCode(userCode, { status, accountId, workspaceId }) -> boolean
 *             (false when the code is not pending, expired, or the workspace is unknown);
 *             pollDeviceCode(hash, at, newIntervalS?); useDeviceCode(hash) -> boolean (pending approved -> used, once)
 * tokens      createAccessToken({ hash, accountId, workspaceId, expiresAt }); accessToken(hash)
 * ingest      ingestEvents(IngestBatch) -> IngestResult: atomic (events, rollups, fleet, idempotency key),
 *             settled after the commit; an envelope without events (heartbeat) updates the fleet only
 * read        overview(workspaceId, OverviewQuery); events(workspaceId, EventQuery) -> { events, next };
 *             fleet(workspaceId); countEvents(workspaceId)
 * findings    ingestFindings(workspaceId, upload) -> { uploadId, findings, inventory } (counts);
 *             findingRepositories(workspaceId); repositoryFindings(workspaceId, repository, { uploadId?, kind?, limit? })
 * retention   applyRetention(now) -> { events, uploads, compacted }  (per workspace retention_days; events go
 *             to the millisecond, per-day rollups once their whole day is past the cutoff; the route and
 *             address rollups of past days are trimmed to each day's largest entries: `compacted` rows)
 *
 * close() waits for calls already under way (an ingest in flight is stored or refused, never cut off).
 */
/** What an API key may send, in their stored order: both unless narrowed when created. */
export const KEY_SCOPES = Object.freeze(['events', 'findings']);

/** Thrown by addMember/removeMember instead of leaving a workspace without an owner. */
export class LastOwnerError extends Error {
  constructor() {
    super('a workspace keeps at least one owner');
    this.name = 'LastOwnerError';
    this.code = 'LAST_OWNER';
  }
}

export const STORE_METHODS = Object.freeze([
  'close',
  'createAccount', 'accountByEmail', 'account', 'setPassword',
  'createWorkspace', 'workspace', 'workspacesOf', 'updateWorkspace', 'isEmpty',
  'members', 'role', 'addMember', 'removeMember',
  'createApiKey', 'apiKeys', 'apiKeyByHash', 'revokeApiKey', 'touchApiKeys',
  'createSession', 'session', 'deleteSession',
  'createDeviceCode', 'pendingDeviceCodes', 'deviceCodeByHash', 'deviceCodeByUserCode', 'decideDeviceCode', 'pollDeviceCode', 'useDeviceCode',
  'createAccessToken', 'accessToken',
  'ingestEvents',
  'overview', 'events', 'fleet', 'countEvents',
  'ingestFindings', 'findingRepositories', 'repositoryFindings',
  'applyRetention',
]);
