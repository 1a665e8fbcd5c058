// A small in-process token-bucket limiter (per API key, per client address, per login
// identity) until the rate-limit guard of the library exists. Memory is bounded: at most
// `maxKeys` buckets, the least recently used evicted first (a Map keeps insertion order).

export class Limiter {
  /**
   * @param {{ rate: number, burst: number, maxKeys?: number, now?: () => number }} options
   * rate: tokens per second; burst: bucket size.
   */
  constructor({ rate, burst, maxKeys = 10_000, now = Date.now }) {
    if (!(rate > 0) || !(burst >= 1)) throw new TypeError('Limiter: rate must be > 0 and burst >= 1');
    this.rate = rate;
    this.burst = burst;
    this.maxKeys = maxKeys;
    this.now = now;
    /** @type {Map<string, { tokens: number, at: number }>} */
    this.buckets = new Map();
  }

  /**
   * Takes `cost` tokens for `key`. Returns 0 when allowed, else the seconds to wait.
   * @param {string} key @param {number} [cost]
   */
  take(key, cost = 1) {
    const now = this.now();
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.burst, at: now };
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value);
    } else {
      this.buckets.delete(key);
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
      b.at = now;
    }
    this.buckets.set(key, b);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil((cost - b.tokens) / this.rate));
  }

  /** Seconds to wait before `cost` tokens would be there (0: now), taking nothing. @param {string} key */
  peek(key, cost = 1) {
    const b = this.buckets.get(key);
    if (b === undefined) return 0;
    const tokens = Math.min(this.burst, b.tokens + ((this.now() - b.at) / 1000) * this.rate);
    return tokens >= cost ? 0 : Math.max(1, Math.ceil((cost - tokens) / this.rate));
  }

  /** Forgets a key: its bucket is full again (a successful sign-in clears its failures). @param {string} key */
  reset(key) {
    this.buckets.delete(key);
  }

  /** Returns `n` tokens taken by a request that turned out not to count. @param {string} key */
  refund(key, n = 1) {
    const b = this.buckets.get(key);
    if (b !== undefined) b.tokens = Math.min(this.burst, b.tokens + n);
  }
}

/**
 * Takes one token from every [limiter, key] pair, or from none: when any of them would refuse,
 * nothing is taken and no bucket is created, so refused requests cannot drain (or, by filling
 * the limiters, evict) the buckets of others. Returns 0 when allowed, else the seconds to wait.
 * @param {[Limiter, string][]} pairs
 */
export function takeAll(pairs) {
  let wait = 0;
  for (const [limiter, key] of pairs) wait = Math.max(wait, limiter.peek(key));
  if (wait > 0) return wait;
  for (const [limiter, key] of pairs) limiter.take(key);
  return 0;
}

/**
 * The limiter key of a client address: IPv4 as is, IPv6 by its /64 (one host usually holds a
 * whole /64, so per-address buckets would be free to multiply).
 * @param {string | undefined} ip
 */
export function addressKey(ip) {
  if (typeof ip !== 'string' || ip.length === 0) return '';
  if (ip.startsWith('::ffff:') && ip.includes('.')) return ip.slice(7);
  if (!ip.includes(':')) return ip;
  const zone = ip.indexOf('%');
  const bare = zone < 0 ? ip : ip.slice(0, zone);
  const [head, tail] = bare.split('::', 2);
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
