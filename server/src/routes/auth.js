// Dashboard sign-in (scrypt passwords, session cookies) and the device-authorization login
// of `shield login` (RFC 8628 shape): the CLI asks for a code, the user approves it on
// /device while signed in, the CLI's polling then gets a short-lived workspace token.
import { Router } from 'express';
import { ApiError, badRequest, rateLimited, forbidden } from '../errors.js';
import { hashPassword, verifyPassword, PASSWORD_LIMITS } from '../auth/passwords.js';
import { addressKey, takeAll } from '../http/limiter.js';
import { newSecret, secretHash, newUserCode, normalizeUserCode } from '../auth/secrets.js';
import { SECURE_SESSION_COOKIE, sessionCookieName } from '../auth/principal.js';
import { devicePage } from '../http/pages.js';
import { sessionJson } from '../http/shapes.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
// A dummy hash to verify against when the email is unknown, so timing does not tell which
// addresses have accounts.
let dummyHash = null;

/**
 * @param {{ store: any, auth: any, config: any, loginLimiter: Limiter, loginIpLimiter: Limiter, loginEmailLimiter: Limiter, deviceLimiter: Limiter, codeGuessLimiter: Limiter }} ctx
 * @typedef {import('../http/limiter.js').Limiter} Limiter
 */
export function authRoutes({ store, auth, config, loginLimiter, loginIpLimiter, loginEmailLimiter, deviceLimiter, codeGuessLimiter }) {
  const router = Router();
  /** Secure and `__Host-` when the server or this request is https (see sessionCookieName). */
  function setSessionCookie(req, res, value, maxAgeS) {
    const name = sessionCookieName(req, config.https);
    res.append('Set-Cookie', `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${name === SECURE_SESSION_COOKIE ? '; Secure' : ''}`);
  }

  /** Signs in; the second factor against guessing is the per-address and per-identity limiter. */
  async function signIn(req) {
    const email = requiredString(req.body, 'email', 320);
    const password = requiredString(req.body, 'password', 1024);
    // Failures count per address, per (email, address) strictly, and per email loosely: a
    // guesser from one address is stopped soon, one from many addresses later, and nobody
    // else can lock the owner out from their own address.
    const ipKey = addressKey(req.ip);
    const emailKey = email.toLowerCase();
    const idKey = `${emailKey}|${ipKey}`;
    const wait = takeAll([[loginIpLimiter, ipKey], [loginLimiter, idKey], [loginEmailLimiter, emailKey]]);
    if (wait > 0) throw rateLimited('too many sign-in attempts', wait);
    const account = await store.accountByEmail(email);
    dummyHash ??= await hashPassword('not a real password');
    const ok = await verifyPassword(password, account?.passwordHash ?? dummyHash);
    if (account === undefined || !ok) throw new ApiError(401, 'invalid_credentials', 'email or password is wrong');
    // only failures count against the address and the identity
    loginLimiter.reset(idKey);
    loginIpLimiter.refund(ipKey);
    loginEmailLimiter.refund(emailKey);
    const sid = newSecret('shs');
    await store.createSession({ hash: secretHash(sid), accountId: account.id, expiresAt: Date.now() + config.sessionTtlS * 1000 });
    return { account, sid };
  }

  router.post('/v1/auth/login', async (req, res) => {
    const { account, sid } = await signIn(req);
    setSessionCookie(req, res, sid, config.sessionTtlS);
    res.json(sessionJson(account, await store.workspacesOf(account.id), req.csrfToken()));
  });

  router.post('/v1/auth/logout', async (req, res) => {
    const p = await auth.requireSession(req);
    await store.deleteSession(p.sessionHash);
    setSessionCookie(req, res, '', 0);
    res.status(204).end();
  });

  router.get('/v1/auth/session', async (req, res) => {
    const p = await auth.requireSession(req);
    const account = await store.account(p.accountId);
    res.json(sessionJson(account, await store.workspacesOf(account.id), req.csrfToken()));
  });

  // Changing the password ends every other session and every `shield login` token.
  router.post('/v1/auth/password', async (req, res) => {
    const p = await auth.requireSession(req);
    const current = requiredString(req.body, 'current_password', 1024);
    const next = requiredString(req.body, 'new_password', PASSWORD_LIMITS.max);
    if (next.length < PASSWORD_LIMITS.min) throw badRequest(`new_password must be at least ${PASSWORD_LIMITS.min} characters`, 'new_password');
    const ipKey = addressKey(req.ip);
    const wait = takeAll([[loginIpLimiter, ipKey], [loginLimiter, `${p.accountId}`]]);
    if (wait > 0) throw rateLimited('too many attempts', wait);
    const account = await store.account(p.accountId);
    if (!(await verifyPassword(current, account.passwordHash))) throw new ApiError(403, 'invalid_credentials', 'current_password is wrong', { field: 'current_password' });
    loginLimiter.reset(`${p.accountId}`);
    loginIpLimiter.refund(ipKey);
    await store.setPassword(p.accountId, await hashPassword(next), { keepSessionHash: p.sessionHash });
    res.status(204).end();
  });

  router.get('/v1/auth/csrf', (req, res) => {
    res.json({ csrf_token: req.csrfToken() });
  });

  // ---- device authorization --------------------------------------------------------------

  router.post('/v1/auth/device', async (req, res) => {
    // each code is a durable write: a few per address, and a ceiling on all pending ones
    const wait = deviceLimiter.take(addressKey(req.ip));
    if (wait > 0) throw rateLimited('too many login requests from this address', wait);
    if ((await store.pendingDeviceCodes(Date.now())) >= config.maxPendingDeviceCodes) {
      throw new ApiError(503, 'unavailable', 'too many logins are pending; retry in a minute', { headers: { 'Retry-After': '60' } });
    }
    const deviceCode = newSecret('shd');
    let userCode = newUserCode();
    for (let i = 0; i < 5 && (await store.deviceCodeByUserCode(userCode)) !== undefined; i++) userCode = newUserCode();
    const expiresIn = config.deviceCodeTtlS;
    await store.createDeviceCode({ hash: secretHash(deviceCode), userCode, intervalS: config.devicePollS, expiresAt: Date.now() + expiresIn * 1000 });
    const base = publicBase(req, config);
    res.json({
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${base}/device`,
      verification_uri_complete: `${base}/device?user_code=${userCode}`,
      expires_in: expiresIn,
      interval: config.devicePollS,
    });
  });

  router.post('/v1/auth/token', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const grant = req.body?.grant_type;
    if (grant !== DEVICE_GRANT) return void res.status(400).json({ error: 'unsupported_grant_type', error_description: `grant_type must be ${DEVICE_GRANT}` });
    const code = req.body?.device_code;
    if (typeof code !== 'string' || code.length > 100) return void res.status(400).json({ error: 'invalid_request', error_description: 'device_code is required' });
    const hash = secretHash(code);
    const device = await store.deviceCodeByHash(hash);
    const now = Date.now();
    if (device === undefined) return void res.status(400).json({ error: 'invalid_grant', error_description: 'unknown device_code' });
    if (device.expiresAt <= now) return void res.status(400).json({ error: 'expired_token', error_description: 'the code expired; start `shield login` again' });
    if (device.status === 'denied') return void res.status(400).json({ error: 'access_denied', error_description: 'the request was denied' });
    if (device.status === 'used') return void res.status(400).json({ error: 'invalid_grant', error_description: 'this device_code was already exchanged' });
    if (device.status === 'pending') {
      // Polling faster than the interval: RFC 8628 3.5 says slow down by 5 s.
      if (device.lastPollAt !== null && now - device.lastPollAt < device.intervalS * 1000) {
        await store.pollDeviceCode(hash, now, device.intervalS + 5);
        return void res.status(400).json({ error: 'slow_down', error_description: `poll at most every ${device.intervalS + 5} s`, interval: device.intervalS + 5 });
      }
      await store.pollDeviceCode(hash, now);
      return void res.status(400).json({ error: 'authorization_pending', error_description: 'waiting for the user to approve' });
    }
    // the approval is only as good as the approver's membership now (removed since? no token)
    if ((await store.role(device.workspaceId, device.accountId)) === null) return void res.status(400).json({ error: 'access_denied', error_description: 'the approving account is no longer a member of the workspace' });
    if (!(await store.useDeviceCode(hash))) return void res.status(400).json({ error: 'invalid_grant', error_description: 'this device_code was already exchanged' });
    const token = newSecret('sht');
    await store.createAccessToken({ hash: secretHash(token), accountId: device.accountId, workspaceId: device.workspaceId, expiresAt: now + config.accessTokenTtlS * 1000 });
    res.json({ access_token: token, token_type: 'Bearer', expires_in: config.accessTokenTtlS, workspace_id: device.workspaceId });
  });

  // The approval page: a plain form, signed-in users pick a workspace and approve or deny.
  router.get('/device', async (req, res) => {
    const p = await auth.resolve(req);
    const userCode = normalizeUserCode(req.query.user_code) ?? '';
    const workspaces = p?.kind === 'session' ? await store.workspacesOf(p.accountId) : null;
    res.type('html').send(devicePage({ userCode, workspaces, csrf: req.csrfToken() }));
  });

  router.post('/device', async (req, res) => {
    let p = await auth.resolve(req);
    if (p?.kind !== 'session' && req.body?.email !== undefined) {
      const { account, sid } = await signIn(req);
      setSessionCookie(req, res, sid, config.sessionTtlS);
      p = { kind: 'session', accountId: account.id };
    }
    if (p?.kind !== 'session') throw new ApiError(401, 'unauthorized', 'sign in to approve a device');
    const userCode = normalizeUserCode(req.body?.user_code);
    if (userCode === null) throw badRequest('user_code must be the 8-letter code shown by `shield login`', 'user_code');
    const workspaces = await store.workspacesOf(p.accountId);
    if (req.body?.action === undefined) {
      // Signed in just now: show the approval form.
      return void res.type('html').send(devicePage({ userCode, workspaces, csrf: req.csrfToken() }));
    }
    const action = req.body.action;
    if (action !== 'approve' && action !== 'deny') throw badRequest('action must be approve or deny', 'action');
    const workspaceId = String(req.body.workspace_id ?? '');
    if (action === 'approve' && !workspaces.some((w) => w.id === workspaceId)) throw forbidden('you are not a member of that workspace');
    // Guessing codes would let an account approve someone else's login into its own workspace
    // (RFC 8628 5.1): every unknown code costs from a small bucket per account and per address.
    // Taken before the lookup, so concurrent guesses cannot all pass; given back for a real code.
    const guessKeys = [`account:${p.accountId}`, `address:${addressKey(req.ip)}`];
    const wait = takeAll(guessKeys.map((k) => [codeGuessLimiter, k]));
    if (wait > 0) throw rateLimited('too many wrong codes', wait);
    const device = await store.deviceCodeByUserCode(userCode);
    if (device === undefined || device.status !== 'pending' || device.expiresAt <= Date.now()) {
      throw new ApiError(400, 'invalid_user_code', 'this code is unknown, expired or already used', { field: 'user_code' });
    }
    for (const k of guessKeys) codeGuessLimiter.refund(k);
    const done = await store.decideDeviceCode(userCode, { status: action === 'approve' ? 'approved' : 'denied', accountId: p.accountId, workspaceId: action === 'approve' ? workspaceId : null });
    if (!done) throw new ApiError(400, 'invalid_user_code', 'this code is no longer pending', { field: 'user_code' });
    res.type('html').send(devicePage({ done: action === 'approve' ? 'approved' : 'denied' }));
  });

  return router;
}

function requiredString(body, field, max) {
  const v = body?.[field];
  if (typeof v !== 'string' || v.length === 0) throw badRequest(`${field} is required`, field);
  if (v.length > max) throw badRequest(`${field} is longer than ${max} characters`, field);
  return v;
}

/** The URL users open: the configured public URL, else this request's own origin. */
export function publicBase(req, config) {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.get('host')}`;
}
