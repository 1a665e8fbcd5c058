// An independent reference decoder for the tests (never the engine): percent escapes (%XX with
// UTF-8 sequences, %uXXXX), HTML numeric and named character references (the WHATWG table from
// `character-entities`, legacy names without ';' from `character-entities-legacy`), then NFKC
// (String.prototype.normalize) and removal of default-ignorable code points. Rounds repeat until
// nothing changes, like SPEC's pipeline but without the round limit, and the rounds are counted.

import { characterEntities } from 'character-entities';
import { characterEntitiesLegacy } from 'character-entities-legacy';

const LEGACY = new Set(characterEntitiesLegacy);
const LEGACY_MAX = Math.max(...characterEntitiesLegacy.map((n) => n.length));
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const HEX = /^[0-9a-fA-F]$/;

const isHex = (c) => c !== undefined && HEX.test(c);
const isAlnum = (c) => c !== undefined && /^[0-9A-Za-z]$/.test(c);

/** A numeric character reference's value, with HTML's replacements for 0, surrogates and out-of-range values. */
function fromCodePointSafe(cp) {
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(cp);
}

/** %XX at i as a byte, or -1. */
function pctByte(s, i) {
  return s[i] === '%' && isHex(s[i + 1]) && isHex(s[i + 2]) ? parseInt(s.slice(i + 1, i + 3), 16) : -1;
}

/** One left-to-right decoding pass. */
export function decodeOnce(s) {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '%') {
      if ((s[i + 1] === 'u' || s[i + 1] === 'U') && isHex(s[i + 2]) && isHex(s[i + 3]) && isHex(s[i + 4]) && isHex(s[i + 5])) {
        out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      const b = pctByte(s, i);
      if (b >= 0) {
        if (b < 0x80) { out += String.fromCharCode(b); i += 3; continue; }
        // a UTF-8 sequence of escapes; overlong forms are accepted (lenient servers decode them)
        const need = b >= 0xf0 && b <= 0xf7 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : 0;
        if (b >= 0xf8) { out += '\ufffd'; i += 3; continue; }
        let cp = need === 3 ? b & 0x07 : need === 2 ? b & 0x0f : b & 0x1f;
        let j = i + 3;
        let k = 0;
        for (; k < need; k++) {
          const cb = pctByte(s, j);
          if (cb < 0 || (cb & 0xc0) !== 0x80) break;
          cp = (cp << 6) | (cb & 0x3f);
          j += 3;
        }
        if (need === 0 || k < need) { out += '\ufffd'; i += 3; continue; }
        out += cp >= 0xd800 && cp <= 0xdfff ? '\ufffd' : String.fromCodePoint(cp);
        i = j;
        continue;
      }
    } else if (c === '&') {
      if (s[i + 1] === '#') {
        let j = i + 2;
        let digits = '';
        let hex = false;
        if (s[j] === 'x' || s[j] === 'X') {
          hex = true;
          j++;
          while (isHex(s[j])) digits += s[j++];
        } else {
          while (s[j] >= '0' && s[j] <= '9') digits += s[j++];
        }
        if (digits) {
          if (s[j] === ';') j++;
          const n = parseInt(digits.replace(/^0+(?=.)/, '').slice(0, 12), hex ? 16 : 10);
          out += fromCodePointSafe(n);
          i = j;
          continue;
        }
      } else if (isAlnum(s[i + 1])) {
        let j = i + 1;
        while (isAlnum(s[j])) j++;
        const name = s.slice(i + 1, j);
        if (s[j] === ';' && Object.hasOwn(characterEntities, name)) {
          out += characterEntities[name];
          i = j + 1;
          continue;
        }
        // a legacy name without ';' (the longest one the run starts with)
        let hit = '';
        for (let n = Math.min(name.length, LEGACY_MAX); n > 0; n--) {
          if (LEGACY.has(name.slice(0, n))) { hit = name.slice(0, n); break; }
        }
        if (hit) {
          out += characterEntities[hit];
          i += 1 + hit.length;
          if (s[i] === ';') i++;
          continue;
        }
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** NFKC plus removal of default-ignorable code points. */
export function fold(s) {
  return s.normalize('NFKC').replace(DEFAULT_IGNORABLE, '');
}

/** Decodes until stable; returns the text and the number of rounds that changed something. */
export function referenceDecode(s, maxRounds = 32) {
  let cur = s;
  let rounds = 0;
  while (rounds < maxRounds) {
    const next = fold(decodeOnce(cur));
    if (next === cur) break;
    cur = next;
    rounds++;
  }
  return { text: cur, rounds };
}
