// The small parts of shield(): client address resolution, the IPv6 /64 key, route masking,
// exclude patterns and parameter-pollution resolution, table-driven.

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { compileTrustProxy, ipKey, normalizeIp } from '../../dist/middleware/client-ip.js';
import { normalizeRoute, routeTemplate, idLike } from '../../dist/middleware/route.js';
import { compileExclude } from '../../dist/middleware/exclude.js';
import { compileHpp, dedupe, applyHpp } from '../../dist/middleware/hpp.js';
import http from 'node:http';
import { Socket } from 'node:net';
import { createIpHasher } from '../../dist/middleware/ip-hash.js';

describe('client address', () => {
  it.each([
    [1, '::ffff:10.0.0.2', '198.51.100.1, 203.0.113.9', '203.0.113.9'],
    [2, '10.0.0.2', '198.51.100.1, 203.0.113.9', '198.51.100.1'],
    [5, '10.0.0.2', '198.51.100.1, 203.0.113.9', '198.51.100.1'],
    [1, '10.0.0.2', undefined, '10.0.0.2'],
    [1, '10.0.0.2', 'not-an-ip', '10.0.0.2'],
    [0, '10.0.0.2', '198.51.100.1', '10.0.0.2'],
    [1, '10.0.0.2', ['198.51.100.1', '203.0.113.5'], '203.0.113.5'],
    [1, '10.0.0.2', '198.51.100.1, 203.0.113.5:5555', '203.0.113.5'],
    [1, '10.0.0.2', '[2001:db8::7]:443', '2001:db8::7'],
  ])('hop count %s, peer %s, X-Forwarded-For %j -> %s', (hops, peer, xff, want) => {
    expect(compileTrustProxy(hops)(peer, xff)).toBe(want);
  });

  it.each([
    [['10.0.0.0/8'], '10.1.2.3', '198.51.100.1, 10.9.9.9', '198.51.100.1'],
    [['10.0.0.0/8'], '192.0.2.1', '198.51.100.1', '192.0.2.1'],
    [['10.0.0.0/8', '2001:db8::/32'], '2001:db8::1', '203.0.113.4', '203.0.113.4'],
    [['10.0.0.1'], '10.0.0.1', '10.0.0.1, 10.0.0.1', '10.0.0.1'],
    [['10.0.0.0/8'], '10.0.0.1', 'junk, 10.0.0.5', '10.0.0.5'],
  ])('trusted %j, peer %s, X-Forwarded-For %j -> %s', (list, peer, xff, want) => {
    expect(compileTrustProxy(list)(peer, xff)).toBe(want);
  });

  it('bad trustProxy values are TypeErrors naming the option', () => {
    for (const bad of [-1, 1.5, 99, 'x', ['x'], ['10.0.0.0/33'], [7], ['10.0.0.0/'], ['10.0.0.0/ '], ['10.0.0.0/8x'], ['10.0.0.0/-1']]) expect(() => compileTrustProxy(bad)).toThrow(/trustProxy/);
  });

  it('IPv6 addresses are keyed by their /64; IPv4 (also mapped) by the address', () => {
    expect(ipKey('2001:db8:1:2:aaaa::1')).toBe(ipKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(ipKey('2001:db8:1:2::1')).not.toBe(ipKey('2001:db8:1:3::1'));
    expect(ipKey('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(ipKey('::1')).toBe('0:0:0:0::/64');
    expect(ipKey('203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeIp('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1');
    const hash = createIpHasher(Buffer.alloc(32, 1));
    expect(hash('2001:db8:1:2::1')).toBe(hash('2001:db8:1:2::99'));
    expect(hash('203.0.113.1')).not.toBe(hash('203.0.113.2'));
  });
});

describe('route masking', () => {
  it.each([
    ['/users/42', '/users/:param'],
    ['/users/42/orders/9f86d081884c7d65', '/users/:param/orders/:param'],
    ['/u/550e8400-e29b-41d4-a716-446655440000', '/u/:param'],
    ['/reset/eyJhbGciOiJIUzI1NiJ9abc123', '/reset/:param'],
    ['/api/v1/search?q=secret', '/api/v1/search'],
    ['/files/..%2F..%2Fetc', '/files/:param'],
    ['/about-us', '/about-us'],
    ['/blog/my-first-post', '/blog/my-first-post'],
    ['/order-2024-0042', '/:param'],
    ['/', '/'],
    ['', '/'],
    ['/reset/abcdefghijklmnopqrstuvwxyzabcdef', '/reset/:param'],
    ['/international-shipping-policy', '/international-shipping-policy'],
    ['http://example.com/users/42?x=1', '/users/:param'],
    ['http://example.com', '/'],
  ])('%s -> %s', (path, want) => {
    expect(normalizeRoute(path)).toBe(want);
  });

  it('route templates join the mount path (masked) and the route path', () => {
    expect(routeTemplate('', '/users/:id')).toBe('/users/:id');
    expect(routeTemplate('/api/v1', '/users/:id')).toBe('/api/v1/users/:id');
    expect(routeTemplate('/teams/1234', '/members')).toBe('/teams/:param/members');
    expect(routeTemplate('', /x/)).toBeNull();
    expect(idLike('v1')).toBe(false);
  });

  it('never throws and never keeps a query string (fast-check)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
      const r = normalizeRoute(s);
      return r.startsWith('/') && !r.includes('?') && r.length <= 512;
    }), { seed: 42, numRuns: 2000 });
  });
});

describe('exclude', () => {
  const ex = compileExclude({ routes: ['/v1/events', '/admin/*', '/users/:id/bio'], fields: ['body.html', 'body.items.*.text', 'cookie.tracking'] });
  it.each([
    ['/v1/events', true], ['/v1/events/', true], ['/v1/events?x=1', true], ['/v1/eventsx', false], ['/v1', false],
    ['/admin', true], ['/admin/users/1', true], ['/V1/Events', true], ['/ADMIN/x', true], ['/users/7/bio', true], ['/users/7/bio/x', false], ['/other', false],
  ])('route %s -> %s', (path, want) => {
    expect(ex.route(path)).toBe(want);
  });
  it.each([
    [['body', 'html'], true], [['body', 'html', 'nested'], true], [['body', 'htmlx'], false],
    [['body', 'items', 3, 'text'], true], [['body', 'items', 3, 'title'], false], [['query', 'html'], false],
    [['cookie', 'tracking'], true],
  ])('field %j -> %s', (path, want) => {
    expect(ex.field(path)).toBe(want);
  });
});

describe('parameter pollution', () => {
  it('last value wins; the arrays are kept; whitelisted names keep theirs; no array, no copy', () => {
    const hpp = compileHpp({ whitelist: ['tags'] });
    const q = { role: ['user', 'admin'], tags: ['a', 'b'], name: 'x', empty: [] };
    const d = dedupe(q, hpp);
    expect(d.value).toEqual({ role: 'admin', tags: ['a', 'b'], name: 'x', empty: '' });
    expect({ ...d.polluted }).toEqual({ role: ['user', 'admin'], empty: [] });
    expect(q.role).toEqual(['user', 'admin']); // the input is not changed
    expect(dedupe({ a: '1' }, hpp)).toBeNull();
  });
  it('a key named __proto__ stays a plain key', () => {
    const q = Object.create(null);
    q.__proto__ = ['a', 'b'];
    const d = dedupe(q, compileHpp());
    expect(Object.getPrototypeOf(d.value)).toBeNull();
    expect(Object.keys(d.value)).toEqual(['__proto__']);
    expect(d.value.__proto__).toBe('b');
    expect({}.b).toBeUndefined();
  });
  it('a node:http request (prototype unchanged) gets its empty maps stored; a record already there stays; other objects too', () => {
    const hpp = compileHpp();
    const req = new http.IncomingMessage(new Socket());
    req.headers = { 'content-type': 'application/x-www-form-urlencoded' };
    req.query = { a: '1' };
    req.body = { b: '2' };
    applyHpp(req, hpp);
    expect(Object.hasOwn(req, 'queryPolluted') && Object.hasOwn(req, 'bodyPolluted')).toBe(true);
    expect(Object.getPrototypeOf(req.queryPolluted)).toBeNull();
    expect(Object.keys(req.queryPolluted).length + Object.keys(req.bodyPolluted).length).toBe(0);
    const kept = { a: ['0', '1'] };
    req.queryPolluted = kept;
    applyHpp(req, hpp);
    expect(req.queryPolluted).toBe(kept);
    // no accessor was put on node's own prototype
    expect(Object.getOwnPropertyDescriptor(http.IncomingMessage.prototype, 'queryPolluted')).toBeUndefined();
    const plain = { query: { x: ['1', '2'] }, headers: {} };
    applyHpp(plain, hpp);
    expect(plain.query).toEqual({ x: '2' });
    expect({ ...plain.queryPolluted }).toEqual({ x: ['1', '2'] });
    const none = { query: {}, headers: {} };
    applyHpp(none, hpp);
    expect(Object.hasOwn(none, 'queryPolluted') && Object.keys(none.queryPolluted).length === 0).toBe(true);
  });
  it('a prototype that already defines the names is left alone (the maps are stored on the request)', () => {
    /** A request with `proto` as its prototype and a query without repeats, through applyHpp. */
    const through = (proto) => {
      const req = new http.IncomingMessage(new Socket());
      Object.setPrototypeOf(req, proto);
      req.headers = {};
      req.query = { a: '1' };
      applyHpp(req, compileHpp());
      return req;
    };
    const proto = Object.create(http.IncomingMessage.prototype);
    Object.defineProperty(proto, 'queryPolluted', { value: 'app', writable: true, configurable: true });
    const req = through(proto);
    expect(Object.hasOwn(req, 'queryPolluted')).toBe(true);
    expect(Object.keys(req.queryPolluted)).toEqual([]);
    expect(proto.queryPolluted).toBe('app');
    // the app's prototype between the request and the base defines it: stored on the request too
    const base = Object.create(http.IncomingMessage.prototype);
    const appProto = Object.create(base, { queryPolluted: { get() { return 'from app'; }, set(v) { Object.defineProperty(this, 'queryPolluted', { value: v, writable: true, enumerable: true, configurable: true }); }, configurable: true } });
    const req2 = through(appProto);
    expect(Object.hasOwn(req2, 'queryPolluted')).toBe(true);
    expect(Object.keys(req2.queryPolluted)).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(base, 'queryPolluted')).toBeUndefined();
  });
  it('bad options name the option', () => {
    expect(() => compileHpp({ whitelist: 'a' })).toThrow(/whitelist/);
    expect(() => compileHpp({ body: 1 })).toThrow(/body/);
  });
});
