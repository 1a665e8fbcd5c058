// Header values. CR and LF end a header line, so a value carrying them can add headers or
// a body of its own (response splitting); NUL truncates values in some servers and proxies.
//
// The rest of C0 (except horizontal tab, which RFC 9110 allows inside a value) and DEL are
// stripped too: Node's http module refuses them with ERR_INVALID_CHAR, and a sanitized value
// that still throws in setHeader() would turn hostile input into a 500. The same goes for
// characters above U+00FF: Node refuses them, and code that writes strings as latin1 keeps
// only the low byte, which turns U+010D U+010A into CR LF, the old Unicode route to
// response splitting. What remains is tab, printable ASCII and U+0080..U+00FF (sent as
// single obs-text bytes), exactly the set http.validateHeaderValue() accepts.

/**
 * Strips CR, LF and NUL, and with them every other control character except tab, DEL and
 * characters above U+00FF, so the value is always accepted by Node's setHeader(). Idempotent.
 */
export function sanitizeHeaderValue(value: string): string {
  const s = asText(value);
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    if (isAllowed(s.charCodeAt(i))) continue;
    out += s.slice(from, i);
    from = i + 1;
  }
  // Clean values are returned as they came, with no copy.
  return from === 0 ? s : out + s.slice(from);
}

function isAllowed(c: number): boolean {
  return c === 0x09 || (c >= 0x20 && c <= 0xff && c !== 0x7f);
}

// A sanitizer on untrusted input must not throw. Numbers and booleans have one obvious text
// form; anything else (null, an array of values, an object whose toString the caller does
// not control) becomes the empty value.
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return '';
}
