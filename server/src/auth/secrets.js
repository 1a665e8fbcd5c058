// Credentials the control plane hands out: API keys (`shk_`), access tokens of the device
// login (`sht_`), session ids (`shs_`) and device codes (`shd_`). Each is 32 random bytes;
// only a SHA-256 of it is stored, which is enough for values with 256 bits of entropy (a
// slow hash protects guessable passwords, not these), and lets a lookup go by the hash.
import { createHash, randomBytes, randomUUID, randomInt } from 'node:crypto';

/** @param {string} secret */
export function secretHash(secret) {
  return createHash('sha256').update(secret).digest('hex');
}

/** @param {'shk' | 'sht' | 'shs' | 'shd'} kind */
export function newSecret(kind) {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}

/** A new API key: the key itself (shown once), its id, display prefix and stored hash. */
export function newApiKey() {
  const key = newSecret('shk');
  return { key, id: `key_${randomBytes(8).toString('hex')}`, prefix: key.slice(0, 12), hash: secretHash(key) };
}

// Consonants without L (RFC 8628 6.1: easy to read and type, no words): 19 letters, 19^8 codes
const USER_CODE_ALPHABET = 'BCDFGHJKMNPQRSTVWXZ';

/** An 8-letter user code shown as XXXX-XXXX. */
export function newUserCode() {
  let s = '';
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** Upper-cases and drops separators, so `bcdf ghjk` and `BCDF-GHJK` are the same code; null when it cannot be one. */
export function normalizeUserCode(input) {
  if (typeof input !== 'string' || input.length > 32) return null;
  let s = '';
  for (const ch of input.toUpperCase()) {
    if (ch === '-' || ch === ' ') continue;
    if (!USER_CODE_ALPHABET.includes(ch)) return null;
    s += ch;
  }
  return s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4)}` : null;
}

export { randomUUID };
