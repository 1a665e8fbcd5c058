// `shield login`: the device-authorization flow of RFC 8628 against a control plane. The
// CLI never sees a password: the user approves a short code in a browser where they are
// signed in, and the CLI, polling meanwhile, receives a short-lived workspace token.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkEndpoint } from '../loopback.js';
import { postJson, describeRefusal, printable } from '../http.js';
import { saveCredential } from '../credentials.js';
import { CliError, UsageError } from '../errors.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
// Consecutive network failures or 5xx answers tolerated while polling (a restart, a blip).
const MAX_POLL_FAILURES = 5;

/** @param {import('commander').Command} program */
export function registerLogin(program) {
  program
    .command('login')
    .description('sign in to a control plane in the browser; stores a short-lived token in ~/.shield/credentials.json')
    .requiredOption('--endpoint <url>', 'control plane base URL (https, or http on loopback)')
    .option('--no-browser', 'print the approval URL without trying to open a browser')
    .addHelpText('after', '\nSHIELD_HOME moves ~/.shield elsewhere.')
    .action(login);
}

/** @param {{ endpoint: string, browser: boolean }} opts */
async function login(opts) {
  const checked = checkEndpoint(opts.endpoint);
  if ('problem' in checked) throw new UsageError(`--endpoint ${checked.problem}`);
  const base = checked.url;
  const out = (s = '') => process.stdout.write(`${s}\n`);

  const d = await postJson(`${base}/v1/auth/device`, {});
  if (d.status !== 200) {
    const hint = d.status === 404 ? ' (is this a shield control plane?)' : '';
    throw new CliError(`${base} refused to start a login: ${describeRefusal(d)}${hint}`);
  }
  const device = d.json;
  if (typeof device?.device_code !== 'string' || typeof device.user_code !== 'string' || typeof device.verification_uri !== 'string') {
    throw new CliError(`${base} answered the login request with something that is not a device authorization (is this a shield control plane?)`);
  }
  const link = printable(typeof device.verification_uri_complete === 'string' ? device.verification_uri_complete : device.verification_uri);
  const userCode = printable(device.user_code);
  const expiresIn = positive(device.expires_in, 600);
  let interval = positive(device.interval, 5);

  out('To sign in, open this URL in a browser where you can sign in to the control plane:');
  out(`  ${link}`);
  out(`and approve the code ${userCode} if it is the one shown there.`);
  if (opts.browser && process.stdout.isTTY) openBrowser(link);
  out(`Waiting for approval (the code expires in ${Math.round(expiresIn / 60)} min; Ctrl-C gives up)...`);

  const deadline = Date.now() + expiresIn * 1000;
  let failures = 0;
  for (;;) {
    await sleep(interval * 1000);
    if (Date.now() >= deadline) throw new CliError('the code expired before it was approved; run `shield login` again');
    let r;
    try {
      r = await postJson(`${base}/v1/auth/token`, { grant_type: DEVICE_GRANT, device_code: device.device_code });
    } catch (err) {
      if (++failures >= MAX_POLL_FAILURES) throw err;
      continue;
    }
    if (r.status === 200) {
      const t = r.json;
      if (typeof t?.access_token !== 'string' || typeof t.workspace_id !== 'string') throw new CliError(`${base} approved the login but sent no usable token`);
      const expiresAt = new Date(Date.now() + positive(t.expires_in, 3600) * 1000).toISOString();
      const file = saveCredential({ endpoint: base, workspace_id: t.workspace_id, access_token: t.access_token, expires_at: expiresAt });
      out(`Logged in to ${base}, workspace ${t.workspace_id}. The token is valid until ${expiresAt}; it is stored in ${file}.`);
      return;
    }
    if (r.status === 429 || r.status >= 500) {
      if (r.status >= 500 && ++failures >= MAX_POLL_FAILURES) throw new CliError(`${base} keeps failing while waiting for approval: ${describeRefusal(r)}`);
      interval = Math.max(interval, positive(Number(r.headers.get('retry-after')), interval));
      continue;
    }
    failures = 0;
    switch (r.json?.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        // The server states the new interval; RFC 8628 3.5 says add 5 s when it does not.
        interval = typeof r.json.interval === 'number' && r.json.interval > interval ? r.json.interval : interval + 5;
        continue;
      case 'expired_token':
        throw new CliError('the code expired before it was approved; run `shield login` again');
      case 'access_denied':
        throw new CliError('the login was denied on the approval page; nothing was stored');
      default:
        throw new CliError(`${base} refused the login: ${describeRefusal(r)}`);
    }
  }
}

/** A positive finite number of seconds, else the fallback. */
function positive(v, fallback) {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}

/**
 * Best effort: no browser (a server, a container) only means the user opens the link. The
 * link comes from the server, so only http(s) URLs are handed on, and never through a shell.
 */
function openBrowser(url) {
  let u;
  try { u = new URL(url); } catch { return; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return;
  const [cmd, args] = process.platform === 'darwin' ? ['open', [u.href]]
    : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', u.href]]
      : ['xdg-open', [u.href]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // spawn itself can throw on odd platforms; the link is printed anyway
  }
}
