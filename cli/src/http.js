// JSON over fetch for the CLI's calls to a control plane: a timeout on every request, and
// network failures reported as the endpoint that could not be reached rather than "fetch failed".
import { CliError } from './errors.js';

const TIMEOUT_MS = 15_000;

/**
 * POSTs `body` as JSON; any status comes back (the caller decides what a 400 means).
 * @param {string} url @param {unknown} body @param {Record<string, string>} [headers]
 * @returns {Promise<{ status: number, headers: Headers, json: any }>}
 */
export async function postJson(url, body, headers = {}) {
  return requestJson('POST', url, { body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
}

/**
 * @param {string} method @param {string} url @param {{ body?: string, headers?: Record<string, string> }} [init]
 * @returns {Promise<{ status: number, headers: Headers, json: any }>}
 */
export async function requestJson(method, url, init = {}) {
  let res;
  try {
    res = await fetch(url, { method, headers: { accept: 'application/json', ...init.headers }, body: init.body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  } catch (err) {
    const why = err?.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (err?.cause?.code ?? err?.cause?.message ?? err?.message);
    throw new CliError(`cannot reach ${new URL(url).origin}: ${why}`);
  }
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, json };
}

/** The server's own explanation of a refusal, for error messages. */
export function describeRefusal(r) {
  const j = r.json;
  const what = j?.error_description ?? j?.message ?? j?.error;
  return `HTTP ${r.status}${typeof what === 'string' ? `: ${printable(what).slice(0, 300)}` : ''}`;
}

/** Server-supplied text bound for the terminal, without control characters (no escape sequences). */
export function printable(text) {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}
