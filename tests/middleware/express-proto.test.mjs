// shield() skips a few reads of an Express request whose answers Express's own getters fix
// (middleware/express-proto.ts). These tests hold it to reading them wherever that is not so:
// a `query` getter of another framework, a query string only in originalUrl, a request without
// a string url, an app's own `secure` or `protocol`, Express's getters replaced on Express's own
// request (before or after the first request), a getter added to the app's request later.

import { describe, it, expect } from 'vitest';
import http from 'node:http';
import { Socket } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import { shield } from '../../dist/middleware/index.js';
import { queryFromUrl, secureFromSocket } from '../../dist/middleware/express-proto.js';
import { listen } from './support.mjs';

const HSTS = 'strict-transport-security';

/** Runs shield({ block: true }) on a node:http request shaped by `shape`; returns the status and whether next() ran. */
function runBlock(shape) {
  const req = new http.IncomingMessage(new Socket());
  req.method = 'GET';
  req.headers = { host: 'localhost' };
  shape(req);
  const res = new http.ServerResponse(req);
  let nexted = false;
  shield({ block: true, telemetry: false })(req, res, () => { nexted = true; });
  return { status: res.statusCode, nexted };
}

describe('the query is read wherever the chain does not fix it', () => {
  const hostile = { q: '<script>alert(1)</script>' };

  it("another framework's query getter (not Express's request): read although req.url has no '?'", () => {
    // like a router that set req.url to '/' for a request to its mount path, its query kept elsewhere
    const proto = Object.create(http.IncomingMessage.prototype, { query: { get() { return hostile; } } });
    for (const originalUrl of ['/api?q=x', '/api', undefined]) {
      const r = runBlock((req) => { Object.setPrototypeOf(req, proto); req.url = '/'; if (originalUrl) req.originalUrl = originalUrl; });
      expect(r, String(originalUrl)).toEqual({ status: 403, nexted: false });
    }
    expect(queryFromUrl(Object.create(proto))).toBe(false);
  });

  it("Express 5's getter: a query string only in originalUrl is still read", () => {
    const app = express5();
    const r = runBlock((req) => {
      Object.setPrototypeOf(req, app.request);
      req.url = '/';
      req.originalUrl = '/api?q=<script>alert(1)</script>';
      // the getter parses req.url; a query set as the request's own property stands for it
      Object.defineProperty(req, 'query', { value: hostile, enumerable: true, configurable: true, writable: true });
    });
    expect(r).toEqual({ status: 403, nexted: false });
  });

  it("Express 5's getter under the app's request: recognized; Express 4 has none", () => {
    // (true here also checks the source hashes in express-proto.ts against the express 5 installed)
    expect(queryFromUrl(Object.create(express5().request))).toBe(true);
    expect(queryFromUrl(Object.create(express4().request))).toBe(false);
    // an app that defines its own query getter is not Express's
    const app = express5();
    Object.defineProperty(app.request, 'query', { get() { return hostile; }, configurable: true });
    expect(queryFromUrl(Object.create(app.request))).toBe(false);
    const r = runBlock((req) => { Object.setPrototypeOf(req, app.request); req.url = '/x'; });
    expect(r).toEqual({ status: 403, nexted: false });
  });

  it("Express 5's getter replaced on Express's own request (a 'writable req.query' shim), before or after the first request: read", async () => {
    const original = Object.getOwnPropertyDescriptor(express5.request, 'query');
    const shim = {
      configurable: true, enumerable: true,
      get() { return Object.hasOwn(this, '_query') ? this._query : original.get.call(this); },
      set(v) { this._query = v; },
    };
    for (const when of ['before', 'after']) {
      const app = express5();
      if (when === 'before') Object.defineProperty(express5.request, 'query', shim);
      // an earlier middleware fills req.query from elsewhere (here a header holding JSON)
      app.use((req, res, next) => { const h = req.get('x-search'); if (h) req.query = JSON.parse(h); next(); });
      app.use(shield({ block: true, telemetry: false, headers: false }));
      app.get('/search', (req, res) => res.json({ query: req.query }));
      const s = await listen(app);
      try {
        expect((await fetch(`${s.url}/search`)).status).toBe(200); // the first request
        if (when === 'after') Object.defineProperty(express5.request, 'query', shim);
        const res = await fetch(`${s.url}/search`, { headers: { 'x-search': JSON.stringify({ q: '<script>alert(1)</script>' }) } });
        expect(res.status, when).toBe(403);
        expect(queryFromUrl(Object.create(app.request))).toBe(false);
      } finally {
        await s.close();
        Object.defineProperty(express5.request, 'query', original);
      }
    }
    expect(queryFromUrl(Object.create(express5().request))).toBe(true);
  });

  it("a query getter put on the app's request after the first request: read", async () => {
    const app = express5();
    app.use((req, res, next) => { const h = req.get('x-search'); if (h) req.query = JSON.parse(h); next(); });
    app.use(shield({ block: true, telemetry: false, headers: false }));
    app.get('/', (req, res) => res.json(req.query ?? null));
    const s = await listen(app);
    try {
      expect((await fetch(`${s.url}/`)).status).toBe(200);
      Object.defineProperty(app.request, 'query', { configurable: true, get() { return this._q ?? {}; }, set(v) { this._q = v; } });
      const res = await fetch(`${s.url}/`, { headers: { 'x-search': JSON.stringify({ q: '<script>alert(1)</script>' }) } });
      expect(res.status).toBe(403);
    } finally {
      await s.close();
    }
  });

  it('a request without a string url is still scanned (its query read)', () => {
    const r = runBlock((req) => { req.url = undefined; req.originalUrl = '/p?q=x'; req.query = hostile; });
    expect(r).toEqual({ status: 403, nexted: false });
  });

  for (const [name, express] of [['express 5', express5], ['express 4', express4]]) {
    it(`${name}: shield() mounted under a prefix blocks a query on the mount path itself and below`, async () => {
      const app = express();
      app.use('/api', shield({ block: true, telemetry: false }));
      app.get('/api', (req, res) => res.json({ q: req.query.q }));
      app.get('/api/x', (req, res) => res.json({ q: req.query.q }));
      const s = await listen(app);
      try {
        for (const p of ['/api?q=<script>alert(1)</script>', '/api/?q=<script>alert(1)</script>', '/api/x?q=<script>alert(1)</script>']) {
          expect((await fetch(s.url + p)).status, p).toBe(403);
        }
        expect(await (await fetch(`${s.url}/api?q=shoes`)).json()).toEqual({ q: 'shoes' });
      } finally {
        await s.close();
      }
    });
  }
});

describe('HSTS asks req.secure wherever the chain does not fix it', () => {
  for (const [name, express] of [['express 5', express5], ['express 4', express4]]) {
    it(`${name}: an app's own secure or protocol (honouring Forwarded) gets HSTS; Express's own without X-Forwarded-Proto does not`, async () => {
      const viaSecure = express();
      Object.defineProperty(viaSecure.request, 'secure', { get() { return /proto=https/.test(this.headers.forwarded ?? ''); }, configurable: true });
      const viaProtocol = express();
      Object.defineProperty(viaProtocol.request, 'protocol', { get() { return /proto=https/.test(this.headers.forwarded ?? '') ? 'https' : 'http'; }, configurable: true });
      const plain = express();
      for (const app of [viaSecure, viaProtocol, plain]) {
        app.use(shield({ telemetry: false }));
        app.get('/', (req, res) => res.json({ secure: req.secure }));
      }
      const servers = await Promise.all([viaSecure, viaProtocol, plain].map(listen));
      try {
        for (const s of servers.slice(0, 2)) {
          const res = await fetch(`${s.url}/`, { headers: { forwarded: 'for=192.0.2.1;proto=https' } });
          expect(await res.json()).toEqual({ secure: true });
          expect(res.headers.get(HSTS)).not.toBeNull();
          expect((await fetch(`${s.url}/`)).headers.get(HSTS)).toBeNull();
        }
        const res = await fetch(`${servers[2].url}/`, { headers: { forwarded: 'for=192.0.2.1;proto=https' } });
        expect(await res.json()).toEqual({ secure: false });
        expect(res.headers.get(HSTS)).toBeNull();
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    });
  }

  it("Express's protocol or secure replaced on Express's own request (honouring Forwarded): HSTS follows req.secure", async () => {
    for (const [name, express] of [['express 5', express5], ['express 4', express4]]) {
      for (const which of ['protocol', 'secure']) {
        const original = Object.getOwnPropertyDescriptor(express.request, which);
        const patched = which === 'protocol'
          ? { configurable: true, enumerable: true, get() { return /proto=https/.test(this.headers.forwarded ?? '') ? 'https' : 'http'; } }
          : { configurable: true, enumerable: true, get() { return /proto=https/.test(this.headers.forwarded ?? ''); } };
        Object.defineProperty(express.request, which, patched);
        const app = express();
        app.use(shield({ telemetry: false }));
        app.get('/', (req, res) => res.json({ secure: req.secure }));
        const s = await listen(app);
        try {
          const res = await fetch(`${s.url}/`, { headers: { forwarded: 'for=192.0.2.1;proto=https' } });
          expect(await res.json(), `${name} ${which}`).toEqual({ secure: true });
          expect(res.headers.get(HSTS), `${name} ${which}`).not.toBeNull();
          expect((await fetch(`${s.url}/`)).headers.get(HSTS)).toBeNull();
        } finally {
          await s.close();
          Object.defineProperty(express.request, which, original);
        }
      }
    }
  });

  it('which chains count: Express 5 and 4 (the source hashes checked against those installed), nothing else', () => {
    expect(secureFromSocket(Object.create(express5().request))).toBe(true);
    expect(secureFromSocket(Object.create(express4().request))).toBe(true);
    // a plain node:http request is asked (req.secure is a cheap read there), as are other chains
    expect(secureFromSocket(new http.IncomingMessage(new Socket()))).toBe(false);
    expect(queryFromUrl(new http.IncomingMessage(new Socket()))).toBe(false);
    const other = Object.create(http.IncomingMessage.prototype, { secure: { get: () => true } });
    expect(secureFromSocket(Object.create(other))).toBe(false);
    expect(secureFromSocket({})).toBe(false);
    expect(queryFromUrl(Object.create(null))).toBe(false);
    // Express's getter itself, copied onto another framework's request just above IncomingMessage: its source is Express's
    const copy = Object.create(http.IncomingMessage.prototype, {
      query: Object.getOwnPropertyDescriptor(express5.request, 'query'),
    });
    expect(queryFromUrl(Object.create(copy))).toBe(true);
    // the same text with a setter, or a getter of another text, is not
    const withSetter = Object.create(http.IncomingMessage.prototype, {
      query: { get: Object.getOwnPropertyDescriptor(express5.request, 'query').get, set() {} },
    });
    expect(queryFromUrl(Object.create(withSetter))).toBe(false);
    const wrapped = Object.create(http.IncomingMessage.prototype, { query: { get() { return {}; } } });
    expect(queryFromUrl(Object.create(wrapped))).toBe(false);
  });
});
