// Checks ingest bodies against the JSON Schemas the middleware emits by (schema/): the
// envelope's own fields as a whole, then each event on its own, so one bad event is reported
// by index and the rest are still stored.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadSchema } from '../schemas.js';
import { fieldOf, pointerSegments } from '../ajv-errors.js';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv, ['uuid', 'date-time']);
const eventSchema = loadSchema('event.schema.json');
const envelopeSchema = loadSchema('envelope.schema.json');
ajv.addSchema(eventSchema);
const checkEvent = ajv.compile(eventSchema);
// The envelope without its events: they are checked one by one below.
const checkEnvelope = ajv.compile({
  ...envelopeSchema,
  $id: 'https://shield.dev/schema/envelope-fields.json',
  properties: { ...envelopeSchema.properties, events: { type: 'array', maxItems: envelopeSchema.properties.events.maxItems } },
});

export const MAX_EVENTS = envelopeSchema.properties.events.maxItems;

/**
 * ajv errors -> { field, message } (at most 10), the field a path such as `events[3].timestamp`
 * (`body` for the whole), the message starting with it.
 * @returns {{ field: string, message: string }[]}
 */
function describeErrors(errors) {
  const out = [];
  for (const e of errors ?? []) {
    const path = pointerSegments(e.instancePath);
    if (e.keyword === 'required') path.push(String(e.params.missingProperty));
    const field = fieldOf(path);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') message = 'is required';
    else if (e.keyword === 'additionalProperties') {
      const key = String(e.params.additionalProperty);
      message = `has an unknown field ${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}`;
    } else if (e.keyword === 'enum') message = `must be one of ${e.params.allowedValues.join(', ')}`;
    out.push({ field, message: `${field} ${message}` });
    if (out.length >= 10) break;
  }
  return out;
}

/** @returns {{ field: string, message: string }[]} problems of the envelope's own fields (empty when valid) */
export function envelopeErrors(body) {
  if (!checkEnvelope(body)) return describeErrors(checkEnvelope.errors);
  return illFormed(body);
}

/** A lone surrogate would be stored as U+FFFD and no longer match itself in filters and rollups. */
function illFormed(object) {
  for (const k in object) {
    const v = object[k];
    if (typeof v === 'string' && !v.isWellFormed()) return [{ field: k, message: `${k} is not well-formed Unicode (a lone surrogate)` }];
  }
  return [];
}

/**
 * Schema plus the time window: not older than the workspace keeps events, not ahead of the
 * server's clock by more than `maxSkewMs`.
 * @returns {{ errors: string[], ts: number }}
 */
export function eventErrors(event, { now, oldest, maxSkewMs }) {
  if (!checkEvent(event)) return { errors: describeErrors(checkEvent.errors).map((p) => p.message), ts: 0 };
  const bad = illFormed(event);
  if (bad.length > 0) return { errors: bad.map((p) => p.message), ts: 0 };
  const ts = Date.parse(event.timestamp);
  if (!Number.isFinite(ts)) return { errors: ['timestamp is not a valid date-time'], ts: 0 };
  if (ts > now + maxSkewMs) return { errors: [`timestamp is more than ${Math.round(maxSkewMs / 1000)} s ahead of the server's clock`], ts };
  if (ts < oldest) return { errors: ["timestamp is older than the workspace's retention"], ts };
  return { errors: [], ts };
}
