// The decision events the telemetry benchmarks send: a few hundred client hashes, a dozen routes,
// half of them denies with matched text (bench/telemetry-cpu.mjs, bench/telemetry-compression.mjs).

import { randomBytes } from 'node:crypto';
import { SDK_NAME, SDK_VERSION } from '../dist/middleware/event.js';

export const WORKSPACE = '3f2b8c1e-9a4d-4e7b-8c21-5d6f7a8b9c0d';
const HASHES = Array.from({ length: 300 }, () => randomBytes(32).toString('hex'));
const ROUTES = ['/', '/login', '/api/users/:id', '/api/orders/:param', '/search', '/api/v1/items/:id/reviews',
  '/static/:param', '/checkout', '/graphql', '/admin/settings', '/api/upload', '/healthz'];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
const DENIES = [
  ['xss', 'patterns.xss.script-tag', '<script>alert(document.cookie)</script>', 'blocked'],
  ['sql', 'patterns.sql.tautology', "' OR 1=1--", 'blocked'],
  ['sql', 'patterns.sql.union', 'UNION SELECT username, password FROM users', 'sanitized'],
  ['path', 'patterns.path.traversal', '../../../../etc/passwd', 'blocked'],
  ['command', 'patterns.command.chain', '; cat /etc/shadow', 'blocked'],
  ['ssti', 'patterns.ssti.double-brace', '{{7*7}}', 'sanitized'],
];
const base = Date.now();

/** Event number i of the mix. */
export function makeEvent(i) {
  const deny = (i & 1) === 0;
  const d = DENIES[i % DENIES.length];
  return {
    workspace_id: WORKSPACE,
    app_id: 'checkout-service',
    sdk: SDK_NAME,
    sdk_version: SDK_VERSION,
    decision: deny ? 'deny' : 'allow',
    vector: deny ? d[0] : 'none',
    rule: deny ? d[1] : 'none',
    matched: deny ? d[2] : '',
    route: ROUTES[i % ROUTES.length],
    method: METHODS[i % METHODS.length],
    ip_hash: HASHES[i % HASHES.length],
    timestamp: new Date(base + i).toISOString(),
    action: deny ? d[3] : 'passed',
  };
}
