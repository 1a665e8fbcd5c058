// ip_hash: a keyed hash (HMAC-SHA-256, hex) of the client's address key (IPv6 by its /64), so
// per-IP views work without sending addresses. The key is SHIELD_IP_HASH_KEY / `ipHashKey`,
// else derived from SHIELD_KEY (every instance of a workspace hashes alike), else random per
// process (local-only: hashes are stable until restart).

import { createHmac, randomBytes } from 'node:crypto';
import { ipKey } from './client-ip.js';

/** Returns the hex HMAC of an address's key; results for recent addresses are cached. */
export type IpHasher = (ip: string) => string;

const CACHE_MAX = 10_000;

/** The hash key from an explicit option, then the environment; never empty. */
export function ipHashKey(option: string | Buffer | undefined, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (option !== undefined) {
    if (!(typeof option === 'string' || Buffer.isBuffer(option)) || option.length < 16) {
      throw new TypeError('shield: option "ipHashKey" must be a string or Buffer of at least 16 characters');
    }
    return Buffer.from(option);
  }
  const explicit = env.SHIELD_IP_HASH_KEY;
  if (explicit !== undefined && explicit !== '') return Buffer.from(explicit);
  const apiKey = env.SHIELD_KEY;
  // a derived key: the API key itself never hashes addresses, so an ip_hash reveals nothing of it
  if (apiKey !== undefined && apiKey !== '') return createHmac('sha256', apiKey).update('shield ip_hash v1').digest();
  return randomBytes(32);
}

/** A hasher with its own small cache (cleared when full: bounded memory, no per-entry bookkeeping). */
export function createIpHasher(key: Buffer): IpHasher {
  const cache = new Map<string, string>();
  return (ip) => {
    let h = cache.get(ip);
    if (h !== undefined) return h;
    h = createHmac('sha256', key).update(ipKey(ip)).digest('hex');
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(ip, h);
    return h;
  };
}
