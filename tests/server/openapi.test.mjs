// GET /v1/openapi.json against the running app: a structurally sound OpenAPI 3.1 document, the
// same set of routes as the Express router mounts (both ways), and real answers that match the
// response schemas it documents.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startControlPlane, Client, makeEvent, makeEnvelope, postEvents } from './support.mjs';

const DOC_ID = 'https://shield.test/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// OpenAPI's own top-level fields, and its Schema Object extension we use, as annotation
// keywords: the document itself is added to ajv so response schemas resolve their $refs in it.
const OPENAPI_KEYWORDS = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs'];

let cp;
let doc;
let ajv;
let owner;
let ws;

beforeAll(async () => {
  cp = await startControlPlane();
  ws = cp.bootstrap.workspace_id;
  const r = await fetch(`${cp.url}/v1/openapi.json`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await r.json();
  ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const k of OPENAPI_KEYWORDS) ajv.addKeyword(k);
  ajv.addSchema(doc, DOC_ID);
  owner = new Client(cp.url);
  await owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);
});
afterAll(async () => {
  await cp.stop();
});

// ---- helpers -----------------------------------------------------------------------------

const escapePointer = (s) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Resolves a local `#/...` reference in the document; undefined when it leads nowhere. */
function resolvePointer(ref) {
  if (!ref.startsWith('#/')) return undefined;
  let node = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return node;
}

const deref = (node) => (node !== null && typeof node === 'object' && typeof node.$ref === 'string' ? resolvePointer(node.$ref) : node);

/** Every `$ref` string in a value, with where it sits. */
function collectRefs(node, at = '#', out = []) {
  if (Array.isArray(node)) node.forEach((v, i) => collectRefs(v, `${at}/${i}`, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
      else collectRefs(v, `${at}/${escapePointer(k)}`, out);
    }
  }
  return out;
}

/** Every operation of the document as { method, path, op, item }. */
function operations() {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method] !== undefined) out.push({ method, path, op: item[method], item });
  }
  return out;
}

/** The JSON pointer of a documented response body schema (following a components.responses $ref). */
function responseSchemaPointer(method, path, status, type = 'application/json') {
  const response = doc.paths[path]?.[method]?.responses?.[status];
  if (response === undefined) throw new Error(`${method.toUpperCase()} ${path} documents no ${status}`);
  const base = typeof response.$ref === 'string' ? response.$ref.slice(1) : `/paths/${escapePointer(path)}/${method}/responses/${status}`;
  const pointer = `${base}/content/${escapePointer(type)}/schema`;
  if (resolvePointer(`#${pointer}`) === undefined) throw new Error(`${method.toUpperCase()} ${path} ${status} has no ${type} schema`);
  return pointer;
}

const validatorAt = (pointer) => ajv.compile({ $ref: `${DOC_ID}#${pointer.split('/').map(encodeURIComponent).join('/')}` });

/** Asserts `body` matches the documented schema of that answer. */
function expectDocumented(method, path, status, body) {
  const validate = validatorAt(responseSchemaPointer(method, path, status));
  const ok = validate(body);
  expect(ok ? [] : validate.errors, `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(body).slice(0, 400)}`).toEqual([]);
}

/** `METHOD /path/{param}` for every route the Express app mounts. */
function mountedRoutes(stack, prefix = '') {
  const out = [];
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const p of paths) {
        const template = `${prefix}${String(p)}`.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
        for (const [method, on] of Object.entries(layer.route.methods)) if (on) out.push(`${method.toUpperCase()} ${template}`);
      }
    } else if (Array.isArray(layer.handle?.stack)) {
      const mount = layer.slash ? '' : String(layer.rawPath ?? '');
      out.push(...mountedRoutes(layer.handle.stack, prefix + mount));
    }
  }
  return out;
}

// ---- the document --------------------------------------------------------------------------

describe('GET /v1/openapi.json: the document', () => {
  it('is OpenAPI 3.1.0 with the running version, tags and security schemes', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const health = await fetch(`${cp.url}/healthz`).then((r) => r.json());
    expect(doc.info).toMatchObject({ title: 'shield control plane', version: health.version });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['accessToken', 'apiKey', 'csrfToken', 'hostSessionCookie', 'sessionCookie']);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'shield_session' });
    expect(doc.components.securitySchemes.hostSessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: '__Host-shield_session' });
    expect(doc.components.securitySchemes.csrfToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-csrf-token' });
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.accessToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('gives every operation an id, summary, description, known tags, security and responses', () => {
    const ids = new Set();
    const tags = new Set(doc.tags.map((t) => t.name));
    const schemes = new Set(Object.keys(doc.components.securitySchemes));
    const ops = operations();
    expect(ops.length).toBeGreaterThan(0);
    for (const { method, path, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(path, where).toMatch(/^\//);
      expect(typeof op.operationId, where).toBe('string');
      expect(ids.has(op.operationId), `${where}: duplicate operationId`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary?.length, where).toBeGreaterThan(0);
      expect(op.description?.length, where).toBeGreaterThan(0);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const t of op.tags) expect(tags.has(t), `${where}: tag ${t}`).toBe(true);
      expect(Array.isArray(op.security), `${where}: security`).toBe(true);
      for (const requirement of op.security) for (const name of Object.keys(requirement)) expect(schemes.has(name), `${where}: scheme ${name}`).toBe(true);
      const statuses = Object.keys(op.responses ?? {});
      expect(statuses.length, where).toBeGreaterThan(0);
      expect(statuses.some((s) => /^[23]/.test(s)), `${where}: a success answer`).toBe(true);
      for (const s of statuses) {
        expect(s, where).toMatch(/^([1-5][0-9]{2}|[1-5]XX|default)$/);
        expect(typeof deref(op.responses[s])?.description, `${where} ${s}`).toBe('string');
      }
      // every operation can be rate limited; 429 always says when to come back
      expect(deref(op.responses['429'])?.headers?.['Retry-After'], `${where} 429`).toBeDefined();
    }
  });

  it('resolves every $ref inside the document', () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter(({ ref }) => resolvePointer(ref) === undefined);
    expect(broken).toEqual([]);
    // no embedded schema keeps an $id: it would rebase its references away from the document
    expect(JSON.stringify(doc.components.schemas)).not.toMatch(/"\$id"/);
  });

  it('declares every path parameter of each template, and no other', () => {
    for (const { method, path, op, item } of operations()) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), `${method.toUpperCase()} ${path}`).toEqual(inTemplate);
      for (const p of declared) expect(p.required, `${path} {${p.name}}`).toBe(true);
    }
  });

  it('documents exactly the routes the Express app mounts', () => {
    const mounted = new Set(mountedRoutes(cp.app.router.stack));
    const documented = new Set(operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`));
    expect(mounted.size).toBeGreaterThan(20);
    expect([...mounted].filter((r) => !documented.has(r)).sort(), 'mounted but not documented').toEqual([]);
    expect([...documented].filter((r) => !mounted.has(r)).sort(), 'documented but not mounted').toEqual([]);
  });

  it('compiles every request and response schema with strict ajv', () => {
    let n = 0;
    for (const { method, path, op } of operations()) {
      const base = `/paths/${escapePointer(path)}/${method}`;
      for (const type of Object.keys(op.requestBody?.content ?? {})) {
        validatorAt(`${base}/requestBody/content/${escapePointer(type)}/schema`);
        n++;
      }
      for (const status of Object.keys(op.responses)) {
        for (const type of Object.keys(deref(op.responses[status]).content ?? {})) {
          validatorAt(responseSchemaPointer(method, path, status, type));
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(100);
  });
});

describe('the embedded JSON Schemas of schema/', () => {
  const load = (name) => JSON.parse(readFileSync(new URL(`../../schema/${name}`, import.meta.url), 'utf8'));
  const bare = ({ $id, $schema, $comment, ...rest }) => rest;

  it('embeds event, envelope and findings schemas, references rewritten into the document', () => {
    const { schemas } = doc.components;
    expect(bare(schemas.Event)).toEqual(bare(load('event.schema.json')));
    expect(schemas.Envelope.properties.events.items).toEqual({ $ref: '#/components/schemas/Event' });
    const envelope = load('envelope.schema.json');
    envelope.properties.events.items = { $ref: '#/components/schemas/Event' };
    expect(bare(schemas.Envelope)).toEqual(bare(envelope));
    const findings = JSON.stringify(bare(load('findings.schema.json'))).replaceAll('"#/$defs/', '"#/components/schemas/FindingsUpload/$defs/');
    expect(bare(schemas.FindingsUpload)).toEqual(JSON.parse(findings));
  });

  it('the documented POST /v1/events body takes an envelope and a bare array, and refuses other shapes', () => {
    const validate = validatorAt(`/paths/${escapePointer('/v1/events')}/post/requestBody/content/application~1json/schema`);
    expect(validate(makeEnvelope(ws, [makeEvent(ws)]))).toBe(true);
    expect(validate(makeEnvelope(ws, [], { kind: 'heartbeat' }))).toBe(true);
    expect(validate([makeEvent(ws), makeEvent(ws)])).toBe(true);
    expect(validate({ events: [] })).toBe(false);
    expect(validate([makeEvent(ws, { matched: 'x'.repeat(81) })])).toBe(false);
    expect(validate('events')).toBe(false);
  });

  it('the documented POST /v1/findings body takes shield JSON and a SARIF log', () => {
    const validate = validatorAt(`/paths/${escapePointer('/v1/findings')}/post/requestBody/content/application~1json/schema`);
    const shieldUpload = {
      schema_version: '1', kind: 'sca', tool: { name: 'shield', version: '0.1.0' }, repository: { name: 'github.com/acme/shop' },
      generated_at: new Date().toISOString(), findings: [{ id: 'f1', rule: 'GHSA-xxxx-xxxx-xxxx', severity: 'high', title: 'lodash prototype pollution' }],
    };
    expect(validate(shieldUpload)).toBe(true);
    expect(validate({ version: '2.1.0', runs: [{ tool: { driver: { name: 'semgrep' } }, results: [] }] })).toBe(true);
    expect(validate({ ...shieldUpload, schema_version: '2' })).toBe(false);
  });
});

// ---- real answers against the documented schemas -------------------------------------------

describe('real answers match their documented schemas', () => {
  it('POST /v1/events 202 { accepted, rejected }, with a rejected event', async () => {
    const env = makeEnvelope(ws, [makeEvent(ws), makeEvent(ws, { decision: 'allow', vector: 'none', rule: 'none', matched: '', action: 'passed' }), makeEvent(ws, { method: 'get' })]);
    const r = await postEvents(cp.url, cp.bootstrap.api_key, env, { gzip: true, headers: { 'idempotency-key': `openapi-${Date.now()}` } });
    expect(r.status).toBe(202);
    expect(r.json.accepted).toBe(2);
    expect(r.json.rejected.map((x) => x.index)).toEqual([2]);
    expectDocumented('post', '/v1/events', '202', r.json);
  });

  it('400 error bodies: malformed JSON on ingest, a bad query parameter on the feed', async () => {
    const bad = await postEvents(cp.url, cp.bootstrap.api_key, '{"events": [');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid_json', field: 'body' });
    expectDocumented('post', '/v1/events', '400', bad.json);

    const envelope = await postEvents(cp.url, cp.bootstrap.api_key, makeEnvelope(ws, [], { sdk_version: 'one' }));
    expect(envelope.status).toBe(400);
    expect(envelope.json.error).toBe('invalid_envelope');
    expect(Array.isArray(envelope.json.details)).toBe(true);
    expectDocumented('post', '/v1/events', '400', envelope.json);

    const limit = await owner.request('GET', `/v1/workspaces/${ws}/events?limit=0`);
    expect(limit.status).toBe(400);
    expect(limit.json).toMatchObject({ error: 'invalid_request', field: 'limit' });
    expectDocumented('get', '/v1/workspaces/{workspace}/events', '400', limit.json);
  });

  it('GET /v1/workspaces/{workspace}/overview', async () => {
    const r = await owner.request('GET', `/v1/workspaces/${ws}/overview`);
    expect(r.status).toBe(200);
    expect(r.json.totals.deny).toBeGreaterThan(0);
    expect(r.json.top_routes.length).toBeGreaterThan(0);
    expectDocumented('get', '/v1/workspaces/{workspace}/overview', '200', r.json);
  });

  it('the other read answers of a signed-in owner', async () => {
    const cases = [
      ['get', '/v1/auth/session', '/v1/auth/session'],
      ['get', '/v1/auth/csrf', '/v1/auth/csrf'],
      ['get', '/v1/workspaces', '/v1/workspaces'],
      ['get', '/v1/workspaces/{workspace}', `/v1/workspaces/${ws}`],
      ['get', '/v1/workspaces/{workspace}/events', `/v1/workspaces/${ws}/events?limit=1`],
      ['get', '/v1/workspaces/{workspace}/fleet', `/v1/workspaces/${ws}/fleet`],
      ['get', '/v1/workspaces/{workspace}/findings', `/v1/workspaces/${ws}/findings`],
      ['get', '/v1/workspaces/{workspace}/keys', `/v1/workspaces/${ws}/keys`],
      ['get', '/v1/workspaces/{workspace}/members', `/v1/workspaces/${ws}/members`],
      ['get', '/healthz', '/healthz'],
    ];
    for (const [method, template, url] of cases) {
      const r = await owner.request(method.toUpperCase(), url);
      expect(r.status, url).toBe(200);
      expectDocumented(method, template, '200', r.json);
    }
  });

  it('errors of the device login and of a workspace route', async () => {
    const start = await fetch(`${cp.url}/v1/auth/device`, { method: 'POST' });
    expect(start.status).toBe(200);
    const device = await start.json();
    expectDocumented('post', '/v1/auth/device', '200', device);
    const poll = await fetch(`${cp.url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code }),
    });
    expect(poll.status).toBe(400);
    const pending = await poll.json();
    expect(pending.error).toBe('authorization_pending');
    expectDocumented('post', '/v1/auth/token', '400', pending);

    const anonymous = await fetch(`${cp.url}/v1/workspaces/${ws}/overview`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expectDocumented('get', '/v1/workspaces/{workspace}/overview', '401', await anonymous.json());

    const missing = await owner.request('GET', '/v1/workspaces/not-a-uuid/fleet');
    expect(missing.status).toBe(404);
    expectDocumented('get', '/v1/workspaces/{workspace}/fleet', '404', missing.json);
  });
});
