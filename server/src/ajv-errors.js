// Where an ajv error points, spelled for people: `findings[3].severity`, `events[1].timestamp`.
// Property names come from the request, so odd or long ones are quoted and cut: a hostile key
// cannot blow up a message.

/** `/runs/0/results` -> ['runs', 0, 'results'] (RFC 6901 unescaping). @param {string} pointer */
export function pointerSegments(pointer) {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => {
      const part = s.replaceAll('~1', '/').replaceAll('~0', '~');
      return isIndex(part) ? Number(part) : part;
    });
}

/** @param {string} s */
function isIndex(s) {
  if (s.length === 0 || s.length > 9) return false;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 48 || s.charCodeAt(i) > 57) return false;
  return true;
}

/**
 * ['findings', 3, 'severity'] -> `findings[3].severity`; the empty path is `body`. Odd or long
 * property names are quoted and cut, so a hostile key cannot blow up the message.
 * @param {(string | number)[]} path
 */
export function fieldOf(path) {
  if (path.length === 0) return 'body';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (isPlainKey(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg.length > 64 ? `${seg.slice(0, 64)}…` : seg)}]`;
  }
  return out;
}

/** @param {string} k */
function isPlainKey(k) {
  if (k.length === 0 || k.length > 64) return false;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
    if (!letter && (i === 0 || !((c >= 48 && c <= 57) || c === 45))) return false;
  }
  return true;
}
