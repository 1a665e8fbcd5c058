// What a request's prototype chain says about it, worked out once per prototype. In an Express
// app every read of a property of the request misses V8's inline caches (Express replaces each
// request's prototype, and V8 then gives the object a map of its own with every property added
// afterwards), so shield() skips reads whose answer the chain already fixes:
// - Express 5's `req.query` is a getter on Express's request that parses `req.url`: with no '?'
//   in the URL it can only be {} (a getter another framework defines may read elsewhere: there
//   the query is always read).
// - Express's `req.secure` is `req.protocol === 'https'`, and `protocol` is the socket's answer
//   unless a trusted proxy's X-Forwarded-Proto says otherwise: without that header, the socket
//   decides (an app that defines its own `secure` or `protocol` is always asked).
// Nothing here trusts a name alone: Express's request is recognized by where it sits (the
// prototype just above node's IncomingMessage.prototype) and by the getters it defines.

import { IncomingMessage } from 'node:http';

export interface ChainFacts {
  /** The prototype just above IncomingMessage.prototype, when the chain reaches it (Express's `request` in an Express app). */
  base: object | null;
  /** `query` is Express 5's getter over `req.url`, not shadowed on the way. */
  queryFromUrl: boolean;
  /** `secure` and `protocol` are Express's getters (or absent), not shadowed on the way. */
  secureFromSocket: boolean;
}

// Express's request defines all of these as getters; its `query` getter is Express 5's
const EXPRESS_GETTERS = ['protocol', 'secure', 'hostname', 'subdomains', 'fresh', 'stale', 'xhr', 'ip'];
const EXPRESS_METHODS = ['get', 'header', 'accepts', 'is', 'range'];

const facts = new WeakMap<object, ChainFacts>();
const NONE: ChainFacts = { base: null, queryFromUrl: false, secureFromSocket: false };
let lastProto: object | null = null;
let lastFacts: ChainFacts = NONE;

/** The facts of `req`'s prototype chain (the request's own properties are not looked at). */
export function chainFacts(req: object): ChainFacts {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto === lastProto) return lastFacts;
  let f = proto === null ? NONE : facts.get(proto);
  if (f === undefined) {
    f = examine(proto!);
    facts.set(proto!, f);
  }
  lastProto = proto;
  lastFacts = f;
  return f;
}

function ownGetter(o: object, name: string): boolean {
  const d = Object.getOwnPropertyDescriptor(o, name);
  return d !== undefined && typeof d.get === 'function';
}

function isExpressRequest(o: object): boolean {
  return EXPRESS_GETTERS.every((n) => ownGetter(o, n)) &&
    EXPRESS_METHODS.every((n) => typeof Object.getOwnPropertyDescriptor(o, n)?.value === 'function');
}

function examine(proto: object): ChainFacts {
  if (proto === IncomingMessage.prototype) {
    // a plain node:http request: neither `query` nor `secure` comes from its prototype
    return { base: null, queryFromUrl: false, secureFromSocket: true };
  }
  // the objects between the request and IncomingMessage.prototype
  const between: object[] = [];
  let o: object | null = proto;
  while (o !== null && o !== IncomingMessage.prototype) {
    between.push(o);
    o = Object.getPrototypeOf(o) as object | null;
  }
  if (o === null || between.length === 0) return NONE;
  const base = between[between.length - 1]!;
  const owner = (name: string): object | null => {
    for (const b of between) if (Object.hasOwn(b, name)) return b;
    return Object.hasOwn(IncomingMessage.prototype, name) ? IncomingMessage.prototype : null;
  };
  const express = isExpressRequest(base);
  const q = owner('query');
  const s = owner('secure');
  const p = owner('protocol');
  return {
    base,
    queryFromUrl: express && q === base && ownGetter(base, 'query'),
    secureFromSocket: express ? s === base && p === base : s === null && p === null,
  };
}
