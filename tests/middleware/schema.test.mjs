// schema/event.schema.json and schema/envelope.schema.json: they compile (ajv, draft 2020-12,
// strict mode), accept what the SDK sends and refuse each kind of bad event, and the event schema
// has exactly the fields of middleware/event.ts's DecisionEvent.

import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { SDK_NAME, SDK_VERSION, VECTORS, LOCAL_WORKSPACE_ID } from '../../dist/middleware/event.js';

const root = new URL('../../', import.meta.url);
const eventSchema = JSON.parse(readFileSync(new URL('schema/event.schema.json', root), 'utf8'));
const envelopeSchema = JSON.parse(readFileSync(new URL('schema/envelope.schema.json', root), 'utf8'));

// ajv-formats is not a dependency: the two formats the schemas use, as simple anchored regexes.
function makeAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat(
    'date-time',
    /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/i,
  );
  ajv.addSchema(eventSchema);
  return ajv;
}
const ajv = makeAjv();
const validateEvent = ajv.getSchema(eventSchema.$id);
const validateEnvelope = ajv.compile(envelopeSchema);

// A DecisionEvent with every field of middleware/event.ts, optional ones included.
const GOOD = Object.freeze({
  workspace_id: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  app_id: 'checkout',
  sdk: SDK_NAME,
  sdk_version: SDK_VERSION,
  decision: 'deny',
  vector: 'xss',
  rule: 'patterns.xss.script-tag',
  matched: '<script>alert(1)</script>',
  route: '/users/:id',
  method: 'POST',
  ip_hash: '0123456789abcdef'.repeat(4),
  timestamp: '2025-03-04T05:06:07.089Z',
  action: 'blocked',
  ip: '203.0.113.7',
});

const REQUIRED = ['workspace_id', 'app_id', 'sdk', 'sdk_version', 'decision', 'vector', 'rule', 'matched', 'route', 'method', 'ip_hash', 'timestamp'];

function without(obj, key) {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

function envelope(over = {}) {
  return {
    sdk: SDK_NAME,
    sdk_version: SDK_VERSION,
    app_id: 'checkout',
    workspace_id: GOOD.workspace_id,
    instance_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    kind: 'events',
    sent_at: '2025-03-04T05:06:08.000Z',
    dropped: 0,
    events: [GOOD],
    ...over,
  };
}

describe('schemas compile', () => {
  it('both compile with ajv 2020 in strict mode, with the expected $ids', () => {
    expect(eventSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(eventSchema.$id).toBe('https://shield.dev/schema/event.schema.json');
    expect(envelopeSchema.$id).toBe('https://shield.dev/schema/envelope.schema.json');
    expect(typeof validateEvent).toBe('function');
    expect(typeof validateEnvelope).toBe('function');
  });
});

describe('event schema', () => {
  it('accepts a full event, one without the optional fields, the nil workspace and a clean allow', () => {
    for (const ev of [
      GOOD,
      without(without(GOOD, 'ip'), 'action'),
      { ...GOOD, workspace_id: LOCAL_WORKSPACE_ID },
      { ...GOOD, decision: 'allow', vector: 'none', rule: 'none', matched: '', action: 'passed' },
      { ...GOOD, matched: 'x'.repeat(80) },
      { ...GOOD, matched: '😀'.repeat(80) }, // 80 code points, 160 UTF-16 units
      { ...GOOD, vector: 'some_future_vector', rule: 'patterns.some_future_vector.new-rule' },
      { ...GOOD, method: 'M-SEARCH', ip: '2001:db8::1', sdk_version: '1.6.0-beta.2' },
    ]) {
      expect(validateEvent(ev), JSON.stringify(validateEvent.errors)).toBe(true);
    }
  });

  const BAD = [
    ...REQUIRED.map((f) => [`missing ${f}`, without(GOOD, f)]),
    ['an extra field', { ...GOOD, body: 'the request body' }],
    ['matched of 81 characters', { ...GOOD, matched: 'x'.repeat(81) }],
    ['matched of 81 code points', { ...GOOD, matched: '😀'.repeat(81) }],
    ['route with a query string', { ...GOOD, route: '/search?q=1' }],
    ['route not starting with /', { ...GOOD, route: 'users/:id' }],
    ['empty route', { ...GOOD, route: '' }],
    ['route over 2048 characters', { ...GOOD, route: `/${'a'.repeat(2048)}` }],
    ['decision "block"', { ...GOOD, decision: 'block' }],
    ['ip_hash in upper case', { ...GOOD, ip_hash: GOOD.ip_hash.toUpperCase() }],
    ['ip_hash of 63 characters', { ...GOOD, ip_hash: GOOD.ip_hash.slice(1) }],
    ['ip_hash that is a raw address', { ...GOOD, ip_hash: '203.0.113.7' }],
    ['vector in upper case', { ...GOOD, vector: 'XSS' }],
    ['vector over 32 characters', { ...GOOD, vector: 'a'.repeat(33) }],
    ['rule without the patterns prefix', { ...GOOD, rule: 'xss.script-tag' }],
    ['rule over 128 characters', { ...GOOD, rule: `patterns.xss.${'a'.repeat(120)}` }],
    ['method in lower case', { ...GOOD, method: 'get' }],
    ['method over 16 characters', { ...GOOD, method: 'A'.repeat(17) }],
    ['timestamp not a date-time', { ...GOOD, timestamp: 'yesterday' }],
    ['timestamp not in UTC', { ...GOOD, timestamp: '2025-03-04T05:06:07.089+02:00' }],
    ['sdk_version not dotted numeric', { ...GOOD, sdk_version: '1.0' }],
    ['workspace_id not a UUID', { ...GOOD, workspace_id: 'workspace-1' }],
    ['empty app_id', { ...GOOD, app_id: '' }],
    ['app_id over 128 characters', { ...GOOD, app_id: 'a'.repeat(129) }],
    ['unknown action', { ...GOOD, action: 'dropped' }],
    ['ip over 45 characters', { ...GOOD, ip: '1'.repeat(46) }],
    ['matched not a string', { ...GOOD, matched: 42 }],
  ];
  it.each(BAD)('refuses %s', (_name, ev) => {
    expect(validateEvent(ev)).toBe(false);
  });

  it("has exactly the fields of middleware/event.ts's DecisionEvent", () => {
    const properties = Object.keys(eventSchema.properties).sort();
    // From a sample object carrying every field...
    expect(Object.keys(GOOD).sort()).toEqual(properties);
    // ...and from the interface's source, with its optional fields.
    const src = readFileSync(new URL('middleware/event.ts', root), 'utf8');
    const body = /export interface DecisionEvent \{([\s\S]*?)\n\}/.exec(src)?.[1];
    expect(body).toBeTruthy();
    const fields = [...body.matchAll(/^\s*([a-z_]+)(\??):/gm)].map((m) => ({ name: m[1], optional: m[2] === '?' }));
    expect(fields.map((f) => f.name).sort()).toEqual(properties);
    // SPEC's 12 fields are required by both; what TS marks optional the schema does not require.
    expect([...eventSchema.required].sort()).toEqual([...REQUIRED].sort());
    for (const f of fields) if (f.optional) expect(eventSchema.required).not.toContain(f.name);
    for (const name of eventSchema.required) expect(fields.find((f) => f.name === name)?.optional).toBe(false);
  });

  it('accepts every vector event.ts knows, and its description lists them', () => {
    for (const vector of VECTORS) {
      expect(validateEvent({ ...GOOD, vector, rule: vector === 'none' ? 'none' : `patterns.${vector}.x` })).toBe(true);
      expect(eventSchema.properties.vector.description).toMatch(new RegExp(`\\b${vector}\\b`));
    }
  });
});

describe('envelope schema', () => {
  it('accepts an events envelope and an empty heartbeat', () => {
    for (const env of [
      envelope(),
      envelope({ kind: 'heartbeat', events: [] }),
      envelope({ dropped: 12345, events: Array.from({ length: 1000 }, () => GOOD) }),
    ]) {
      expect(validateEnvelope(env), JSON.stringify(validateEnvelope.errors)).toBe(true);
    }
  });

  const BAD = [
    ['a heartbeat with events', envelope({ kind: 'heartbeat' })],
    ['an unknown kind', envelope({ kind: 'metrics' })],
    ['1001 events', envelope({ events: Array.from({ length: 1001 }, () => GOOD) })],
    ['a bad event inside', envelope({ events: [GOOD, { ...GOOD, matched: 'x'.repeat(81) }] })],
    ['negative dropped', envelope({ dropped: -1 })],
    ['fractional dropped', envelope({ dropped: 1.5 })],
    ['an extra field', envelope({ hostname: 'web-1' })],
    ['instance_id not a UUID', envelope({ instance_id: 'web-1' })],
    ['sent_at not a date-time', envelope({ sent_at: 'now' })],
    ...['sdk', 'sdk_version', 'app_id', 'workspace_id', 'instance_id', 'kind', 'sent_at', 'dropped', 'events'].map((f) => [
      `missing ${f}`,
      without(envelope(), f),
    ]),
  ];
  it.each(BAD)('refuses %s', (_name, env) => {
    expect(validateEnvelope(env)).toBe(false);
  });

  it("has exactly the fields of middleware/event.ts's TelemetryEnvelope", () => {
    const src = readFileSync(new URL('middleware/event.ts', root), 'utf8');
    const body = /export interface TelemetryEnvelope \{([\s\S]*?)\n\}/.exec(src)?.[1];
    const fields = [...body.matchAll(/^\s*([a-z_]+)(\??):/gm)].map((m) => m[1]).sort();
    expect(fields).toEqual(Object.keys(envelopeSchema.properties).sort());
    expect([...envelopeSchema.required].sort()).toEqual(fields);
  });
});
