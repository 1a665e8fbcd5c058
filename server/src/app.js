// The control plane's Express app: shield's own middleware and security headers in front,
// CSRF on cookie-authenticated requests, a limiter per address, then the routes.
import express from 'express';
import { shield, csrfProtection } from '@shield/node';
import { ApiError } from './errors.js';
import { principals } from './auth/principal.js';
import { Limiter, addressKey } from './http/limiter.js';
import { ingestRoutes } from './routes/ingest.js';
import { authRoutes } from './routes/auth.js';
import { readRoutes } from './routes/read.js';
import { homePage } from './http/pages.js';
import { openApiDocument } from './openapi.js';

// Their bodies are read raw by the routes themselves (brotli or gzip, size caps) and never scanned.
const RAW_BODY_PATHS = new Set(['/v1/events', '/v1/findings']);
// The CLI's half of the device login sends no cookies, so there is nothing to forge.
const CSRF_EXEMPT_PATHS = new Set(['/v1/auth/device', '/v1/auth/token']);

/** @param {string | undefined} header */
function isBearer(header) {
  return typeof header === 'string' && header.length > 7 && header.slice(0, 7).toLowerCase() === 'bearer ';
}

/**
 * A path as Express's router matches it (case-insensitive, one trailing slash ignored), so
 * `/V1/Events/` is treated like the route it reaches.
 * @param {string} path
 */
function routeKey(path) {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/**
 * @param {{ store: any, config: import('./config.js').Config, csrfSecret: string, version: string, log: (line: string) => void }} deps
 */
export function createApp({ store, config, csrfSecret, version, log }) {
  const app = express();
  app.disable('x-powered-by');
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);

  const auth = principals(store, { secureAlways: config.https, log });
  const ipLimiter = new Limiter(config.ipRate);
  const keyLimiter = new Limiter(config.keyRate);
  const loginLimiter = new Limiter(config.loginRate);
  const loginIpLimiter = new Limiter(config.loginIpRate);
  const loginEmailLimiter = new Limiter(config.loginEmailRate);
  const deviceLimiter = new Limiter(config.deviceRate);
  const codeGuessLimiter = new Limiter(config.codeGuessRate);
  const ctx = { store, auth, config, keyLimiter, loginLimiter, loginIpLimiter, loginEmailLimiter, deviceLimiter, codeGuessLimiter };

  app.use((req, res, next) => {
    const wait = ipLimiter.take(addressKey(req.ip));
    if (wait === 0) return next();
    res.setHeader('Retry-After', String(wait));
    res.status(429).json({ error: 'rate_limited', message: `too many requests from this address; retry in ${wait} s` });
  });

  const json = express.json({ limit: '64kb' });
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  app.use((req, res, next) => {
    if (!RAW_BODY_PATHS.has(routeKey(req.path))) return json(req, res, (err) => (err ? next(err) : form(req, res, next)));
    // Exempt by design: shield() below sees an empty body here (and scans the path, query
    // and cookies as usual); the route reads the real body from the stream itself.
    req.body = {};
    next();
  });

  // Block, not rewrite: a rewritten password or key name would be silently wrong. Passwords
  // may hold anything and are only ever hashed.
  app.use(shield({ block: true, telemetry: false, exclude: { fields: ['body.password', 'body.current_password', 'body.new_password'] } }));

  const csrf = csrfProtection({ secret: csrfSecret, hostPrefix: config.https, cookie: { httpOnly: true, sameSite: 'Strict' } });
  app.use((req, res, next) => {
    const key = routeKey(req.path);
    // Only a Bearer credential exempts: browsers never attach one by themselves, but they do
    // replay Basic or Negotiate credentials on cross-site posts.
    if (isBearer(req.headers.authorization) || RAW_BODY_PATHS.has(key) || CSRF_EXEMPT_PATHS.has(key)) {
      req.csrfToken = () => '';
      return next();
    }
    csrf(req, res, next);
  });

  app.get('/', async (req, res) => {
    res.type('html').send(homePage({ version }));
  });
  app.get('/healthz', (req, res) => {
    res.json({ status: 'ok', version });
  });
  const openapi = openApiDocument(version);
  app.get('/v1/openapi.json', (req, res) => {
    res.json(openapi);
  });

  app.use(authRoutes(ctx));
  app.use(ingestRoutes(ctx));
  app.use(readRoutes(ctx));

  app.use((req, res) => {
    res.status(404).json({ error: 'not_found', message: `no route ${req.method} ${req.path.slice(0, 200)}` });
  });

  // Internal errors are logged, at most one line a second with a count of those left out, so
  // a noisy fault cannot fill the log and a later, different fault is not hidden.
  let lastLog = 0;
  let unlogged = 0;
  app.use((err, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers ?? {})) res.setHeader(k, v);
      if (err.status === 413) res.setHeader('Connection', 'close');
      return void res.status(err.status).json(err);
    }
    // body-parser's own errors carry a status and a type
    if (err?.type === 'entity.parse.failed') return void res.status(400).json({ error: 'invalid_json', message: 'body is not valid JSON', field: 'body' });
    if (err?.code === 'WRITER_LOST') {
      res.setHeader('Retry-After', '1');
      return void res.status(503).json({ error: 'unavailable', message: 'the batch could not be stored (the writer restarted); retry it with the same Idempotency-Key' });
    }
    if (err?.type === 'entity.too.large' || err?.type === 'parameters.too.many') return void res.status(413).json({ error: 'payload_too_large', message: 'body is too large', field: 'body' });
    // the client went away mid-body: nothing to answer, nothing to log
    if (err?.type === 'request.aborted' || err?.code === 'ECONNRESET' || err?.message === 'aborted') {
      if (!res.headersSent && !req.destroyed) res.status(400).json({ error: 'invalid_request', message: 'the request body was cut off' });
      return;
    }
    if (err?.status === 415) return void res.status(415).json({ error: 'unsupported_media_type', message: String(err.message ?? 'unsupported body encoding').slice(0, 200), field: 'Content-Type' });
    if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) return void res.status(err.status).json({ error: 'invalid_request', message: String(err.message ?? 'bad request').slice(0, 200) });
    const now = Date.now();
    if (now - lastLog >= 1000) {
      log(`shield control plane: internal error${unlogged > 0 ? ` (${unlogged} more since the last line)` : ''}: ${err?.stack ?? err}`);
      lastLog = now;
      unlogged = 0;
    } else unlogged++;
    res.status(500).json({ error: 'internal', message: 'internal error' });
  });
  return app;
}
