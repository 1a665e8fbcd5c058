// shield() skips a few reads of an Express request whose answers its prototype chain fixes
// (middleware/express-proto.ts). These tests hold it to reading them wherever that is not so:
// a `query` getter of another framework, a query string only in originalUrl, a request without
// a string url, an app's own `secure` or `protocol`.

import { describe, it, expect } from 'vitest';
import http from 'node:http';
import { Socket } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import { shield } from '../../dist/middleware/index.js';
import { chainFacts } from '../../dist/middleware/express-proto.js';
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
    expect(chainFacts(Object.create(proto)).queryFromUrl).toBe(false);
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
    expect(chainFacts(Object.create(express5().request)).queryFromUrl).toBe(true);
    expect(chainFacts(Object.create(express4().request)).queryFromUrl).toBe(false);
    // an app that defines its own query getter is not Express's
    const app = express5();
    Object.defineProperty(app.request, 'query', { get() { return hostile; }, configurable: true });
    expect(chainFacts(Object.create(app.request)).queryFromUrl).toBe(false);
    const r = runBlock((req) => { Object.setPrototypeOf(req, app.request); req.url = '/x'; });
    expect(r).toEqual({ status: 403, nexted: false });
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

  it('the facts of a plain node:http request and of chains without Express', () => {
    expect(chainFacts(new http.IncomingMessage(new Socket()))).toEqual({ base: null, queryFromUrl: false, secureFromSocket: true });
    const other = Object.create(http.IncomingMessage.prototype, { secure: { get: () => true } });
    expect(chainFacts(Object.create(other)).secureFromSocket).toBe(false);
    expect(chainFacts({}).secureFromSocket).toBe(false);
    expect(chainFacts(Object.create(null)).queryFromUrl).toBe(false);
  });
});
