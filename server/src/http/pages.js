// The control plane's plain pages until the dashboard lands: `/` says what runs and where the
// API is; `/device` approves a `shield login`. No scripts: forms only, so the strict CSP of
// shield's security headers holds.

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · shield control plane</title></head>
<body><main>
<h1>${esc(title)}</h1>
${body}
</main></body></html>`;
}

/** @param {{ version: string }} info */
export function homePage(info) {
  return page('shield control plane', `<p>Version ${esc(info.version)} is running. The dashboard arrives in a later release; until then this service offers:</p>
<ul>
<li><code>POST /v1/events</code> and <code>POST /v1/findings</code> for SDKs and the CLI (API key in <code>Authorization: Bearer</code>)</li>
<li>the read API under <code>/v1/workspaces/&lt;id&gt;/…</code>, described by <a href="/v1/openapi.json">/v1/openapi.json</a></li>
<li><a href="/device">/device</a> to approve a <code>shield login</code></li>
</ul>
<p>Sign in with <code>POST /v1/auth/login</code>; the first owner's credentials are in <code>bootstrap.json</code> in the data directory.</p>`);
}

/**
 * @param {{ userCode?: string, workspaces?: { id: string, name: string }[] | null, csrf?: string, done?: 'approved' | 'denied' }} v
 */
export function devicePage(v) {
  if (v.done !== undefined) {
    return page(v.done === 'approved' ? 'Device approved' : 'Device denied', v.done === 'approved'
      ? '<p>You can close this page: <code>shield login</code> finishes on its own.</p>'
      : '<p>The login request was refused. Nothing was granted.</p>');
  }
  const csrf = `<input type="hidden" name="_csrf" value="${esc(v.csrf ?? '')}">`;
  const code = `<label>Code shown by <code>shield login</code> <input name="user_code" value="${esc(v.userCode ?? '')}" required autocomplete="off"></label>`;
  if (v.workspaces === null || v.workspaces === undefined) {
    return page('Approve a device', `<form method="post" action="/device">${csrf}
<p>Sign in to approve the login.</p>
<p>${code}</p>
<p><label>Email <input name="email" type="email" required autocomplete="username"></label></p>
<p><label>Password <input name="password" type="password" required autocomplete="current-password"></label></p>
<p><button type="submit">Sign in</button></p></form>`);
  }
  const options = v.workspaces.map((w) => `<option value="${esc(w.id)}">${esc(w.name)} (${esc(w.id)})</option>`).join('');
  return page('Approve a device', `<form method="post" action="/device">${csrf}
<p>${code}</p>
<p><label>Workspace <select name="workspace_id">${options}</select></label></p>
<p>Only approve a code you started yourself: the device gets read and upload access to this workspace for a few hours.</p>
<p><button type="submit" name="action" value="approve">Approve</button> <button type="submit" name="action" value="deny">Deny</button></p></form>`);
}
