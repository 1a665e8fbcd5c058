// A small HTML tokenizer for the tests (never the engine), following the WHATWG tokenization
// states closely enough to judge a sanitizer's output the way a browser would:
//   data, tag open, end tag open, tag name, before/after attribute name, attribute name,
//   before attribute value, attribute value (double-quoted, single-quoted, unquoted), after
//   attribute value (quoted), self-closing start tag, markup declaration open, comments
//   (including the abrupt `<!-->` / `<!--->` forms and `--!>`), bogus comments, DOCTYPE (as a
//   bogus-comment-like token), RCDATA (title, textarea), RAWTEXT (style, xmp, iframe, noembed,
//   noframes), script data (script, with its end-tag rule), PLAINTEXT, and character references
//   (numeric and named, with the attribute-value rule for legacy names without ';').
// The tree builder is not modelled: raw-text switching follows the start tag's name only, as
// the tree builder does for elements in the HTML namespace.
//
// tokenize(html) -> [{ type: 'chars', data } | { type: 'startTag', name, attrs: [{ name, value }], selfClosing }
//                    | { type: 'endTag', name } | { type: 'comment', data } | { type: 'doctype', data }]
// Consecutive characters are merged into one 'chars' token.

import { characterEntities } from 'character-entities';
import { characterEntitiesLegacy } from 'character-entities-legacy';

const LEGACY = new Set(characterEntitiesLegacy);
const MAX_NAME = Math.max(...Object.keys(characterEntities).map((n) => n.length));

// WHATWG "numeric character reference end state" replacements for 0x80..0x9F.
const C1_REPLACEMENTS = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
  0x88: 0x02c6, 0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018,
  0x92: 0x2019, 0x93: 0x201c, 0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc,
  0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a, 0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

const isAsciiAlpha = (c) => c !== undefined && /^[A-Za-z]$/.test(c);
const isAsciiAlnum = (c) => c !== undefined && /^[A-Za-z0-9]$/.test(c);
const isHexDigit = (c) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isDigit = (c) => c !== undefined && c >= '0' && c <= '9';
// tab, LF, FF, space (CR is normalized away by the input stream preprocessing)
const isWs = (c) => c === '\t' || c === '\n' || c === '\f' || c === ' ';

const RCDATA = new Set(['title', 'textarea']);
const RAWTEXT = new Set(['style', 'xmp', 'iframe', 'noembed', 'noframes']);

/**
 * Consumes a character reference at s[i] === '&'. Returns { text, next } (text is what the
 * reference stands for, or '&' when it is not one and only the '&' is consumed).
 */
export function charRef(s, i, inAttribute) {
  const c = s[i + 1];
  if (c === '#') {
    let j = i + 2;
    let hex = false;
    if (s[j] === 'x' || s[j] === 'X') { hex = true; j++; }
    const start = j;
    while (hex ? isHexDigit(s[j]) : isDigit(s[j])) j++;
    if (j === start) return { text: '&', next: i + 1 }; // absence of digits: not a reference
    let n = 0;
    for (let k = start; k < j; k++) {
      n = n * (hex ? 16 : 10) + parseInt(s[k], 16);
      if (n > 0x10ffff) n = 0x110000; // saturate
    }
    if (s[j] === ';') j++;
    let cp = n;
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
    else if (C1_REPLACEMENTS[cp] !== undefined) cp = C1_REPLACEMENTS[cp];
    return { text: String.fromCodePoint(cp), next: j };
  }
  if (!isAsciiAlnum(c)) return { text: '&', next: i + 1 };
  // named: the longest name in the table that the input starts with (with its ';' if it has one)
  let best = null;
  for (let len = 1; len <= MAX_NAME && i + 1 + len <= s.length; len++) {
    const name = s.slice(i + 1, i + 1 + len);
    if (!isAsciiAlnum(name[len - 1])) break;
    if (s[i + 1 + len] === ';' && characterEntities[name] !== undefined) best = { name, semi: true };
    else if (LEGACY.has(name) && characterEntities[name] !== undefined) {
      if (!best || best.name.length < len) best = { name, semi: false };
    }
  }
  if (!best) return { text: '&', next: i + 1 };
  const after = s[i + 1 + best.name.length];
  if (!best.semi && inAttribute && (after === '=' || isAsciiAlnum(after))) {
    // historical reasons: flush the characters as they are
    return { text: '&', next: i + 1 };
  }
  return { text: characterEntities[best.name], next: i + 1 + best.name.length + (best.semi ? 1 : 0) };
}

/** Decodes character references in text as a browser does in an attribute value (or in data). */
export function decodeCharRefs(s, inAttribute = true) {
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === '&') {
      const r = charRef(s, i, inAttribute);
      out += r.text;
      i = r.next;
    } else {
      out += s[i++];
    }
  }
  return out;
}

export function tokenize(input) {
  // input stream preprocessing: CRLF and CR become LF
  const s = input.replace(/\r\n?/g, '\n');
  const tokens = [];
  let i = 0;
  let state = 'data';
  let tag = null; // current tag token
  let attr = null; // current attribute
  let comment = null;
  let lastStartTag = ''; // for "appropriate end tag" in raw text states

  const emitChars = (t) => {
    if (t === '') return;
    const last = tokens[tokens.length - 1];
    if (last && last.type === 'chars') last.data += t;
    else tokens.push({ type: 'chars', data: t });
  };
  const startAttr = (name) => {
    attr = { name, value: '' };
    tag.attrs.push(attr);
  };
  const emitTag = () => {
    if (tag.type === 'startTag') {
      // duplicate attributes are dropped (the first one wins)
      const seen = new Set();
      tag.attrs = tag.attrs.filter((a) => (seen.has(a.name) ? false : (seen.add(a.name), true)));
      lastStartTag = tag.name;
      tokens.push(tag);
      if (tag.name === 'script') state = 'scriptData';
      else if (RCDATA.has(tag.name)) state = 'rcdata';
      else if (RAWTEXT.has(tag.name)) state = 'rawtext';
      else if (tag.name === 'plaintext') state = 'plaintext';
      else state = 'data';
    } else {
      tokens.push({ type: 'endTag', name: tag.name });
      state = 'data';
    }
    tag = null;
    attr = null;
  };

  /** In RCDATA / RAWTEXT / script data: is "</lastStartTag" + (ws | / | >) at i? */
  const appropriateEnd = (k) => {
    if (s[k] !== '<' || s[k + 1] !== '/') return false;
    const name = s.slice(k + 2, k + 2 + lastStartTag.length);
    if (name.toLowerCase() !== lastStartTag) return false;
    const after = s[k + 2 + lastStartTag.length];
    return isWs(after) || after === '/' || after === '>';
  };

  while (i <= s.length) {
    const c = s[i]; // undefined at EOF
    switch (state) {
      case 'data':
        if (c === undefined) { i++; break; }
        if (c === '&') { const r = charRef(s, i, false); emitChars(r.text); i = r.next; break; }
        if (c === '<') { state = 'tagOpen'; i++; break; }
        emitChars(c); i++;
        break;

      case 'rcdata':
      case 'rawtext':
      case 'scriptData':
      case 'plaintext': {
        // Raw text up to the appropriate end tag (script data's escape states only change
        // where the end tag may appear inside <!-- -->; modelled here by the simple rule that
        // an appropriate end tag always ends it, which is what an injected payload relies on).
        if (c === undefined) { i++; break; }
        let k = i;
        if (state === 'plaintext') k = s.length;
        else while (k < s.length && !appropriateEnd(k)) k++;
        const text = s.slice(i, k);
        emitChars(state === 'rcdata' ? decodeCharRefs(text, false) : text);
        i = k;
        if (k < s.length) {
          // the end tag: reuse the normal tag states
          tag = { type: 'endTag', name: '', attrs: [], selfClosing: false };
          i += 2;
          state = 'tagName';
        }
        break;
      }

      case 'tagOpen':
        if (c === '!') { state = 'markupDeclarationOpen'; i++; break; }
        if (c === '/') { state = 'endTagOpen'; i++; break; }
        if (isAsciiAlpha(c)) { tag = { type: 'startTag', name: '', attrs: [], selfClosing: false }; state = 'tagName'; break; }
        if (c === '?') { comment = { type: 'comment', data: '' }; state = 'bogusComment'; break; }
        emitChars('<'); state = 'data';
        break;

      case 'endTagOpen':
        if (isAsciiAlpha(c)) { tag = { type: 'endTag', name: '', attrs: [], selfClosing: false }; state = 'tagName'; break; }
        if (c === '>') { state = 'data'; i++; break; }
        if (c === undefined) { emitChars('</'); i++; break; }
        comment = { type: 'comment', data: '' }; state = 'bogusComment';
        break;

      case 'tagName':
        if (c === undefined) { i++; break; } // EOF in tag: the tag is dropped
        if (isWs(c)) { state = 'beforeAttributeName'; i++; break; }
        if (c === '/') { state = 'selfClosingStartTag'; i++; break; }
        if (c === '>') { i++; emitTag(); break; }
        tag.name += c === '\0' ? '\ufffd' : /[A-Z]/.test(c) ? c.toLowerCase() : c;
        i++;
        break;

      case 'beforeAttributeName':
        if (isWs(c)) { i++; break; }
        if (c === '/' || c === '>' || c === undefined) { state = 'afterAttributeName'; break; }
        if (c === '=') { startAttr('='); state = 'attributeName'; i++; break; }
        startAttr(''); state = 'attributeName';
        break;

      case 'attributeName':
        if (isWs(c) || c === '/' || c === '>' || c === undefined) { state = 'afterAttributeName'; break; }
        if (c === '=') { state = 'beforeAttributeValue'; i++; break; }
        attr.name += c === '\0' ? '\ufffd' : /[A-Z]/.test(c) ? c.toLowerCase() : c;
        i++;
        break;

      case 'afterAttributeName':
        if (isWs(c)) { i++; break; }
        if (c === '/') { state = 'selfClosingStartTag'; i++; break; }
        if (c === '=') { state = 'beforeAttributeValue'; i++; break; }
        if (c === '>') { i++; emitTag(); break; }
        if (c === undefined) { i++; break; }
        startAttr(''); state = 'attributeName';
        break;

      case 'beforeAttributeValue':
        if (isWs(c)) { i++; break; }
        if (c === '"') { state = 'attributeValueDouble'; i++; break; }
        if (c === "'") { state = 'attributeValueSingle'; i++; break; }
        if (c === '>') { i++; emitTag(); break; } // missing value
        state = 'attributeValueUnquoted';
        break;

      case 'attributeValueDouble':
      case 'attributeValueSingle': {
        const q = state === 'attributeValueDouble' ? '"' : "'";
        if (c === undefined) { i++; break; }
        if (c === q) { state = 'afterAttributeValueQuoted'; i++; break; }
        if (c === '&') { const r = charRef(s, i, true); attr.value += r.text; i = r.next; break; }
        attr.value += c === '\0' ? '\ufffd' : c;
        i++;
        break;
      }

      case 'attributeValueUnquoted':
        if (isWs(c)) { state = 'beforeAttributeName'; i++; break; }
        if (c === '&') { const r = charRef(s, i, true); attr.value += r.text; i = r.next; break; }
        if (c === '>') { i++; emitTag(); break; }
        if (c === undefined) { i++; break; }
        attr.value += c === '\0' ? '\ufffd' : c;
        i++;
        break;

      case 'afterAttributeValueQuoted':
        if (isWs(c)) { state = 'beforeAttributeName'; i++; break; }
        if (c === '/') { state = 'selfClosingStartTag'; i++; break; }
        if (c === '>') { i++; emitTag(); break; }
        if (c === undefined) { i++; break; }
        state = 'beforeAttributeName'; // missing whitespace between attributes
        break;

      case 'selfClosingStartTag':
        if (c === '>') { tag.selfClosing = true; i++; emitTag(); break; }
        if (c === undefined) { i++; break; }
        state = 'beforeAttributeName';
        break;

      case 'bogusComment':
        if (c === '>') { tokens.push(comment); comment = null; state = 'data'; i++; break; }
        if (c === undefined) { tokens.push(comment); comment = null; i++; break; }
        comment.data += c === '\0' ? '\ufffd' : c;
        i++;
        break;

      case 'markupDeclarationOpen':
        if (s.startsWith('--', i)) { comment = { type: 'comment', data: '' }; i += 2; state = 'commentStart'; break; }
        if (s.slice(i, i + 7).toLowerCase() === 'doctype') {
          let k = s.indexOf('>', i);
          if (k < 0) k = s.length;
          tokens.push({ type: 'doctype', data: s.slice(i + 7, k) });
          i = k + 1;
          state = 'data';
          break;
        }
        if (s.startsWith('[CDATA[', i)) {
          // outside foreign content a CDATA section is a bogus comment
          comment = { type: 'comment', data: '' }; state = 'bogusComment';
          break;
        }
        comment = { type: 'comment', data: '' }; state = 'bogusComment';
        break;

      case 'commentStart':
        if (c === '-') { state = 'commentStartDash'; i++; break; }
        if (c === '>') { tokens.push(comment); comment = null; state = 'data'; i++; break; } // <!-->
        state = 'comment';
        break;

      case 'commentStartDash':
        if (c === '-') { state = 'commentEnd'; i++; break; }
        if (c === '>') { tokens.push(comment); comment = null; state = 'data'; i++; break; } // <!--->
        if (c === undefined) { tokens.push(comment); comment = null; i++; break; }
        comment.data += '-'; state = 'comment';
        break;

      case 'comment':
        if (c === '-') { state = 'commentEndDash'; i++; break; }
        if (c === undefined) { tokens.push(comment); comment = null; i++; break; }
        comment.data += c === '\0' ? '\ufffd' : c;
        i++;
        break;

      case 'commentEndDash':
        if (c === '-') { state = 'commentEnd'; i++; break; }
        if (c === undefined) { tokens.push(comment); comment = null; i++; break; }
        comment.data += '-'; state = 'comment';
        break;

      case 'commentEnd':
        if (c === '>') { tokens.push(comment); comment = null; state = 'data'; i++; break; }
        if (c === '!') { state = 'commentEndBang'; i++; break; }
        if (c === '-') { comment.data += '-'; i++; break; }
        if (c === undefined) { tokens.push(comment); comment = null; i++; break; }
        comment.data += '--'; state = 'comment';
        break;

      case 'commentEndBang':
        if (c === '-') { comment.data += '--!'; state = 'commentEndDash'; i++; break; }
        if (c === '>') { tokens.push(comment); comment = null; state = 'data'; i++; break; } // --!>
        if (c === undefined) { tokens.push(comment); comment = null; i++; break; }
        comment.data += '--!'; state = 'comment';
        break;

      default:
        throw new Error(`tokenizer: unknown state ${state}`);
    }
  }
  return tokens;
}

/**
 * The scheme a browser's URL parser would see for `url` (an attribute value already decoded):
 * leading and trailing C0 controls and spaces stripped, tab/LF/CR removed anywhere, then
 * ALPHA *(ALPHA / DIGIT / + / - / .) ':'. Returns { scheme (lower case), rest } or null.
 */
export function urlScheme(url) {
  // eslint-disable-next-line no-control-regex
  const t = url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  const m = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(t);
  return m ? { scheme: m[1].toLowerCase(), rest: t.slice(m[0].length) } : null;
}

/** True when `url` (decoded) is a script-running URL: javascript:, vbscript:, or data:text/html. */
export function isDangerousUrl(url, { data = false } = {}) {
  const u = urlScheme(url);
  if (!u) return false;
  if (u.scheme === 'javascript' || u.scheme === 'vbscript') return true;
  if (data && u.scheme === 'data') return /^[\t\n\f\r ]*text\/html/i.test(u.rest);
  return false;
}
