// LDAP escapers: RFC 4515 for values placed in a search filter, RFC 4514 for values placed
// in a distinguished name. Both are plain escapers, applied exactly once at the point where
// the filter or DN is assembled: escaping `\` means a second pass escapes the first pass's
// backslashes, so running an escaper twice changes the meaning of the value.

/**
 * Escapes a value for an RFC 4515 search filter: `*` `(` `)` `\` and NUL become `\2a` `\28`
 * `\29` `\5c` `\00`; everything else, including non-ASCII text, is kept. Apply once, not twice.
 */
export function sanitizeLdap(value: string): string {
  const s = asText(value);
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const esc = filterEscape(s.charCodeAt(i));
    if (esc === '') continue;
    out += s.slice(from, i) + esc;
    from = i + 1;
  }
  // Values without special characters are returned as they came, with no copy.
  return from === 0 ? s : out + s.slice(from);
}

/**
 * Escapes a value for one RFC 4514 attribute value in a DN: `\` `"` `+` `,` `;` `<` `>` `=`
 * anywhere, `#` first, a space first or last, and NUL as `\00`. Apply once, not twice.
 */
export function sanitizeLdapDn(value: string): string {
  const s = asText(value);
  const last = s.length - 1;
  let out = '';
  let from = 0;
  for (let i = 0; i <= last; i++) {
    const c = s.charCodeAt(i);
    let esc: string;
    if (c === 0) esc = '\\00';
    else if (isDnSpecial(c) || (i === 0 && c === 0x23) || ((i === 0 || i === last) && c === 0x20)) {
      esc = '\\' + s[i];
    } else continue;
    out += s.slice(from, i) + esc;
    from = i + 1;
  }
  return from === 0 ? s : out + s.slice(from);
}

function filterEscape(c: number): string {
  switch (c) {
    case 0x00: return '\\00';
    case 0x28: return '\\28';
    case 0x29: return '\\29';
    case 0x2a: return '\\2a';
    case 0x5c: return '\\5c';
    default: return '';
  }
}

// `=` is not required by RFC 4514 section 2.4, but its grammar allows `\=` and some
// parsers split an RDN at the first bare `=`, so escaping it costs nothing and removes doubt.
function isDnSpecial(c: number): boolean {
  return c === 0x5c || c === 0x22 || c === 0x2b || c === 0x2c || c === 0x3b || c === 0x3c || c === 0x3e || c === 0x3d;
}

// These run on untrusted input and must not throw. Numbers and booleans have one obvious
// text form; anything else (null, arrays from a query-string parser, objects whose toString
// the caller does not control) becomes the empty value rather than a surprise.
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return '';
}
