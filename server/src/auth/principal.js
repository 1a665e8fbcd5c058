// Who is calling: an API key (ingest only), an access token from `shield login` (findings
// upload and reading, one workspace), or a dashboard session (every workspace the account
// is a member of; owners administer). Each route states what it needs of which workspace;
// a credential never reaches another workspace.
import { secretHash } from './secrets.js';
import { ApiError, unauthorized, forbidden } from '../errors.js';

export const SESSION_COOKIE = 'shield_session';
export const SECURE_SESSION_COOKIE = '__Host-shield_session';
const KEY_TOUCH_MS = 60_000;

/**
 * @typedef {{ kind: 'key', keyId: string, workspaceId: string, scopes: string[] }
 *   | { kind: 'token', accountId: number, workspaceId: string }
 *   | { kind: 'session', accountId: number, sessionHash: string }} Principal
 * @typedef {'ingest' | 'read' | 'admin'} Need
 */

/**
 * The session cookie's name for this request: `__Host-` (Secure, host-only) when the server
 * runs https itself or says so with an https public URL, or the request came over https
 * through a trusted proxy.
 * @param {{ secure?: boolean }} req @param {boolean} secureAlways
 */
export function sessionCookieName(req, secureAlways) {
  return secureAlways || req.secure === true ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** @param {any} store @param {{ secureAlways: boolean, log?: (line: string) => void }} options */
export function principals(store, { secureAlways, log = () => {} }) {
  let touchFailed = false;
  /** @type {Map<string, number>} key id -> last time written */
  const touched = new Map();

  /** @param {import('express').Request} req @returns {Promise<Principal | null>} */
  async function resolve(req) {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const space = auth.indexOf(' ');
      const scheme = space < 0 ? auth : auth.slice(0, space);
      const secret = space < 0 ? '' : auth.slice(space + 1).trim();
      if (scheme.toLowerCase() !== 'bearer' || secret.length === 0 || secret.length > 200) throw unauthorized('Authorization must be "Bearer <API key or access token>"');
      const hash = secretHash(secret);
      if (secret.startsWith('shk_')) {
        const key = await store.apiKeyByHash(hash);
        if (key === undefined || key.revokedAt !== null) throw unauthorized(key === undefined ? 'unknown API key' : 'this API key has been revoked');
        const now = Date.now();
        if (now - (touched.get(key.id) ?? key.lastUsedAt ?? 0) >= KEY_TOUCH_MS) {
          touched.set(key.id, now);
          if (touched.size > 10_000) touched.delete(touched.keys().next().value);
          // last-used time is bookkeeping: a failure must not fail the request; logged once
          store.touchApiKeys(new Map([[key.id, now]])).catch((err) => {
            if (touchFailed) return;
            touchFailed = true;
            log(`shield control plane: recording API key use failed (logged once): ${err?.message ?? err}`);
          });
        }
        return { kind: 'key', keyId: key.id, workspaceId: key.workspaceId, scopes: key.scopes };
      }
      if (secret.startsWith('sht_')) {
        const token = await store.accessToken(hash);
        if (token === undefined || token.expiresAt <= Date.now()) throw unauthorized(token === undefined ? 'unknown access token' : 'this access token has expired; run `shield login` again');
        return { kind: 'token', accountId: token.accountId, workspaceId: token.workspaceId };
      }
      throw unauthorized('unknown credential: expected an API key (shk_...) or an access token (sht_...)');
    }
    // Only the cookie of this request's scheme: over https a plain `shield_session` (which a
    // sibling subdomain or a network attacker could plant) is not a session.
    const sid = cookieValue(req.headers.cookie, sessionCookieName(req, secureAlways));
    if (typeof sid === 'string' && sid.startsWith('shs_')) {
      const hash = secretHash(sid);
      const session = await store.session(hash);
      if (session !== undefined && session.expiresAt > Date.now()) return { kind: 'session', accountId: session.accountId, sessionHash: hash };
    }
    return null;
  }

  /**
   * Resolves the caller and checks it may do `need` in `workspaceId`; throws 401 or 403.
   * @param {import('express').Request} req @param {string} workspaceId @param {Need} need
   */
  async function requireWorkspace(req, workspaceId, need) {
    const p = await requirePrincipal(req);
    if (p.kind === 'key') {
      if (need !== 'ingest') throw forbidden('API keys may only send events and findings; sign in or use `shield login` to read');
      if (p.workspaceId !== workspaceId) throw forbidden('this API key belongs to another workspace');
      return p;
    }
    if (p.kind === 'token') {
      if (need === 'admin') throw forbidden('access tokens cannot administer a workspace; sign in to the dashboard');
      if (p.workspaceId !== workspaceId) throw forbidden('this access token belongs to another workspace');
      // a token lives only as long as its account's membership
      if ((await store.role(workspaceId, p.accountId)) === null) throw forbidden('the account of this access token is no longer a member of the workspace');
      return p;
    }
    const role = await store.role(workspaceId, p.accountId);
    if (role === null) throw forbidden('you are not a member of this workspace');
    if (need === 'admin' && role !== 'owner') throw forbidden('only an owner of this workspace may do this');
    return p;
  }

  /** @param {import('express').Request} req @returns {Promise<Principal>} */
  async function requirePrincipal(req) {
    if (req.principal === undefined) req.principal = await resolve(req);
    if (req.principal === null) throw unauthorized();
    return req.principal;
  }

  /** @param {import('express').Request} req */
  async function requireSession(req) {
    const p = await requirePrincipal(req);
    if (p.kind !== 'session') throw forbidden('this route needs a dashboard session');
    return p;
  }

  return { resolve, requireWorkspace, requirePrincipal, requireSession };
}

/** The first cookie of that name in a Cookie header (linear; values are not decoded: ours are base64url). */
export function cookieValue(header, name) {
  if (typeof header !== 'string') return undefined;
  let i = 0;
  while (i < header.length) {
    let end = header.indexOf(';', i);
    if (end < 0) end = header.length;
    const eq = header.indexOf('=', i);
    if (eq > i && eq < end && header.slice(i, eq).trim() === name) return header.slice(eq + 1, end).trim();
    i = end + 1;
  }
  return undefined;
}
