// Dashboard passwords: scrypt (N=2^15, r=8, p=1, 16-byte salt, 32-byte key), stored as
// `scrypt$<N>$<r>$<p>$<salt b64url>$<key b64url>` so the cost can be raised later and old
// hashes still verify.
import { scrypt, randomBytes, timingSafeEqual } from 'node:crypto';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const MAX_PASSWORD = 1024;

/** @returns {Promise<Buffer>} */
function derive(password, salt, n, r, p) {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LEN, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** @param {string} password */
export async function hashPassword(password) {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Constant-time check; false for any malformed stored hash or oversize password. */
export async function verifyPassword(password, stored) {
  if (typeof password !== 'string' || password.length > MAX_PASSWORD) return false;
  const parts = String(stored).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (!Number.isInteger(n) || n < 2 || n > 1 << 20 || !Number.isInteger(r) || r < 1 || r > 32 || !Number.isInteger(p) || p < 1 || p > 16) return false;
  const expected = Buffer.from(parts[5], 'base64url');
  if (expected.length !== KEY_LEN) return false;
  const key = await derive(password, Buffer.from(parts[4], 'base64url'), n, r, p);
  return timingSafeEqual(key, expected);
}

/** A password for the bootstrap owner: 24 random bytes, base64url. */
export function newPassword() {
  return randomBytes(24).toString('base64url');
}

export const PASSWORD_LIMITS = Object.freeze({ min: 12, max: MAX_PASSWORD });
