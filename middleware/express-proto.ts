// Reads of an Express request that shield() may skip, because Express's own getters fix their
// answer. In an Express app every read of a property of the request misses V8's inline caches
// (Express replaces each request's prototype, and V8 then gives the object a map of its own with
// every property added afterwards), so:
// - Express 5's `req.query` is a getter that parses `req.url`: with no '?' in the URL it can
//   only be {}.
// - Express's `req.secure` is `req.protocol === 'https'`, and `protocol` is the socket's answer
//   unless a trusted proxy's X-Forwarded-Proto says otherwise: without that header, the socket
//   decides.
// Only Express's own getters count, and only while they are the ones a read would run. A getter
// is Express's when the source text of the function is one Express published (a SHA-256 of
// Function.prototype.toString, checked once per function: express 4.17.1-4.22.3 and
// 5.0.0-5.3.0; another version, a bundled or minified copy, or a patch such as the common "make
// req.query writable" shim has another text, and the request is then read as usual). The
// getter found is compared on every request with the one a read would run now (the nearest on
// the request's prototype chain: an app's getter on app.request, or one put in place after the
// first request, wins); the request's own properties are the caller's to check.

import { createHash } from 'node:crypto';
import { IncomingMessage } from 'node:http';

type Getter = (this: unknown) => unknown;
type Named = 'query' | 'protocol' | 'secure';

// the first 16 hex digits of the SHA-256 of each getter's source text, as Express published it
// (tests/middleware/express-proto.test.mjs checks them against the express 5 and 4 installed)
const EXPRESS_GETTERS: Readonly<Record<Named, readonly string[]>> = {
  query: ['6d9557100c7e6c57'], // 5.0.0-5.3.0 (4.x has no query getter: its query middleware stores one)
  protocol: ['28f9419ccdb93793', '40eb8685200ef6d4'], // 4.17.1-4.22.3 and 5.0.0-5.1.0 (this.connection); 5.2.1-5.3.0 (this.socket)
  secure: ['5a13a10f137b3d4a'], // 4.17.1-5.3.0
};

// held at load, so that a later change to the built-ins cannot make a getter look like Express's
const fnToString = Function.prototype.toString;
const lookupGetter = (Object.prototype as unknown as { __lookupGetter__?: (this: object, name: string) => Getter | undefined }).__lookupGetter__;
// (an environment without Annex B's __lookupGetter__ reads every property as usual)
const canLookUp = typeof lookupGetter === 'function';
const protoOf = Object.getPrototypeOf;
const ownDescriptor = Object.getOwnPropertyDescriptor;

/** Express's own getters on the prototype just above IncomingMessage.prototype, where found. */
interface Found {
  query: Getter | null;
  protocol: Getter | null;
  secure: Getter | null;
}

const NONE: Found = Object.freeze({ query: null, protocol: null, secure: null });
const byProto = new WeakMap<object, Found>();
const verdicts = new WeakMap<Getter, string>();
let lastProto: object | null = null;
let lastFound: Found = NONE;

/** The hash Express's getter of this name would have, of `fn`'s source (once per function). */
function isExpressGetter(fn: Getter, name: Named): boolean {
  let h = verdicts.get(fn);
  if (h === undefined) {
    h = createHash('sha256').update(fnToString.call(fn)).digest('hex').slice(0, 16);
    verdicts.set(fn, h);
  }
  return EXPRESS_GETTERS[name].includes(h);
}

function examine(proto: object): Found {
  // the prototype whose own prototype is IncomingMessage.prototype (Express's `request`)
  let base: object | null = proto;
  while (base !== null && protoOf(base) !== IncomingMessage.prototype) base = protoOf(base) as object | null;
  if (base === null) return NONE;
  const own = (name: Named): Getter | null => {
    const d = ownDescriptor(base!, name);
    // Express defines its getters without a setter
    return d !== undefined && typeof d.get === 'function' && d.set === undefined && isExpressGetter(d.get as Getter, name) ? d.get as Getter : null;
  };
  return { query: own('query'), protocol: own('protocol'), secure: own('secure') };
}

function found(proto: object): Found {
  if (proto === lastProto) return lastFound;
  let f = byProto.get(proto);
  if (f === undefined) {
    f = examine(proto);
    byProto.set(proto, f);
  }
  lastProto = proto;
  lastFound = f;
  return f;
}

/**
 * `req.query` would run Express 5's own getter (a parse of `req.url`): the one on Express's
 * request, and no other on the way. An own `query` of the request is not looked at.
 */
export function queryFromUrl(req: object): boolean {
  const proto = protoOf(req) as object | null;
  if (proto === null || !canLookUp) return false;
  const f = found(proto);
  return f.query !== null && lookupGetter!.call(proto, 'query') === f.query;
}

/**
 * `req.secure` would run Express's own `secure` and `protocol` getters (the socket, or a
 * trusted proxy's X-Forwarded-Proto). Own `secure` or `protocol` properties of the request are
 * not looked at.
 */
export function secureFromSocket(req: object): boolean {
  const proto = protoOf(req) as object | null;
  if (proto === null || !canLookUp) return false;
  const f = found(proto);
  return f.secure !== null && f.protocol !== null &&
    lookupGetter!.call(proto, 'secure') === f.secure && lookupGetter!.call(proto, 'protocol') === f.protocol;
}
