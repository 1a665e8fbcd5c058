// The OpenAPI 3.1 document of the control plane, served at GET /v1/openapi.json. It is written
// against the routes as they behave (routes/, app.js, http/body.js, auth/principal.js), and
// tests/server/openapi.test.mjs fails when a mounted route is missing here or a documented one
// does not exist. The ingest bodies' JSON Schemas (schema/) are embedded, not linked: their
// `$id`s are names, not URLs a client can fetch.
import { loadSchema } from './schemas.js';

/** schema/ file -> the components.schemas entry it becomes */
const EMBEDDED = { 'event.schema.json': 'Event', 'envelope.schema.json': 'Envelope', 'findings.schema.json': 'FindingsUpload' };
const SCHEMA_ID_BASE = 'https://shield.dev/schema/';

// Loaded once: a schema file that cannot be embedded should stop the server at start, not
// surface as a broken document later.
const SCHEMAS = Object.fromEntries(Object.entries(EMBEDDED).map(([file, name]) => [name, embed(file, name)]));

/**
 * The document; `version` is the control plane's package version.
 * @param {string} version
 */
export function openApiDocument(version) {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'shield control plane',
      version,
      summary: 'Event and findings ingest, per-workspace auth and the read API of the self-hosted shield control plane.',
      description: INFO_DESCRIPTION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'The server that served this document.' }],
    tags: TAGS,
    paths: paths(),
    components: {
      schemas: { ...structuredClone(SCHEMAS), ...schemas() },
      responses: sharedResponses(),
      parameters: sharedParameters(),
      headers: sharedHeaders(),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

// ---- embedding schema/ ---------------------------------------------------------------------

/** A schema file without `$id`/`$schema` (so its references resolve in this document) and with every `$ref` pointing into it. */
function embed(file, name) {
  const { $schema, $id, ...rest } = loadSchema(file);
  return { $comment: `Embedded copy of schema/${file} (${$id}).`, ...rewriteRefs(rest, name) };
}

function rewriteRefs(node, self) {
  if (Array.isArray(node)) return node.map((v) => rewriteRefs(v, self));
  if (node === null || typeof node !== 'object') return node;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' ? refTarget(v, self) : rewriteRefs(v, self);
  return out;
}

/** `event.schema.json` -> `#/components/schemas/Event`; `#/$defs/x` -> `#/components/schemas/<self>/$defs/x`. */
function refTarget(ref, self) {
  const hash = ref.indexOf('#');
  const file = (hash < 0 ? ref : ref.slice(0, hash)).replace(SCHEMA_ID_BASE, '');
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  const name = file === '' ? self : EMBEDDED[file];
  if (name === undefined || (fragment !== '' && !fragment.startsWith('/'))) throw new Error(`openapi: cannot embed the reference ${JSON.stringify(ref)} of ${self}`);
  return `#/components/schemas/${name}${fragment}`;
}

// ---- small builders ------------------------------------------------------------------------

const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name) => ({ $ref: `#/components/responses/${name}` });
const paramRef = (name) => ({ $ref: `#/components/parameters/${name}` });
const headerRef = (name) => ({ $ref: `#/components/headers/${name}` });
const json = (schema) => ({ 'application/json': { schema } });
const nullable = (schema) => ({ ...schema, type: [schema.type, 'null'] });
const ISO_TIME = { type: 'string', format: 'date-time' };
const UUID = { type: 'string', format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' };
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** An error answer with the common body (or, with `blocked`, also shield()'s own refusal body). */
function errorResponse(description, { headers, blocked = false } = {}) {
  return {
    description,
    ...(headers === undefined ? {} : { headers }),
    content: json(blocked ? { oneOf: [ref('Error'), ref('Blocked')] } : ref('Error')),
  };
}

const CSRF_403 = '`csrf` when a cookie-authenticated unsafe request lacks the CSRF cookie or a matching `x-csrf-token` header (or `_csrf` form field)';
const BLOCKED_403 = '`blocked` (body `{ error, vector, incident }`) when shield() finds an attack in the path, query, cookies or parsed body';

/**
 * One operation; every operation can also answer 429 (per-address limiter) and 500, and 403
 * when shield() blocks the request, so those are added here.
 */
function operation({ responses, ...rest }) {
  const all = { ...responses };
  if (all['403'] === undefined) all['403'] = errorResponse(`Refused by the control plane's own shield() middleware: ${BLOCKED_403}.`, { blocked: true });
  all['429'] ??= responseRef('TooManyRequests');
  all['500'] = responseRef('InternalError');
  return { ...rest, responses: all };
}

// what an API key may send
const KEY_SCOPES_SCHEMA = {
  type: 'array', minItems: 1, maxItems: 2, uniqueItems: true, items: { enum: ['events', 'findings'] },
  description: '`events` (POST /v1/events), `findings` (POST /v1/findings), or both (the default). Give SDK hosts an events-only key, and CI a findings-only one.',
};

// `name` of a workspace or key, as the routes check it
const NAME_FIELD = { type: 'string', maxLength: 100, pattern: '\\S', description: 'At most 100 characters, not blank; stored trimmed.' };

const SECURITY = {
  none: [],
  apiKey: [{ apiKey: [] }],
  ingest: [{ apiKey: [] }, { accessToken: [] }],
  read: [{ accessToken: [] }, { sessionCookie: [] }, { hostSessionCookie: [] }],
  session: [{ sessionCookie: [] }, { hostSessionCookie: [] }],
  sessionWrite: [{ sessionCookie: [], csrfToken: [] }, { hostSessionCookie: [], csrfToken: [] }],
};

// ---- document text -------------------------------------------------------------------------

const INFO_DESCRIPTION = `The optional, self-hosted backend of shield: SDKs send decision events, the CLI uploads
findings, the dashboard and \`shield login\` read them, per workspace.

**Credentials.** An API key (\`Authorization: Bearer shk_...\`) reaches one workspace and may only
send events and findings. An access token from the device login (\`Bearer sht_...\`, 8 hours by
default) reads one workspace and uploads findings. A dashboard session (cookie \`shield_session\`,
or \`__Host-shield_session\` when the server runs over https) reaches every workspace the account
is a member of; owners administer. Cookie-authenticated POST, PATCH and DELETE requests need the
CSRF token (\`x-csrf-token\` header or \`_csrf\` form field) that matches the signed CSRF cookie
(\`shield.csrf\`, or \`__Host-shield.csrf\` over https); any GET issues that cookie. A request that
carries an \`Authorization: Bearer\` header, and every request to \`/v1/events\`, \`/v1/findings\`,
\`/v1/auth/device\` and \`/v1/auth/token\`, is exempt from the CSRF check.

**Errors.** Every error of the API itself has the body \`{ error, message, field?, details? }\`
(\`Error\`): \`error\` is a stable code, \`message\` is for people and names the bad field, \`field\`
names it for programs. Two other bodies exist: the control plane's own shield() middleware
answers \`{ error: "blocked" | "too_large", vector, incident }\` (\`Blocked\`) when it refuses a
request (any route: the path, query and cookies are always scanned, and so are parsed bodies
except those of the two ingest routes), and \`POST /v1/auth/token\` answers OAuth errors
(\`{ error, error_description }\`, RFC 8628).

**Bodies.** Except on the two ingest routes, a request body is parsed as JSON (at most 64 KiB)
or as an HTML form (\`application/x-www-form-urlencoded\`, at most 16 KiB and 20 fields), on
every route: malformed JSON is a 400 \`invalid_json\`, an oversized body a 413
\`payload_too_large\`, an unsupported charset or Content-Encoding a 415 \`unsupported_media_type\`.
Bodies of other types are ignored. The ingest routes read their body themselves (JSON only,
brotli or gzip allowed, larger limits).

**Query parameters** are checked one by one and a bad one is named in \`field\`; one given twice
is a 400. The overview and events feed also refuse unknown parameters.

**Rate limits.** Every request counts against a per-address token bucket (500 a second, burst
1,000 by default); over it, a 429 \`rate_limited\` with \`Retry-After\` in seconds. Ingest adds a
bucket per credential (200 a second, burst 400) and a cap of 64 batches in flight (503 beyond).
Failed sign-ins count per (email, address) (10, then one every 90 s), per address (50, then one
every 6 s) and per email from anywhere (100, then one every 10 s); a success clears its (email,
address) count. An IPv6 /64 counts as one address. All limits are settings of the server
(\`src/config.js\`).`;

const TAGS = [
  { name: 'meta', description: 'What runs here: the home page, the health check, this document.' },
  { name: 'auth', description: 'Dashboard sign-in: session cookies and CSRF tokens.' },
  { name: 'device', description: 'The device-authorization login of `shield login` (RFC 8628 shape): the CLI asks for a code, a signed-in user approves it on /device, the CLI polls for a short-lived access token.' },
  { name: 'ingest', description: 'Decision events from the SDKs and findings from the CLI. Their bodies carry attack text by design: they are not scanned, only stored and served back as JSON.' },
  { name: 'workspaces', description: 'Workspaces and their settings.' },
  { name: 'read', description: 'What the dashboard shows of one workspace: overview, events feed, fleet, findings.' },
  { name: 'keys', description: 'API keys of a workspace (owners only). A key is shown once, when created; only its SHA-256 is stored.' },
  { name: 'members', description: 'Members of a workspace: everyone reads, owners change.' },
];

const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'shk_<43 base64url characters>',
    description: 'A workspace API key, `Authorization: Bearer shk_...`: created by `POST /v1/workspaces/{workspace}/keys` (and one at bootstrap, in `bootstrap.json`). Sends events and findings to its own workspace only; revocable.',
  },
  accessToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'sht_<43 base64url characters>',
    description: 'An access token of the device login (`POST /v1/auth/token`), `Authorization: Bearer sht_...`: reads one workspace and uploads its findings, never administers; expires after 8 hours by default.',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'shield_session',
    description: 'Dashboard session set by `POST /v1/auth/login` (HttpOnly, SameSite=Strict, 12 hours by default) when the server runs over plain http. Value `shs_...`.',
  },
  hostSessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: '__Host-shield_session',
    description: 'The same session cookie when the server runs over https (a certificate, or an https public URL): `__Host-` prefixed and Secure; also when a trusted proxy reports that the request came over https. A request reads only the name for its own scheme: over https a plain `shield_session` is not a session.',
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-csrf-token',
    description: 'Double-submit CSRF token, required with a session on POST, PATCH and DELETE: the `csrf_token` of `GET /v1/auth/csrf`, `POST /v1/auth/login` or `GET /v1/auth/session`, which must match the signed cookie `shield.csrf` (`__Host-shield.csrf` over https) issued on any GET. HTML forms may send it as the `_csrf` field instead. Refused with 403 `csrf`.',
  },
};

// ---- components ----------------------------------------------------------------------------

function sharedHeaders() {
  return {
    RetryAfter: { description: 'Seconds to wait before retrying (a whole number, at least 1).', required: true, schema: { type: 'integer', minimum: 1 } },
    WWWAuthenticate: { description: '`Bearer`: present when the credential was missing, malformed, unknown, revoked or expired.', schema: { type: 'string', const: 'Bearer' } },
    SetSessionCookie: {
      description: 'The session cookie: `shield_session=shs_...; Path=/; HttpOnly; SameSite=Strict; Max-Age=<seconds>` (`__Host-shield_session=...; Secure` over https).',
      schema: { type: 'string' },
    },
  };
}

function sharedParameters() {
  return {
    workspace: {
      name: 'workspace',
      in: 'path',
      required: true,
      description: 'Workspace id (UUID, any case). A value that is not a UUID, or names no workspace, is a 404 `not_found`; an existing workspace the caller may not use is a 403.',
      schema: UUID,
    },
  };
}

function sharedResponses() {
  return {
    TooManyRequests: {
      description: 'Rate limited (`rate_limited`): the per-address limit (every route), the per-credential limit (ingest) or the sign-in limits. `Retry-After` says how many seconds to wait.',
      headers: { 'Retry-After': headerRef('RetryAfter') },
      content: json(ref('Error')),
    },
    InternalError: {
      description: 'Unexpected fault (`internal`); the server logs it (at most one line a second, with a count of the rest). Safe to retry idempotent requests.',
      content: json(ref('Error')),
    },
    Unauthorized: {
      description: '`unauthorized`: no credential, or an `Authorization` header that is not `Bearer <API key or access token>`, or an unknown, revoked or expired one.',
      headers: { 'WWW-Authenticate': headerRef('WWWAuthenticate') },
      content: json(ref('Error')),
    },
  };
}

function schemas() {
  const workspaceProps = {
    id: { ...UUID, description: 'Workspace id.' },
    name: { type: 'string', minLength: 1, maxLength: 100, description: 'Display name (trimmed).' },
    retention_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'Days events and findings uploads are kept.' },
    created_at: { ...ISO_TIME, description: 'When the workspace was created.' },
  };
  const role = { enum: ['owner', 'member'], description: 'Role in the workspace: owners administer (settings, keys, members), members read.' };
  const keyProps = {
    id: { type: 'string', pattern: '^key_[0-9a-f]{16}$', description: 'Key id (not secret): what DELETE takes.' },
    name: { type: 'string', minLength: 1, maxLength: 100, description: 'Name given when created.' },
    prefix: { type: 'string', minLength: 12, maxLength: 12, description: 'The first 12 characters of the key (`shk_` and 8 more), to recognise it.' },
    scopes: KEY_SCOPES_SCHEMA,
    created_at: ISO_TIME,
    last_used_at: { ...nullable(ISO_TIME), description: 'Last use, recorded at most once a minute; null when never used.' },
    revoked_at: { ...nullable(ISO_TIME), description: 'When it was revoked; null while active.' },
  };
  const count = { type: 'integer', minimum: 0 };
  const severityCounts = {
    type: 'object',
    required: ['critical', 'high', 'medium', 'low', 'info'],
    additionalProperties: false,
    properties: { critical: count, high: count, medium: count, low: count, info: count },
  };
  const eventProp = (name) => ({ $ref: `#/components/schemas/Event/properties/${name}` });

  return {
    Error: {
      description: 'The body of every error of the API itself.',
      type: 'object',
      required: ['error', 'message'],
      additionalProperties: false,
      properties: {
        error: {
          type: 'string',
          description: 'Stable machine-readable code: `invalid_request`, `invalid_json`, `invalid_brotli`, `invalid_gzip`, `invalid_body`, `invalid_envelope`, `invalid_findings`, `invalid_user_code`, `invalid_credentials`, `unauthorized`, `forbidden`, `csrf`, `not_found`, `last_owner`, `no_such_account`, `idempotency_conflict`, `payload_too_large`, `unsupported_media_type`, `rate_limited`, `unavailable`, `internal`.',
          examples: ['invalid_request'],
        },
        message: { type: 'string', description: 'For people; names the field at fault.' },
        field: { type: 'string', description: 'The parameter, header or body field at fault (`limit`, `Idempotency-Key`, `events[3].timestamp`, `body`).' },
        details: {
          description: 'Every problem found: strings (`invalid_envelope`) or `{ field, message }` pairs (`invalid_findings`, at most 20).',
          anyOf: [
            { type: 'array', items: { type: 'string' } },
            { type: 'array', items: ref('FieldError') },
          ],
        },
      },
    },
    FieldError: {
      description: 'One problem of a findings upload.',
      type: 'object',
      required: ['field', 'message'],
      additionalProperties: false,
      properties: { field: { type: 'string' }, message: { type: 'string' } },
    },
    Blocked: {
      description: "The refusal of the control plane's own shield() middleware (block mode). Names the attack class and an incident id, never the rule or the payload.",
      type: 'object',
      required: ['error', 'vector', 'incident'],
      additionalProperties: false,
      properties: {
        error: { enum: ['blocked', 'too_large'], description: '`blocked` (403): an attack was found; `too_large` (413): the parsed body or query is nested deeper or holds more keys or text than the scanner walks.' },
        vector: { type: 'string', description: 'Attack class (`xss`, `sql`, `path`, ..., `limits` for `too_large`).' },
        incident: { ...UUID, description: 'Incident id, for the server operator.' },
      },
    },
    OAuthError: {
      description: 'An error of the device-code token exchange (RFC 8628 section 3.5, RFC 6749 section 5.2).',
      type: 'object',
      required: ['error', 'error_description'],
      additionalProperties: false,
      properties: {
        error: {
          enum: ['authorization_pending', 'slow_down', 'expired_token', 'access_denied', 'invalid_grant', 'unsupported_grant_type', 'invalid_request'],
          description: [
            '`authorization_pending`: the user has not decided yet; poll again after `interval` seconds.',
            '`slow_down`: polled sooner than the interval; the interval grows by 5 s for this and every later poll (the new value is in `interval`).',
            '`expired_token`: the device code expired (10 minutes by default); start again with `POST /v1/auth/device`.',
            '`access_denied`: the user denied the request, or the approving account has since left the workspace or changed its password.',
            '`invalid_grant`: unknown device code, or one already exchanged for a token.',
            '`unsupported_grant_type`: `grant_type` is not `urn:ietf:params:oauth:grant-type:device_code`.',
            '`invalid_request`: `device_code` missing, not a string, or longer than 100 characters.',
          ].join('\n'),
        },
        error_description: { type: 'string', description: 'For people.' },
        interval: { type: 'integer', minimum: 1, description: 'With `slow_down` only: the new polling interval in seconds.' },
      },
    },
    Account: {
      type: 'object',
      required: ['id', 'email'],
      additionalProperties: false,
      properties: { id: { type: 'integer', minimum: 1 }, email: { type: 'string', maxLength: 320 } },
    },
    Session: {
      description: 'The signed-in account, its workspaces and the CSRF token to send with unsafe requests.',
      type: 'object',
      required: ['account', 'workspaces', 'csrf_token'],
      additionalProperties: false,
      properties: {
        account: ref('Account'),
        workspaces: { type: 'array', items: ref('WorkspaceWithRole') },
        csrf_token: { type: 'string', description: 'Send as `x-csrf-token` on POST, PATCH and DELETE. Empty when the request carried an `Authorization: Bearer` header (CSRF does not apply then).' },
      },
    },
    CsrfToken: {
      type: 'object',
      required: ['csrf_token'],
      additionalProperties: false,
      properties: { csrf_token: { type: 'string', description: '`<43 base64url>.<43 base64url>`, signed by the server; empty when the request carried an `Authorization: Bearer` header.' } },
    },
    DeviceAuthorization: {
      description: 'RFC 8628 section 3.2 device authorization response.',
      type: 'object',
      required: ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval'],
      additionalProperties: false,
      properties: {
        device_code: { type: 'string', pattern: '^shd_[A-Za-z0-9_-]{43}$', description: 'Secret the CLI polls `POST /v1/auth/token` with.' },
        user_code: { type: 'string', pattern: '^[BCDFGHJKMNPQRSTVWXZ]{4}-[BCDFGHJKMNPQRSTVWXZ]{4}$', description: 'Code the user confirms on /device (case and separators are ignored when typed).' },
        verification_uri: { type: 'string', format: 'uri', description: '`<public URL>/device`: the configured public URL, else this request\'s own origin.' },
        verification_uri_complete: { type: 'string', format: 'uri', description: 'The same with `?user_code=` filled in.' },
        expires_in: { type: 'integer', minimum: 1, description: 'Seconds the codes stay valid (600 by default).' },
        interval: { type: 'integer', minimum: 1, description: 'Seconds to wait between polls (5 by default).' },
      },
    },
    AccessToken: {
      description: 'RFC 6749 section 5.1 token response, plus the workspace the user approved.',
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in', 'workspace_id'],
      additionalProperties: false,
      properties: {
        access_token: { type: 'string', pattern: '^sht_[A-Za-z0-9_-]{43}$', description: 'Send as `Authorization: Bearer sht_...`.' },
        token_type: { const: 'Bearer' },
        expires_in: { type: 'integer', minimum: 1, description: 'Seconds the token is valid (8 hours by default).' },
        workspace_id: { ...UUID, description: 'The one workspace the token reaches.' },
      },
    },
    EventsBody: {
      description: 'A telemetry envelope (what the SDKs send) or a bare array of events. Each event is checked on its own: an invalid event is reported in the 202 answer, not refused with a 400. More than 1,000 events is a 413.',
      oneOf: [ref('Envelope'), { type: 'array', maxItems: 1000, items: ref('Event') }],
    },
    IngestResult: {
      description: 'What happened to each event of the batch.',
      type: 'object',
      required: ['accepted', 'rejected'],
      additionalProperties: false,
      properties: {
        accepted: { ...count, description: 'Events stored.' },
        rejected: {
          type: 'array',
          description: 'Events refused, each by its index in the batch with its reasons: the event schema, or a timestamp more than the allowed clock skew (10 minutes by default) ahead of the server or older than the workspace keeps events.',
          items: {
            type: 'object',
            required: ['index', 'errors'],
            additionalProperties: false,
            properties: {
              index: { ...count, description: 'Position in `events` (or in the bare array).' },
              errors: { type: 'array', minItems: 1, items: { type: 'string' }, description: '`field message` lines, e.g. `matched must NOT have more than 80 characters` or `timestamp is required`: about 10 at most (every missing required field is listed).' },
            },
          },
        },
      },
    },
    SarifLog: {
      description: 'A SARIF 2.1.0 log, as most scanners print it. Only its outline is given here; the server checks the whole log against the official schema (schema/sarif-schema-2.1.0.json in the repository) and takes at most 50,000 results. A body is read as SARIF when its `$schema` mentions sarif, or when it has `runs` and no `schema_version`. The repository comes from `runs[].versionControlProvenance[].repositoryUri` or the `repository` query parameter.',
      externalDocs: { description: 'SARIF 2.1.0', url: 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html' },
      type: 'object',
      required: ['version', 'runs'],
      properties: {
        $schema: { type: 'string', format: 'uri' },
        version: { const: '2.1.0' },
        runs: { type: 'array', minItems: 1, items: { type: 'object' } },
      },
    },
    FindingsUploadResult: {
      type: 'object',
      required: ['upload_id', 'repository', 'findings', 'inventory'],
      additionalProperties: false,
      properties: {
        upload_id: { type: 'integer', minimum: 1, description: 'Id of the new upload (uploads never change; each scan is a new one).' },
        repository: { type: 'string', description: 'The canonical repository name the upload was filed under (`github.com/acme/shop`): what `?repository=` of the findings read takes.' },
        findings: { ...count, description: 'Findings stored.' },
        inventory: { ...count, description: 'Inventory packages stored.' },
      },
    },
    Workspace: {
      type: 'object',
      required: ['id', 'name', 'retention_days', 'created_at'],
      additionalProperties: false,
      properties: workspaceProps,
    },
    WorkspaceWithRole: {
      type: 'object',
      required: ['id', 'name', 'retention_days', 'created_at', 'role'],
      additionalProperties: false,
      properties: { ...workspaceProps, role: { ...role, description: `${role.description} With an access token this is always \`member\`.` } },
    },
    WorkspaceList: {
      type: 'object',
      required: ['workspaces'],
      additionalProperties: false,
      properties: { workspaces: { type: 'array', items: ref('WorkspaceWithRole') } },
    },
    Overview: {
      description: 'Counts over whole UTC days, from the rollups.',
      type: 'object',
      required: ['from', 'to', 'totals', 'per_day', 'top_vectors', 'top_categories', 'top_routes', 'top_offenders'],
      additionalProperties: false,
      properties: {
        from: { type: 'string', format: 'date', description: 'First day (inclusive).' },
        to: { type: 'string', format: 'date', description: 'Last day (inclusive).' },
        totals: { type: 'object', required: ['allow', 'deny'], additionalProperties: false, properties: { allow: count, deny: count } },
        per_day: {
          type: 'array',
          description: 'Days with events only, oldest first.',
          items: { type: 'object', required: ['day', 'allow', 'deny'], additionalProperties: false, properties: { day: { type: 'string', format: 'date' }, allow: count, deny: count } },
        },
        top_vectors: {
          type: 'array',
          description: 'Attack classes by denied requests, most first (at most `limit`).',
          items: { type: 'object', required: ['vector', 'denied'], additionalProperties: false, properties: { vector: eventProp('vector'), denied: count } },
        },
        top_categories: {
          type: 'array',
          description: 'Rules by denied requests, most first (at most `limit`).',
          items: { type: 'object', required: ['rule', 'vector', 'denied'], additionalProperties: false, properties: { rule: eventProp('rule'), vector: eventProp('vector'), denied: count } },
        },
        top_routes: {
          type: 'array',
          description: 'Routes by denied, then all requests (at most `limit`).',
          items: {
            type: 'object',
            required: ['route', 'method', 'requests', 'denied'],
            additionalProperties: false,
            properties: { route: eventProp('route'), method: eventProp('method'), requests: count, denied: count },
          },
        },
        top_offenders: {
          type: 'array',
          description: 'Client address hashes by denied requests (at most `limit`).',
          items: { type: 'object', required: ['ip_hash', 'denied'], additionalProperties: false, properties: { ip_hash: eventProp('ip_hash'), denied: count } },
        },
      },
    },
    StoredEvent: {
      description: 'A stored decision event: the fields of `Event`, plus its id and when it was received.',
      type: 'object',
      required: ['id', 'workspace_id', 'app_id', 'sdk', 'sdk_version', 'decision', 'vector', 'rule', 'matched', 'route', 'method', 'ip_hash', 'timestamp', 'received_at'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: '^[0-9]+$', description: 'Event id (a decimal integer, as a string).' },
        workspace_id: { ...UUID, description: 'Workspace id, lower case.' },
        app_id: eventProp('app_id'),
        sdk: eventProp('sdk'),
        sdk_version: eventProp('sdk_version'),
        decision: eventProp('decision'),
        action: eventProp('action'),
        vector: eventProp('vector'),
        rule: eventProp('rule'),
        matched: eventProp('matched'),
        route: eventProp('route'),
        method: eventProp('method'),
        ip_hash: eventProp('ip_hash'),
        ip: eventProp('ip'),
        timestamp: { ...ISO_TIME, description: 'When the decision was taken (UTC, millisecond precision).' },
        received_at: { ...ISO_TIME, description: 'When the control plane received it.' },
      },
    },
    EventPage: {
      type: 'object',
      required: ['events', 'next_cursor'],
      additionalProperties: false,
      properties: {
        events: { type: 'array', items: ref('StoredEvent'), description: 'Newest first.' },
        next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next (older) page, with the same filters; null on the last page.' },
      },
    },
    FleetInstance: {
      type: 'object',
      required: ['instance_id', 'app_id', 'sdk', 'sdk_version', 'first_seen', 'last_seen', 'last_event_at', 'events', 'dropped', 'status'],
      additionalProperties: false,
      properties: {
        instance_id: { ...UUID, description: 'The envelope\'s `instance_id`, lower case: one SDK process.' },
        app_id: eventProp('app_id'),
        sdk: eventProp('sdk'),
        sdk_version: eventProp('sdk_version'),
        first_seen: ISO_TIME,
        last_seen: { ...ISO_TIME, description: 'Last envelope (events or heartbeat).' },
        last_event_at: { ...nullable(ISO_TIME), description: 'Timestamp of the newest accepted event it sent; null while none of its envelopes carried an accepted event (heartbeats only).' },
        events: { ...count, description: 'Accepted events it sent in envelopes (events sent as a bare array name no instance and are not counted here).' },
        dropped: { ...count, description: 'Events it reported dropping because its queue was full: the highest count it reported.' },
        status: { enum: ['active', 'stale'], description: '`active` when seen within the last 5 minutes (a server setting), else `stale`.' },
      },
    },
    Fleet: {
      type: 'object',
      required: ['instances'],
      additionalProperties: false,
      properties: { instances: { type: 'array', items: ref('FleetInstance'), description: 'Most recently seen first.' } },
    },
    UploadSummary: {
      description: 'One findings upload.',
      type: 'object',
      required: ['upload_id', 'kind', 'format', 'ref', 'commit', 'tool', 'generated_at', 'received_at', 'counts'],
      additionalProperties: false,
      properties: {
        upload_id: { type: 'integer', minimum: 1 },
        kind: { enum: ['sca', 'audit'] },
        format: { enum: ['json', 'sarif'], description: 'What was uploaded: shield JSON or SARIF.' },
        ref: { type: ['string', 'null'] },
        commit: { type: ['string', 'null'], description: 'Lower-case hex.' },
        tool: { type: 'object', required: ['name', 'version'], additionalProperties: false, properties: { name: { type: 'string' }, version: { type: 'string' } } },
        generated_at: { ...ISO_TIME, description: 'When the scan finished.' },
        received_at: { ...ISO_TIME, description: 'When it was uploaded.' },
        counts: { ...severityCounts, description: 'Findings per severity, recounted by the server.' },
      },
    },
    RepositorySummary: {
      type: 'object',
      required: ['repository', 'uploads', 'last_upload_at', 'latest', 'by_kind'],
      additionalProperties: false,
      properties: {
        repository: { type: 'string', description: 'Canonical repository name.' },
        uploads: { type: 'integer', minimum: 1, description: 'Uploads kept for it.' },
        last_upload_at: { ...ISO_TIME, description: 'Time of the latest upload.' },
        latest: ref('UploadSummary'),
        by_kind: {
          type: 'object',
          description: 'The latest upload of each kind: an sca and an audit scan are separate, equally current pictures.',
          required: ['sca', 'audit'],
          additionalProperties: false,
          properties: { sca: { oneOf: [ref('UploadSummary'), { type: 'null' }] }, audit: { oneOf: [ref('UploadSummary'), { type: 'null' }] } },
        },
      },
    },
    RepositoryList: {
      type: 'object',
      required: ['repositories'],
      additionalProperties: false,
      properties: { repositories: { type: 'array', items: ref('RepositorySummary'), description: 'Sorted by name.' } },
    },
    StoredFinding: {
      description: 'A finding as stored, normalized from shield JSON or SARIF.',
      type: 'object',
      required: ['fingerprint', 'rule', 'severity', 'title', 'message', 'file', 'line', 'package', 'version', 'ecosystem', 'advisory_id', 'cvss', 'url'],
      additionalProperties: false,
      properties: {
        fingerprint: { type: 'string', description: 'Stable id of the finding across scans.' },
        rule: { type: 'string' },
        severity: { enum: ['critical', 'high', 'medium', 'low', 'info'] },
        title: { type: 'string', maxLength: 200 },
        message: { type: ['string', 'null'], maxLength: 4000 },
        file: { type: ['string', 'null'], maxLength: 1024 },
        line: { type: ['integer', 'null'], minimum: 1 },
        package: { type: ['string', 'null'] },
        version: { type: ['string', 'null'] },
        ecosystem: { type: ['string', 'null'] },
        advisory_id: { type: ['string', 'null'] },
        cvss: { type: ['number', 'null'], minimum: 0, maximum: 10 },
        url: { type: ['string', 'null'], maxLength: 2048 },
      },
    },
    RepositoryFindings: {
      type: 'object',
      required: ['repository', 'upload', 'findings'],
      additionalProperties: false,
      properties: {
        repository: { type: 'string' },
        upload: ref('UploadSummary'),
        findings: { type: 'array', items: ref('StoredFinding'), description: 'Most severe first, at most `limit`.' },
      },
    },
    ApiKey: { type: 'object', required: Object.keys(keyProps), additionalProperties: false, properties: keyProps },
    NewApiKey: {
      description: 'A new key: the only time the key itself is shown.',
      type: 'object',
      required: [...Object.keys(keyProps), 'key'],
      additionalProperties: false,
      properties: { ...keyProps, key: { type: 'string', pattern: '^shk_[A-Za-z0-9_-]{43}$', description: 'The API key. Store it now: only its hash is kept.' } },
    },
    ApiKeyList: {
      type: 'object',
      required: ['keys'],
      additionalProperties: false,
      properties: { keys: { type: 'array', items: ref('ApiKey'), description: 'Every key, revoked ones included, oldest first.' } },
    },
    Member: {
      type: 'object',
      required: ['account_id', 'email', 'role', 'created_at'],
      additionalProperties: false,
      properties: { account_id: { type: 'integer', minimum: 1 }, email: { type: 'string', maxLength: 320 }, role, created_at: { ...ISO_TIME, description: 'When the account joined the workspace.' } },
    },
    MemberList: {
      type: 'object',
      required: ['members'],
      additionalProperties: false,
      properties: { members: { type: 'array', items: ref('Member') } },
    },
    NewMember: {
      type: 'object',
      required: ['account_id', 'email', 'role'],
      additionalProperties: false,
      properties: {
        account_id: { type: 'integer', minimum: 1 },
        email: { type: 'string', maxLength: 320 },
        role,
        password: { type: 'string', pattern: '^[A-Za-z0-9_-]{32}$', description: 'Only when the email had no account yet: the generated password of the new account, shown once, for the owner to pass on.' },
      },
    },
    DeviceForm: {
      description: 'The form of the /device page (JSON with the same fields is accepted too).',
      type: 'object',
      required: ['user_code'],
      properties: {
        user_code: { type: 'string', maxLength: 32, description: 'The code shown by `shield login`: 8 letters of `BCDFGHJKMNPQRSTVWXZ`, any case, `-` or spaces allowed.' },
        action: { enum: ['approve', 'deny'], description: 'Absent: show the approval form.' },
        workspace_id: { ...UUID, description: 'Required to approve: the workspace the token will reach.' },
        email: { type: 'string', minLength: 1, maxLength: 320, description: 'Sign in with this request (when there is no session).' },
        password: { type: 'string', minLength: 1, maxLength: 1024 },
        _csrf: { type: 'string', description: 'The CSRF token (or send `x-csrf-token`).' },
      },
    },
    Health: {
      type: 'object',
      required: ['status', 'version'],
      additionalProperties: false,
      properties: { status: { const: 'ok' }, version: { type: 'string', description: 'Version of the control plane.' } },
    },
  };
}

// ---- paths ---------------------------------------------------------------------------------

function paths() {
  const bodyErrors = {
    '413': errorResponse('`payload_too_large`: the body is over 64 KiB (JSON) or 16 KiB (form); a form of more than 20 fields; or `too_large` from shield() for a body nested deeper or larger than it walks.', { blocked: true }),
    '415': errorResponse('`invalid_request`: a body with an unsupported charset or Content-Encoding.'),
  };
  const unauthorized = responseRef('Unauthorized');
  const workspaceForbidden = (who) => errorResponse(`\`forbidden\`: ${who}; or ${BLOCKED_403}.`, { blocked: true });
  const workspaceWriteForbidden = errorResponse(`\`forbidden\`: not an owner of this workspace, or a bearer credential instead of a session; or ${CSRF_403}; or ${BLOCKED_403}.`, { blocked: true });
  const notFoundWorkspace = errorResponse('`not_found`: no such workspace (or the id is not a UUID).');
  const READ_WHO = 'an API key (keys only send), a token of another workspace, or a signed-in account that is not a member';
  const ADMIN_DESC = 'Owners only, with a dashboard session and the CSRF token.';
  const formOrJson = (schema) => ({ 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } });

  return {
    '/': {
      get: operation({
        operationId: 'getHome',
        tags: ['meta'],
        summary: 'Home page',
        description: 'A small HTML page: the version running and where the API, this document and the device approval page are.',
        security: SECURITY.none,
        responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
      }),
    },
    '/healthz': {
      get: operation({
        operationId: 'getHealth',
        tags: ['meta'],
        summary: 'Health check',
        description: 'Answers as long as the process serves HTTP; does not touch the store.',
        security: SECURITY.none,
        responses: { '200': { description: 'Running.', content: json(ref('Health')) } },
      }),
    },
    '/v1/openapi.json': {
      get: operation({
        operationId: 'getOpenApi',
        tags: ['meta'],
        summary: 'This document',
        description: 'The OpenAPI 3.1 description of this control plane.',
        security: SECURITY.none,
        responses: { '200': { description: 'The OpenAPI document.', content: json({
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
        }) } },
      }),
    },

    // ---- auth ----
    '/v1/auth/login': {
      post: operation({
        operationId: 'login',
        tags: ['auth'],
        summary: 'Sign in',
        description: 'Checks email and password (scrypt) and sets the session cookie. Needs the CSRF cookie and token like any cookie request: get them from `GET /v1/auth/csrf` first. Failed attempts count per (email, address) (10, then one every 90 s), per address (50, then one every 6 s) and per email from anywhere (100, then one every 10 s); a success clears its (email, address) count, so failures elsewhere never lock the owner out. An unknown email costs the same time as a wrong password.',
        security: [{ csrfToken: [] }],
        requestBody: {
          required: true,
          content: formOrJson({
            type: 'object',
            required: ['email', 'password'],
            properties: {
              email: { type: 'string', minLength: 1, maxLength: 320, description: 'The account\'s email (ASCII case is ignored).' },
              password: { type: 'string', minLength: 1, maxLength: 1024, description: 'Never scanned or stored, only verified.' },
            },
          }),
        },
        responses: {
          '200': {
            description: 'Signed in. The answer holds the CSRF token to send from now on.',
            headers: { 'Set-Cookie': headerRef('SetSessionCookie') },
            content: json(ref('Session')),
          },
          '400': errorResponse('`invalid_request`: `email` or `password` missing, empty, not a string or too long (`field` names it); `invalid_json`.'),
          '401': errorResponse('`invalid_credentials`: the email or the password is wrong (which one is not said).'),
          '403': errorResponse(`${CSRF_403}; or ${BLOCKED_403}.`, { blocked: true }),
          ...bodyErrors,
          '429': responseRef('TooManyRequests'),
        },
      }),
    },
    '/v1/auth/logout': {
      post: operation({
        operationId: 'logout',
        tags: ['auth'],
        summary: 'Sign out',
        description: 'Deletes the session and clears its cookie.',
        security: SECURITY.sessionWrite,
        responses: {
          '204': { description: 'Signed out.', headers: { 'Set-Cookie': { description: 'The session cookie, emptied with `Max-Age=0`.', schema: { type: 'string' } } } },
          '401': unauthorized,
          '403': errorResponse(`\`forbidden\`: the request authenticated with a bearer credential instead of a session; or ${CSRF_403}; or ${BLOCKED_403}.`, { blocked: true }),
        },
      }),
    },
    '/v1/auth/password': {
      post: operation({
        operationId: 'changePassword',
        tags: ['auth'],
        summary: 'Change the password',
        description: 'Checks the current password and sets a new one (at least 12 characters). Every other session of the account and every `shield login` token of it end; this session stays. Failed attempts count against the sign-in limits.',
        security: SECURITY.sessionWrite,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['current_password', 'new_password'],
            properties: {
              current_password: { type: 'string', minLength: 1, maxLength: 1024 },
              new_password: { type: 'string', minLength: 12, maxLength: 1024 },
            },
          }),
        },
        responses: {
          '204': { description: 'Changed.' },
          '400': errorResponse('`invalid_request`: a field missing, too long, or `new_password` shorter than 12 characters (`field` names it).'),
          '401': unauthorized,
          '403': errorResponse(`\`invalid_credentials\` (field \`current_password\`): the current password is wrong; \`forbidden\`: a bearer credential instead of a session; or ${CSRF_403}; or ${BLOCKED_403}.`, { blocked: true }),
        },
      }),
    },
    '/v1/auth/session': {
      get: operation({
        operationId: 'getSession',
        tags: ['auth'],
        summary: 'Current session',
        description: 'The signed-in account, its workspaces and a CSRF token: what a dashboard loads first.',
        security: SECURITY.session,
        responses: {
          '200': { description: 'The session.', content: json(ref('Session')) },
          '401': unauthorized,
          '403': errorResponse(`\`forbidden\`: the request authenticated with a bearer credential instead of a session; or ${BLOCKED_403}.`, { blocked: true }),
        },
      }),
    },
    '/v1/auth/csrf': {
      get: operation({
        operationId: 'getCsrfToken',
        tags: ['auth'],
        summary: 'CSRF token',
        description: 'The CSRF token, and (when the request had no valid CSRF cookie) the signed cookie it must match. Send the token as `x-csrf-token` with cookie-authenticated POST, PATCH and DELETE requests, sign-in included.',
        security: SECURITY.none,
        responses: {
          '200': {
            description: 'The token.',
            headers: { 'Set-Cookie': { description: 'The CSRF cookie `shield.csrf` (`__Host-shield.csrf` over https): HttpOnly, SameSite=Strict, Path=/. Set only when the request had no valid one.', schema: { type: 'string' } } },
            content: json(ref('CsrfToken')),
          },
        },
      }),
    },

    // ---- device login ----
    '/v1/auth/device': {
      post: operation({
        operationId: 'startDeviceAuthorization',
        tags: ['device'],
        summary: 'Start a device login',
        description: 'RFC 8628 section 3.1: `shield login` asks for a device code and a user code, shows the user code and opens `verification_uri_complete`; the user approves on /device while signed in. No client id or body is needed (a body, if sent, is ignored). Exempt from CSRF.',
        security: SECURITY.none,
        responses: {
          '200': { description: 'The codes.', content: json(ref('DeviceAuthorization')) },
          '400': errorResponse('`invalid_json`: a body that is not valid JSON.'),
          '503': { description: '`unavailable`: 1,000 logins are already pending; retry after `Retry-After` (60 s).', headers: { 'Retry-After': headerRef('RetryAfter') }, content: json(ref('Error')) },
          ...bodyErrors,
        },
      }),
    },
    '/v1/auth/token': {
      post: operation({
        operationId: 'exchangeDeviceCode',
        tags: ['device'],
        summary: 'Poll for the access token',
        description: 'RFC 8628 section 3.4: the CLI polls with its device code, no faster than `interval` seconds, until the user approved (200 with a token, once), denied, or the code expired. Every answer carries `Cache-Control: no-store`. A device code is exchanged at most once. Exempt from CSRF.',
        security: SECURITY.none,
        requestBody: {
          required: true,
          content: formOrJson({
            type: 'object',
            required: ['grant_type', 'device_code'],
            properties: {
              grant_type: { const: 'urn:ietf:params:oauth:grant-type:device_code' },
              device_code: { type: 'string', maxLength: 100, description: 'The `device_code` of `POST /v1/auth/device`.' },
            },
          }),
        },
        responses: {
          '200': {
            description: 'Approved: the access token.',
            headers: { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string', const: 'no-store' } } },
            content: json(ref('AccessToken')),
          },
          '400': {
            description: 'Not (yet) a token: an RFC 8628 error (`authorization_pending`, `slow_down`, `expired_token`, `access_denied`, `invalid_grant`, `unsupported_grant_type`, `invalid_request`; see `OAuthError`), or `invalid_json` with the common error body.',
            headers: { 'Cache-Control': { description: '`no-store` (absent on `invalid_json`, which is answered before the route runs).', schema: { type: 'string', const: 'no-store' } } },
            content: json({ oneOf: [ref('OAuthError'), ref('Error')] }),
          },
          ...bodyErrors,
        },
      }),
    },
    '/device': {
      get: operation({
        operationId: 'getDevicePage',
        tags: ['device'],
        summary: 'Device approval page (HTML)',
        description: 'Where `verification_uri` points. Signed in: a form to pick a workspace and approve or deny the code. Not signed in: a form asking for the code, email and password. Issues the CSRF cookie its forms need.',
        security: [{}, ...SECURITY.session],
        parameters: [{
          name: 'user_code',
          in: 'query',
          required: false,
          description: 'Prefills the code. Case and `-` or space separators are ignored; anything that is not 8 letters of the code alphabet is dropped silently.',
          schema: { type: 'string', maxLength: 32 },
        }],
        responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
      }),
      post: operation({
        operationId: 'submitDevicePage',
        tags: ['device'],
        summary: 'Approve or deny a device login (HTML form)',
        description: 'The form of /device. Without a session, `email` and `password` sign in first (same limits as `POST /v1/auth/login`; the session cookie is set). Without `action`, answers the approval form; with `action`, approves (for `workspace_id`, which the account must be a member of) or denies the pending code. Successes are HTML pages; errors are JSON.',
        security: [...SECURITY.sessionWrite, { csrfToken: [] }],
        requestBody: {
          required: true,
          content: formOrJson(ref('DeviceForm')),
        },
        responses: {
          '200': {
            description: 'The approval form, or the page saying the device was approved or denied.',
            headers: { 'Set-Cookie': { description: 'The session cookie, when this request signed in.', schema: { type: 'string' } } },
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          '400': errorResponse('`invalid_request`: `user_code` is not a code, or `action` is neither approve nor deny, or `email`/`password` malformed; `invalid_user_code`: the code is unknown, expired or already decided (each such answer costs one of 10 tries per account and per address, refilled one a minute; then 429); `invalid_json`.'),
          '401': errorResponse('`unauthorized`: not signed in and no email given, or a malformed `Authorization` header; `invalid_credentials`: the email or password is wrong.'),
          '403': errorResponse(`\`forbidden\`: approving for a workspace the account is not a member of; or ${CSRF_403}; or ${BLOCKED_403}.`, { blocked: true }),
          ...bodyErrors,
          '429': responseRef('TooManyRequests'),
        },
      }),
    },

    // ---- ingest ----
    '/v1/events': {
      post: operation({
        operationId: 'ingestEvents',
        tags: ['ingest'],
        summary: 'Send decision events',
        description: 'What the SDKs send: a telemetry envelope (`Envelope`, which a heartbeat of an idle instance also uses) or a bare array of events (`Event`), as JSON, brotli- or gzip-compressed or not. The key authenticates before the body is read. The envelope and every event must name the key\'s own workspace, else nothing is stored (403). Each event is then checked on its own: valid ones are stored in one transaction, on disk before the 202 is sent; invalid ones are listed in `rejected` with their index and reasons. An envelope also updates the fleet record of its `instance_id`; a bare array names no instance and updates none. With an `Idempotency-Key`, a retry of the same body is answered with the first answer and stores nothing.',
        security: SECURITY.apiKey,
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Makes retries safe: the first answer to this key (per workspace) is stored with the batch, and a later request with the same key and the same (inflated) body gets that answer again with `Idempotent-Replayed: true`; the same key with a different body is a 409. Keys are kept about a day. The SDK sends one per batch, the same across retries.',
            schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[!-~]+$' },
          },
          {
            name: 'Content-Encoding',
            in: 'header',
            required: false,
            description: '`br` (brotli, what the Node SDK sends by default; a window of at most 4 MiB) or `gzip` for a compressed body (inflated with a cap: 8 MiB by default); `identity` or absent for plain JSON. Anything else is a 415.',
            schema: { enum: ['br', 'gzip', 'identity'] },
          },
        ],
        requestBody: {
          required: true,
          description: 'Content-Type `application/json` (or any `application/*+json`); at most 4 MiB on the wire and 1,000 events by default.',
          content: json(ref('EventsBody')),
        },
        responses: {
          '202': {
            description: 'The batch was read: `accepted` events are stored, `rejected` lists the refused ones.',
            headers: { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key` and body; nothing new was stored.', schema: { type: 'string', const: 'true' } } },
            content: json(ref('IngestResult')),
          },
          '400': errorResponse('`invalid_json` (not JSON), `invalid_brotli` or `invalid_gzip` (the body is not what Content-Encoding says; brotli declaring a window over 4 MiB is refused unread), `invalid_body` (neither an object nor an array), `invalid_envelope` (an envelope field is wrong: `message` and `field` name the first, `details` lists them as strings, at most 10), `invalid_request` (malformed `Idempotency-Key`).'),
          '401': unauthorized,
          '403': errorResponse(`\`forbidden\`: the caller is a session or an access token (events take an API key), or an API key without the \`events\` scope, or the envelope's or an event's \`workspace_id\` is not the key's workspace (nothing is stored); or ${BLOCKED_403} (the body is never scanned).`, { blocked: true }),
          '409': errorResponse('`idempotency_conflict`: this `Idempotency-Key` was used before with a different body.'),
          '413': errorResponse('`payload_too_large`: over the byte limit on the wire (4 MiB by default) or inflated (8 MiB), or more than 1,000 events. Sent with `Connection: close`.'),
          '415': errorResponse('`unsupported_media_type`: Content-Type is not `application/json` (or `application/*+json`), or Content-Encoding is none of br, gzip and identity (`field` names the header).'),
          '429': responseRef('TooManyRequests'),
          '503': {
            description: '`unavailable`: 64 batches are already in flight (the server is behind), or the writer thread stopped while the batch was being stored; either way nothing of it was acknowledged. Retry with the same `Idempotency-Key` after `Retry-After`.',
            headers: { 'Retry-After': headerRef('RetryAfter') },
            content: json(ref('Error')),
          },
        },
      }),
    },
    '/v1/findings': {
      post: operation({
        operationId: 'uploadFindings',
        tags: ['ingest'],
        summary: 'Upload findings',
        description: 'What `shield sca` and `shield audit` print (`FindingsUpload`, shield\'s own JSON), or a SARIF 2.1.0 log from another scanner. The upload is validated whole, normalized (repository names are made canonical: `https://github.com/acme/shop.git` becomes `github.com/acme/shop`) and stored as a new upload with its findings and inventory. Uploads never change; the read side shows the latest per repository and kind. Not idempotent: a retry stores a second upload.',
        security: SECURITY.ingest,
        parameters: [
          { name: 'repository', in: 'query', required: false, description: 'Repository name (any spelling a git remote uses); overrides the body\'s, and is how a SARIF log without `versionControlProvenance` names one. Empty means absent.', schema: { type: 'string', maxLength: 2048 } },
          { name: 'ref', in: 'query', required: false, description: 'Git ref the scan ran on (at most 256 printable characters, no spaces); overrides the body\'s. Empty means absent.', schema: { type: 'string', maxLength: 256, pattern: '^[!-~]*$' } },
          { name: 'commit', in: 'query', required: false, description: 'Commit id (40 or 64 hex digits); overrides the body\'s. Empty means absent.', schema: { type: 'string', pattern: '^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})?$' } },
          { name: 'kind', in: 'query', required: false, description: '`sca` or `audit`; overrides the body\'s (or, for SARIF, the guess from the tool name). Empty means absent.', schema: { enum: ['sca', 'audit', ''] } },
          {
            name: 'Content-Encoding',
            in: 'header',
            required: false,
            description: '`br` (brotli; a window of at most 4 MiB) or `gzip` for a compressed body (inflated with a cap: 32 MiB by default); `identity` or absent for plain JSON. Anything else is a 415.',
            schema: { enum: ['br', 'gzip', 'identity'] },
          },
        ],
        requestBody: {
          required: true,
          description: 'Content-Type `application/json` (or any `application/*+json`); at most 8 MiB on the wire by default, 50,000 findings and 100,000 inventory packages.',
          content: json({ oneOf: [ref('FindingsUpload'), ref('SarifLog')] }),
        },
        responses: {
          '201': { description: 'Stored.', content: json(ref('FindingsUploadResult')) },
          '400': errorResponse('`invalid_json`, `invalid_brotli`, `invalid_gzip`, or `invalid_findings`: the body or a query parameter is invalid; `message` and `field` name the first problem, `details` lists up to 20 as `{ field, message }`.'),
          '401': unauthorized,
          '403': errorResponse(`\`forbidden\`: the caller is a dashboard session (uploads take an API key or access token), or an API key without the \`findings\` scope, or an access token whose account is no longer a member; or ${BLOCKED_403} (the body is never scanned).`, { blocked: true }),
          '413': errorResponse('`payload_too_large`: over the byte limit on the wire (8 MiB by default) or inflated (32 MiB). Sent with `Connection: close`.'),
          '503': { description: '`unavailable`: two uploads are already being processed (each may inflate to 32 MiB); retry after `Retry-After`.', headers: { 'Retry-After': headerRef('RetryAfter') }, content: json(ref('Error')) },
          '415': errorResponse('`unsupported_media_type`: Content-Type is not `application/json` (or `application/*+json`), or Content-Encoding is none of br, gzip and identity.'),
          '429': responseRef('TooManyRequests'),
        },
      }),
    },

    // ---- workspaces ----
    '/v1/workspaces': {
      get: operation({
        operationId: 'listWorkspaces',
        tags: ['workspaces'],
        summary: 'List workspaces',
        description: 'With a session: every workspace the account is a member of, with its role. With an access token: its one workspace, role `member`.',
        security: SECURITY.read,
        responses: {
          '200': { description: 'The workspaces, oldest first.', content: json(ref('WorkspaceList')) },
          '401': unauthorized,
          '403': workspaceForbidden('an API key (keys only send events and findings)'),
        },
      }),
      post: operation({
        operationId: 'createWorkspace',
        tags: ['workspaces'],
        summary: 'Create a workspace',
        description: 'Any signed-in account may create one; it becomes its owner. Fields other than `name` and `retention_days` are refused.',
        security: SECURITY.sessionWrite,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['name'],
            properties: {
              name: NAME_FIELD,
              retention_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'Days to keep events and uploads (default: the server\'s, 30).' },
            },
          }),
        },
        responses: {
          '201': { description: 'Created.', content: json(ref('WorkspaceWithRole')) },
          '400': errorResponse('`invalid_request`: `name` or `retention_days` invalid (`field` names it); `invalid_json`.'),
          '401': unauthorized,
          '403': errorResponse(`\`forbidden\`: a bearer credential instead of a session; or ${CSRF_403}; or ${BLOCKED_403}.`, { blocked: true }),
          ...bodyErrors,
        },
      }),
    },
    '/v1/workspaces/{workspace}': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'getWorkspace',
        tags: ['workspaces'],
        summary: 'Get a workspace',
        description: 'Members and access tokens of the workspace.',
        security: SECURITY.read,
        responses: {
          '200': { description: 'The workspace.', content: json(ref('Workspace')) },
          '401': unauthorized,
          '403': workspaceForbidden(READ_WHO),
          '404': notFoundWorkspace,
        },
      }),
      patch: operation({
        operationId: 'updateWorkspace',
        tags: ['workspaces'],
        summary: 'Change a workspace',
        description: `Rename it or change its retention (shorter retention applies at the next hourly sweep). ${ADMIN_DESC}`,
        security: SECURITY.sessionWrite,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            additionalProperties: false,
            properties: {
              name: NAME_FIELD,
              retention_days: { type: 'integer', minimum: 1, maximum: 3650 },
            },
          }),
        },
        responses: {
          '200': { description: 'The workspace after the change (an empty object changes nothing).', content: json(ref('Workspace')) },
          '400': errorResponse('`invalid_request`: the body is not a JSON object, has a field other than `name` and `retention_days`, or one of them is invalid (`field` names it); `invalid_json`.'),
          '401': unauthorized,
          '403': workspaceWriteForbidden,
          '404': notFoundWorkspace,
          ...bodyErrors,
        },
      }),
    },
    '/v1/workspaces/{workspace}/overview': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'getOverview',
        tags: ['read'],
        summary: 'Overview',
        description: 'Allowed and denied requests per UTC day, and the top attack classes, rules, routes and client address hashes by denied requests, over whole days from `from` to `to` (both inclusive), from the rollups. Unknown query parameters are a 400.',
        security: SECURITY.read,
        parameters: [
          { name: 'from', in: 'query', required: false, description: 'First UTC day, `YYYY-MM-DD` (default: 29 days before `to`, so 30 days in all). Must not be after `to`.', schema: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } },
          { name: 'to', in: 'query', required: false, description: 'Last UTC day, `YYYY-MM-DD` (default: today, UTC).', schema: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } },
          { name: 'app', in: 'query', required: false, description: 'Only this `app_id` (exact match).', schema: { type: 'string', minLength: 1, maxLength: 128 } },
          { name: 'limit', in: 'query', required: false, description: 'Entries in each top list.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
        ],
        responses: {
          '200': { description: 'The overview.', content: json(ref('Overview')) },
          '400': errorResponse('`invalid_request`: a parameter is malformed, out of range, given twice or unknown, or `from` is after `to` (`field` names it).'),
          '401': unauthorized,
          '403': workspaceForbidden(READ_WHO),
          '404': notFoundWorkspace,
        },
      }),
    },
    '/v1/workspaces/{workspace}/events': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'listEvents',
        tags: ['read'],
        summary: 'Events feed',
        description: 'Stored events, newest first, a page at a time; filters combine (AND) and match exactly. Filters other than time scan the time range newest first: narrow it with `from`/`to` for rare values on large workspaces. Unknown query parameters are a 400.',
        security: SECURITY.read,
        parameters: [
          { name: 'from', in: 'query', required: false, description: 'Events at or after this time (inclusive). An ISO 8601 date-time with `Z` or an offset, seconds and fraction optional, such as `2025-05-01T12:00:00Z`; anything else is a 400.', schema: { type: 'string', maxLength: 40, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$', examples: ['2025-05-01T00:00:00Z'] } },
          { name: 'to', in: 'query', required: false, description: 'Events before this time (exclusive). Same format as `from`.', schema: { type: 'string', maxLength: 40, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2})$', examples: ['2025-05-02T00:00:00Z'] } },
          { name: 'limit', in: 'query', required: false, description: 'Events per page.', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
          { name: 'cursor', in: 'query', required: false, description: 'Opaque: the `next_cursor` of the previous page (use the same filters). Anything else is a 400.', schema: { type: 'string', maxLength: 64 } },
          { name: 'decision', in: 'query', required: false, description: 'Only allows or only denies.', schema: { enum: ['allow', 'deny'] } },
          { name: 'vector', in: 'query', required: false, description: 'Attack class, e.g. `xss`, or `none`.', schema: { type: 'string', minLength: 1, maxLength: 128 } },
          { name: 'rule', in: 'query', required: false, description: 'Rule id, e.g. `patterns.xss.script-tag`.', schema: { type: 'string', minLength: 1, maxLength: 128 } },
          { name: 'route', in: 'query', required: false, description: 'Route template as the SDK reported it, e.g. `/users/:id`.', schema: { type: 'string', minLength: 1, maxLength: 2048 } },
          { name: 'method', in: 'query', required: false, description: 'HTTP method, upper case (matching is case-sensitive).', schema: { type: 'string', minLength: 1, maxLength: 128 } },
          { name: 'ip_hash', in: 'query', required: false, description: 'Client address hash, 64 hex digits (a value that is not hex matches nothing).', schema: { type: 'string', minLength: 1, maxLength: 128 } },
          { name: 'app', in: 'query', required: false, description: 'Only this `app_id`.', schema: { type: 'string', minLength: 1, maxLength: 128 } },
        ],
        responses: {
          '200': { description: 'One page of events.', content: json(ref('EventPage')) },
          '400': errorResponse('`invalid_request`: a parameter is malformed, out of range, given twice or unknown, or the cursor is not one this API returned (`field` names it).'),
          '401': unauthorized,
          '403': workspaceForbidden(READ_WHO),
          '404': notFoundWorkspace,
        },
      }),
    },
    '/v1/workspaces/{workspace}/fleet': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'getFleet',
        tags: ['read'],
        summary: 'Fleet',
        description: 'Every SDK instance (process) that sent an envelope to this workspace, most recently seen first, with its counters and whether it is still active.',
        security: SECURITY.read,
        responses: {
          '200': { description: 'The instances.', content: json(ref('Fleet')) },
          '401': unauthorized,
          '403': workspaceForbidden(READ_WHO),
          '404': notFoundWorkspace,
        },
      }),
    },
    '/v1/workspaces/{workspace}/findings': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'getFindings',
        tags: ['read'],
        summary: 'Findings',
        description: 'Without `repository`: every repository with uploads, with its latest upload overall and per kind (`RepositoryList`). With `repository`: the findings of one upload of it, most severe first (`RepositoryFindings`): the upload `upload_id`, else the latest (of `kind` when given). Unknown query parameters are refused.',
        security: SECURITY.read,
        parameters: [
          { name: 'repository', in: 'query', required: false, description: 'Repository name, normalized as uploads are (`https://github.com/acme/shop.git` and `git@github.com:acme/shop` are `github.com/acme/shop`).', schema: { type: 'string', minLength: 1, maxLength: 512 } },
          { name: 'kind', in: 'query', required: false, description: 'With `repository`: the latest upload of this kind.', schema: { enum: ['sca', 'audit'] } },
          { name: 'upload_id', in: 'query', required: false, description: 'With `repository`: this upload instead of the latest.', schema: { type: 'integer', minimum: 1, maximum: MAX_SAFE } },
          { name: 'limit', in: 'query', required: false, description: 'With `repository`: findings to return.', schema: { type: 'integer', minimum: 1, maximum: 5000, default: 1000 } },
        ],
        responses: {
          '200': { description: 'The repositories, or the findings of one repository.', content: json({ oneOf: [ref('RepositoryList'), ref('RepositoryFindings')] }) },
          '400': errorResponse('`invalid_request`: `repository` empty, too long or not a repository name; `upload_id`, `kind` or `limit` malformed, out of range or given without `repository`; an unknown query parameter (`field` names it).'),
          '401': unauthorized,
          '403': workspaceForbidden(READ_WHO),
          '404': errorResponse('`not_found`: no such workspace, or no uploads for this repository (or no upload `upload_id` of it).'),
        },
      }),
    },

    // ---- keys ----
    '/v1/workspaces/{workspace}/keys': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'listKeys',
        tags: ['keys'],
        summary: 'List API keys',
        description: 'Every key of the workspace, revoked ones included; never the keys themselves. Owners only, with a dashboard session.',
        security: SECURITY.session,
        responses: {
          '200': { description: 'The keys.', content: json(ref('ApiKeyList')) },
          '401': unauthorized,
          '403': workspaceForbidden('not an owner of this workspace, or a bearer credential (access tokens cannot administer)'),
          '404': notFoundWorkspace,
        },
      }),
      post: operation({
        operationId: 'createKey',
        tags: ['keys'],
        summary: 'Create an API key',
        description: `A new key for SDKs (\`SHIELD_KEY\`) and CI uploads. The answer is the only time the key is shown. ${ADMIN_DESC}`,
        security: SECURITY.sessionWrite,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['name'],
            properties: { name: NAME_FIELD, scopes: KEY_SCOPES_SCHEMA },
          }),
        },
        responses: {
          '201': { description: 'Created.', content: json(ref('NewApiKey')) },
          '400': errorResponse('`invalid_request`: the body is not a JSON object or `name` is invalid; `invalid_json`.'),
          '401': unauthorized,
          '403': workspaceWriteForbidden,
          '404': notFoundWorkspace,
          ...bodyErrors,
        },
      }),
    },
    '/v1/workspaces/{workspace}/keys/{key}': {
      parameters: [
        paramRef('workspace'),
        { name: 'key', in: 'path', required: true, description: 'The key\'s `id` (`key_...`), not the key itself.', schema: { type: 'string', examples: ['key_0123456789abcdef'] } },
      ],
      delete: operation({
        operationId: 'revokeKey',
        tags: ['keys'],
        summary: 'Revoke an API key',
        description: `The key stops working at once (401 \`unauthorized\` on its next use); it stays listed with \`revoked_at\`. ${ADMIN_DESC}`,
        security: SECURITY.sessionWrite,
        responses: {
          '204': { description: 'Revoked.' },
          '401': unauthorized,
          '403': workspaceWriteForbidden,
          '404': errorResponse('`not_found`: no such workspace, or no active key with this id in it (already revoked included).'),
        },
      }),
    },

    // ---- members ----
    '/v1/workspaces/{workspace}/members': {
      parameters: [paramRef('workspace')],
      get: operation({
        operationId: 'listMembers',
        tags: ['members'],
        summary: 'List members',
        description: 'Accounts of the workspace with their roles, in the order they joined. Members and access tokens of the workspace.',
        security: SECURITY.read,
        responses: {
          '200': { description: 'The members.', content: json(ref('MemberList')) },
          '401': unauthorized,
          '403': workspaceForbidden(READ_WHO),
          '404': notFoundWorkspace,
        },
      }),
      post: operation({
        operationId: 'addMember',
        tags: ['members'],
        summary: 'Add a member or change a role',
        description: `Adds the account with this email, or sets the role of an existing member; the last owner cannot be made a member (409 \`last_owner\`). Accounts are global, so only an administrator (the bootstrap owner) may name an email that has no account yet: the account is then created and its generated password returned once, to be changed at first sign-in. Removing a member ends its access tokens for this workspace. ${ADMIN_DESC}`,
        security: SECURITY.sessionWrite,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            required: ['email'],
            properties: {
              email: { type: 'string', maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$', description: 'One `@` with something on each side, no whitespace; matched against existing accounts ignoring ASCII case.' },
              role: { enum: ['owner', 'member'], default: 'member' },
            },
          }),
        },
        responses: {
          '201': { description: 'Added (or the role was set).', content: json(ref('NewMember')) },
          '400': errorResponse('`invalid_request`: the body is not a JSON object, `email` is not an address or `role` is neither owner nor member; `invalid_json`.'),
          '401': unauthorized,
          '403': workspaceWriteForbidden,
          '404': errorResponse('`not_found`: no such workspace; `no_such_account` (field `email`): no account has this email and the caller is not an administrator.'),
          '409': errorResponse('`last_owner`: this would leave the workspace without an owner.'),
          ...bodyErrors,
        },
      }),
    },
    '/v1/workspaces/{workspace}/members/{account}': {
      parameters: [
        paramRef('workspace'),
        { name: 'account', in: 'path', required: true, description: 'The member\'s `account_id` (decimal digits, at most 16).', schema: { type: 'integer', minimum: 1, maximum: MAX_SAFE } },
      ],
      delete: operation({
        operationId: 'removeMember',
        tags: ['members'],
        summary: 'Remove a member',
        description: `Removes the account from the workspace (the account itself stays). The last owner cannot be removed. ${ADMIN_DESC}`,
        security: SECURITY.sessionWrite,
        responses: {
          '204': { description: 'Removed.' },
          '400': errorResponse('`invalid_request`: `account` is not a positive integer.'),
          '401': unauthorized,
          '403': workspaceWriteForbidden,
          '404': errorResponse('`not_found`: no such workspace, or the account is not a member of it.'),
          '409': errorResponse('`last_owner`: the account is the workspace\'s only owner.'),
        },
      }),
    },
  };
}
