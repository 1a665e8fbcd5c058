// A signed-in dashboard session for the CLI's own reads (the demo's summary): the same steps
// a browser takes, CSRF cookie first, then the sign-in, then the session cookie on reads.
import { requestJson, describeRefusal } from './http.js';
import { CliError } from './errors.js';

/**
 * @param {string} base control plane URL @param {string} email @param {string} password
 * @returns {Promise<{ get: (path: string) => Promise<any> }>} get() throws on anything but 200
 */
export async function signIn(base, email, password) {
  /** @type {Map<string, string>} */
  const jar = new Map();
  const keep = (headers) => {
    for (const c of headers.getSetCookie()) {
      const pair = c.split(';', 1)[0];
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

  const t = await requestJson('GET', `${base}/v1/auth/csrf`);
  keep(t.headers);
  if (t.status !== 200 || typeof t.json?.csrf_token !== 'string') throw new CliError(`${base} gave no CSRF token: ${describeRefusal(t)}`);
  const r = await requestJson('POST', `${base}/v1/auth/login`, {
    body: JSON.stringify({ email, password }),
    headers: { 'content-type': 'application/json', 'x-csrf-token': t.json.csrf_token, cookie: cookie() },
  });
  keep(r.headers);
  if (r.status !== 200) throw new CliError(`signing in to ${base} as ${email} failed: ${describeRefusal(r)}`);
  return {
    async get(path) {
      const g = await requestJson('GET', base + path, { headers: { cookie: cookie() } });
      if (g.status !== 200) throw new CliError(`GET ${path} failed: ${describeRefusal(g)}`);
      return g.json;
    },
  };
}
