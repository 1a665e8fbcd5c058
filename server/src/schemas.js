// The JSON Schemas of schema/ (shared with the middleware and the CLI), read once per use site.
import { readFileSync } from 'node:fs';

const SCHEMA_DIR = new URL('../../schema/', import.meta.url);

/** @param {string} name a file in schema/, e.g. `event.schema.json` */
export function loadSchema(name) {
  return JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}
