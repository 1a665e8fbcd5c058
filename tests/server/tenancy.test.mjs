// Cross-tenant: a key, access token or session of workspace A never reads or writes
// workspace B, on any route; and B's data is unchanged after every attempt.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startControlPlane, Client, makeEvent, makeEnvelope, postEvents, deviceToken } from './support.mjs';

let cp;
const A = {};
const B = {};

async function postFindings(base, credential, repository) {
  const body = {
    schema_version: '1', kind: 'audit', tool: { name: 'shield', version: '0.1.0' }, repository: { name: repository },
    generated_at: new Date().toISOString(),
    findings: [{ id: 'f1', rule: 'audit.test-rule', severity: 'high', title: 'a finding' }],
  };
  const res = await fetch(`${base}/v1/findings`, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  cp = await startControlPlane();
  A.id = cp.bootstrap.workspace_id;
  A.key = cp.bootstrap.api_key;
  A.owner = new Client(cp.url);
  await A.owner.signIn(cp.bootstrap.owner.email, cp.bootstrap.owner.password);

  // B: made by A's owner, handed to bob, then A's owner leaves it.
  const made = await A.owner.request('POST', '/v1/workspaces', { body: { name: 'tenant b' } });
  expect(made.status).toBe(201);
  B.id = made.json.id;
  const bob = await A.owner.request('POST', `/v1/workspaces/${B.id}/members`, { body: { email: 'bob@example.test', role: 'owner' } });
  expect(bob.status).toBe(201);
  const ownerId = (await A.owner.request('GET', `/v1/workspaces/${B.id}/members`)).json.members.find((m) => m.email === cp.bootstrap.owner.email).account_id;
  expect((await A.owner.request('DELETE', `/v1/workspaces/${B.id}/members/${ownerId}`)).status).toBe(204);
  B.owner = new Client(cp.url);
  await B.owner.signIn('bob@example.test', bob.json.password);
  B.key = (await B.owner.request('POST', `/v1/workspaces/${B.id}/keys`, { body: { name: 'b key' } })).json.key;
  B.keyId = (await B.owner.request('GET', `/v1/workspaces/${B.id}/keys`)).json.keys[0].id;
  B.bobId = bob.json.account_id;

  A.token = await deviceToken(cp.url, A.owner, A.id);
  B.token = await deviceToken(cp.url, B.owner, B.id);

  expect((await postEvents(cp.url, B.key, makeEnvelope(B.id, [makeEvent(B.id), makeEvent(B.id)]))).status).toBe(202);
  expect((await postFindings(cp.url, B.key, 'acme/b-repo')).status).toBe(201);
});

afterAll(async () => {
  await cp.stop();
});

async function snapshotB() {
  const events = await B.owner.request('GET', `/v1/workspaces/${B.id}/events?limit=500`);
  const keys = await B.owner.request('GET', `/v1/workspaces/${B.id}/keys`);
  const members = await B.owner.request('GET', `/v1/workspaces/${B.id}/members`);
  const ws = await B.owner.request('GET', `/v1/workspaces/${B.id}`);
  const findings = await B.owner.request('GET', `/v1/workspaces/${B.id}/findings`);
  return JSON.stringify([events.json, keys.json, members.json, ws.json, findings.json]);
}

// Every route that names a workspace, as A's credentials would try it on B.
const routes = () => [
  ['GET', `/v1/workspaces/${B.id}`],
  ['PATCH', `/v1/workspaces/${B.id}`, { name: 'taken' }],
  ['GET', `/v1/workspaces/${B.id}/overview`],
  ['GET', `/v1/workspaces/${B.id}/events`],
  ['GET', `/v1/workspaces/${B.id}/fleet`],
  ['GET', `/v1/workspaces/${B.id}/findings`],
  ['GET', `/v1/workspaces/${B.id}/findings?repository=acme%2Fb-repo`],
  ['GET', `/v1/workspaces/${B.id}/keys`],
  ['POST', `/v1/workspaces/${B.id}/keys`, { name: 'stolen' }],
  ['DELETE', `/v1/workspaces/${B.id}/keys/${B.keyId}`],
  ['GET', `/v1/workspaces/${B.id}/members`],
  ['POST', `/v1/workspaces/${B.id}/members`, { email: 'mallory@example.test', role: 'owner' }],
  ['DELETE', `/v1/workspaces/${B.id}/members/${B.bobId}`],
];

describe('cross-tenant access', () => {
  it.each(['session', 'token', 'key'])("A's %s gets 403 on every route of B, and B is unchanged", async (kind) => {
    const before = await snapshotB();
    for (const [method, path, body] of routes()) {
      let r;
      if (kind === 'session') r = await A.owner.request(method, path, { body });
      else {
        const res = await fetch(cp.url + path, {
          method,
          headers: { authorization: `Bearer ${kind === 'token' ? A.token : A.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        r = { status: res.status, json: await res.json() };
      }
      expect([method, path, r.status]).toEqual([method, path, 403]);
      expect(r.json.error).toBe('forbidden');
    }
    expect(await snapshotB()).toBe(before);
  });

  it("A's key cannot post events into B, in an envelope or a bare array", async () => {
    const before = await cp.store.countEvents(B.id);
    const beforeA = await cp.store.countEvents(A.id);
    expect((await postEvents(cp.url, A.key, makeEnvelope(B.id, [makeEvent(B.id)]))).status).toBe(403);
    expect((await postEvents(cp.url, A.key, [makeEvent(B.id)])).status).toBe(403);
    // an envelope of A carrying one event of B: the whole batch is refused
    expect((await postEvents(cp.url, A.key, makeEnvelope(A.id, [makeEvent(A.id), makeEvent(B.id)]))).status).toBe(403);
    expect(await cp.store.countEvents(B.id)).toBe(before);
    expect(await cp.store.countEvents(A.id)).toBe(beforeA);
  });

  it("findings uploaded with A's key or token land in A only", async () => {
    expect((await postFindings(cp.url, A.key, 'acme/a-repo')).status).toBe(201);
    expect((await postFindings(cp.url, A.token, 'acme/a-token-repo')).status).toBe(201);
    const a = await A.owner.request('GET', `/v1/workspaces/${A.id}/findings`);
    const b = await B.owner.request('GET', `/v1/workspaces/${B.id}/findings`);
    expect(a.json.repositories.map((r) => r.repository).sort()).toEqual(['acme/a-repo', 'acme/a-token-repo']);
    expect(b.json.repositories.map((r) => r.repository)).toEqual(['acme/b-repo']);
  });

  it('the workspace list shows only what the caller may see', async () => {
    expect((await A.owner.request('GET', '/v1/workspaces')).json.workspaces.map((w) => w.id)).toEqual([A.id]);
    expect((await B.owner.request('GET', '/v1/workspaces')).json.workspaces.map((w) => w.id)).toEqual([B.id]);
    const viaToken = await fetch(`${cp.url}/v1/workspaces`, { headers: { authorization: `Bearer ${A.token}` } }).then((r) => r.json());
    expect(viaToken.workspaces.map((w) => w.id)).toEqual([A.id]);
    expect((await fetch(`${cp.url}/v1/workspaces`, { headers: { authorization: `Bearer ${A.key}` } })).status).toBe(403);
  });

  it('B still reads its own data with its own credentials', async () => {
    const viaToken = await fetch(`${cp.url}/v1/workspaces/${B.id}/events`, { headers: { authorization: `Bearer ${B.token}` } }).then((r) => r.json());
    expect(viaToken.events.length).toBe(2);
    expect(viaToken.events.every((e) => e.workspace_id === B.id)).toBe(true);
  });
});
