// The `route` of an event: the route template when Express matched one (`/users/:id`, known
// once the handler ran), else the request path with id- and token-like segments replaced by
// `:param`, so events group by endpoint and never carry ids, tokens or a query string.

import { detach } from '../bindings/text.js';

const MAX_ROUTE = 512;

/** Whether a path segment looks like an id or a token rather than a fixed name. */
export function idLike(seg: string): boolean {
  const n = seg.length;
  if (n === 0) return false;
  if (n > 40) return true;
  let digits = 0;
  let hex = 0;
  let letters = 0;
  let other = 0;
  for (let i = 0; i < n; i++) {
    const c = seg.charCodeAt(i);
    if (c >= 48 && c <= 57) { digits++; hex++; }
    else if ((c >= 97 && c <= 102) || (c >= 65 && c <= 70)) { hex++; letters++; }
    else if ((c >= 103 && c <= 122) || (c >= 71 && c <= 90)) letters++;
    else if (c === 45 || c === 95 || c === 46 || c === 126) { /* - _ . ~ occur in names too */ }
    else other++;
  }
  if (other > 0) return true; // encoded or odd characters: never a route's own name
  if (digits === n) return true; // 42
  if (digits > 0 && hex === n - countOf(seg, 45) && n >= 8) return true; // hex ids, UUIDs
  if (n >= 16 && digits > 0 && letters > 0) return true; // tokens, base64 ids
  if (n >= 24 && letters === n) return true; // a long run of letters alone: a token, not a word of a route
  return n >= 4 && digits * 2 >= n; // mostly digits: order-2024-0042 (not v1, v2)
}

function countOf(s: string, c: number): number {
  let k = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === c) k++;
  return k;
}

/** The path (no query string) with id-like segments as `:param`, at most 512 characters. */
export function normalizeRoute(path: string): string {
  const q = path.indexOf('?');
  let p = q >= 0 ? path.slice(0, q) : path;
  // an absolute-form request target (GET http://host/path): the path part
  if (p.charCodeAt(0) !== 47) {
    const scheme = p.indexOf('://');
    if (scheme > 0) {
      const slash = p.indexOf('/', scheme + 3);
      p = slash < 0 ? '/' : p.slice(slash);
    }
  }
  if (p.length === 0 || p.charCodeAt(0) !== 47) return '/';
  const segs = p.split('/');
  for (let i = 1; i < segs.length; i++) if (idLike(segs[i]!)) segs[i] = ':param';
  const out = segs.join('/');
  // a copy, not a slice: an event waiting in the telemetry queue would keep the whole path alive
  return out.length > MAX_ROUTE ? detach(out.slice(0, MAX_ROUTE)) : out;
}

/** The route template of a matched Express route (`baseUrl` + `route.path`), or null. */
export function routeTemplate(baseUrl: unknown, routePath: unknown): string | null {
  if (typeof routePath !== 'string') return null; // RegExp or array routes: fall back to the path
  // a router's mount path arrives filled in (`/users/42`): its ids are masked like any path's
  const base = typeof baseUrl === 'string' && baseUrl !== '' ? normalizeRoute(baseUrl) : '';
  const t = base + routePath;
  if (t.length === 0) return '/';
  const out = t.charCodeAt(0) === 47 ? t : `/${t}`;
  return out.length > MAX_ROUTE ? detach(out.slice(0, MAX_ROUTE)) : out;
}
