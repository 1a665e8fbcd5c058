// The contract of the control plane's store (server/src/store/store.js), as a suite any backend
// runs unchanged: `storeContract(name, openStore)`, where `openStore()` resolves to a fresh,
// empty store. The suite talks to the store through its methods only (no SQL, no internals), and
// closes every store it opened; the caller removes whatever the stores left on disk.
//
// What a backend promises (and this suite checks):
// - Every name in STORE_METHODS is an async method; times are ms since the epoch (UTC).
// - Accounts: emails are unique without regard to ASCII case, and found that way.
// - Workspaces are addressed by the UUID the caller gives; createWorkspace with an owner makes
//   that account an 'owner' member; updateWorkspace changes only the fields given and returns
//   the updated workspace; isEmpty() is true only while there are no accounts and no workspaces.
// - Members: addMember sets the role (adding again changes it), removeMember takes it away.
// - API keys: records never carry the hash; revokeApiKey is true exactly once, and only within
//   the key's own workspace; touchApiKeys only ever moves lastUsedAt forward.
// - Device codes: decideDeviceCode succeeds only on a pending, unexpired code; pollDeviceCode
//   records the poll and optionally a new interval; useDeviceCode turns an approved code into a
//   used one, true for exactly one caller.
// - ingestEvents is atomic and settles after its batch is durable. With an idempotency key
//   (scoped to the workspace), the first batch is 'stored'; the same key with the same request
//   hash is 'replayed' with the first response and stores nothing (no events, no fleet change);
//   with another hash it is a 'conflict' and stores nothing. Concurrent submissions are each
//   stored exactly once. A batch without an envelope stores events only; an envelope with no
//   events (heartbeat) updates the fleet only. Fleet records accumulate per instance: events
//   add up, firstSeen stays, lastSeen / lastEventAt / dropped only grow, sdk fields follow the
//   latest batch.
// - events(): newest first (timestamp), cursor pages that together are exactly the unpaged
//   result; filters are exact-match (decision, vector, rule, route, method, ip_hash, app) and a
//   half-open time range [from, to). Each event is the decision event (the 12 fields of the
//   schema, `timestamp` as ISO 8601, `action` / `ip` only when set) plus a string `id`.
// - overview(): totals and per-day allow/deny counts over days [from, to] inclusive (days with
//   no events may be left out), top lists of denies ranked by count (routes by denied, then by
//   requests), cut at `limit`, all narrowed by `app`.
// - Findings: an upload is stored whole, and ingestFindings reports { uploadId, findings,
//   inventory } (the counts POST /v1/findings answers with); findingRepositories summarises the
//   latest upload per repository, overall and per kind; repositoryFindings returns the latest (or
//   the given) upload's findings, most severe first, or undefined when the workspace has no such
//   upload.
// - addMember/removeMember throw LastOwnerError, atomically, rather than leave a workspace
//   without an owner.
// - applyRetention(now) deletes events, per-day figures and uploads older than each workspace's
//   retentionDays, and sessions / access tokens that have expired; it reports what it deleted.
// - Tenancy: no read of one workspace ever shows another workspace's data, and a workspace that
//   does not exist reads as empty.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { STORE_METHODS, LastOwnerError } from '@shield/control-plane';

const DAY = 86_400_000;
const SEVERITY_RANK = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** A deterministic 64-hex address hash for a label. */
export function ipHash(label) {
  return createHash('sha256').update(`store-contract ${label}`).digest('hex');
}

/** One validated decision event as the ingest route hands it to the store. */
export function storedEvent(over = {}) {
  return {
    ts: Date.now(), app_id: 'shop', sdk: '@shield/node', sdk_version: '1.4.0', decision: 'deny', action: 'blocked',
    vector: 'xss', rule: 'patterns.xss.script-tag', matched: '<script>', route: '/search', method: 'GET',
    ip_hash: ipHash('default'), ip: null, ...over,
  };
}

/** An IngestBatch of `events` for `workspaceId`. */
export function ingestBatch(workspaceId, events, o = {}) {
  return {
    workspaceId,
    events,
    envelope: o.envelope ?? null,
    idempotencyKey: o.key ?? null,
    requestHash: o.hash ?? randomBytes(16).toString('hex'),
    response: o.response ?? { accepted: events.length, rejected: [] },
    receivedAt: o.receivedAt ?? Date.now(),
  };
}

function envelopeInfo(instanceId, over = {}) {
  return { sdk: '@shield/node', sdk_version: '1.4.0', app_id: 'shop', instance_id: instanceId, dropped: 0, ...over };
}

function finding(i, severity, over = {}) {
  return {
    fingerprint: createHash('sha256').update(`finding ${i} ${severity}`).digest('hex'),
    rule: `js.rule-${i}`, severity, title: `Finding ${i}`, message: `what is wrong in finding ${i}`,
    file: `src/file-${i}.js`, line: i + 1, package: null, version: null, ecosystem: null, advisoryId: null, cvss: null, url: null,
    ...over,
  };
}

function scaFinding(i, severity, over = {}) {
  return finding(i, severity, {
    rule: `GHSA-00${i}x-abcd-efgh`, file: 'package-lock.json', line: null, package: `pkg-${i}`, version: `1.${i}.0`,
    ecosystem: 'npm', advisoryId: `GHSA-00${i}x-abcd-efgh`, cvss: 7.5, url: `https://github.com/advisories/GHSA-00${i}x-abcd-efgh`, ...over,
  });
}

/** A normalized findings upload (findings/parse.js FindingsUpload). */
function findingsUpload(repository, kind, findings, over = {}) {
  return {
    format: 'json', kind,
    tool: { name: kind === 'sca' ? 'shield sca' : 'shield audit', version: '0.1.0' },
    repository: { name: repository, ref: 'refs/heads/main', commit: 'c0ffee'.padEnd(40, '0') },
    generatedAt: Date.now() - 60_000,
    findings,
    inventory: kind === 'sca' ? [{ ecosystem: 'npm', name: 'pkg-1', version: '1.1.0', direct: true }, { ecosystem: 'npm', name: 'dep', version: '2.0.0', direct: null }] : [],
    ...over,
  };
}

function severityCounts(findings) {
  const counts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const byKey = (k) => (a, b) => (a[k] < b[k] ? -1 : a[k] > b[k] ? 1 : 0);

/** Every event of a query, following `next` with pages of `pageSize`. */
async function allPages(store, workspaceId, query = {}, pageSize = 1000) {
  const out = [];
  let cursor;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = await store.events(workspaceId, { ...query, limit: pageSize, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.events.length).toBeLessThanOrEqual(pageSize);
    out.push(...page.events);
    if (page.next === null) return out;
    cursor = page.next;
  }
  throw new Error('events() kept returning a cursor');
}

/** What overview() must report for `events` (StoredEventInput[]) over days [from, to], narrowed by app. */
function expectedOverview(events, { from, to, app, limit = 10 }) {
  const inRange = events.filter((e) => dayOf(e.ts) >= from && dayOf(e.ts) <= to && (app === undefined || e.app_id === app));
  const totals = { allow: 0, deny: 0 };
  const perDay = new Map();
  const vectors = new Map();
  const categories = new Map();
  const routes = new Map();
  const offenders = new Map();
  for (const e of inRange) {
    totals[e.decision]++;
    const d = perDay.get(dayOf(e.ts)) ?? { day: dayOf(e.ts), allow: 0, deny: 0 };
    d[e.decision]++;
    perDay.set(d.day, d);
    const r = routes.get(`${e.method} ${e.route}`) ?? { route: e.route, method: e.method, requests: 0, denied: 0 };
    r.requests++;
    routes.set(`${e.method} ${e.route}`, r);
    if (e.decision !== 'deny') continue;
    r.denied++;
    vectors.set(e.vector, (vectors.get(e.vector) ?? 0) + 1);
    const c = categories.get(`${e.vector} ${e.rule}`) ?? { rule: e.rule, vector: e.vector, denied: 0 };
    c.denied++;
    categories.set(`${e.vector} ${e.rule}`, c);
    offenders.set(e.ip_hash, (offenders.get(e.ip_hash) ?? 0) + 1);
  }
  const ranked = (list, ...keys) => {
    list.sort((a, b) => { for (const k of keys) if (a[k] !== b[k]) return b[k] - a[k]; return 0; });
    // the test data is built without ties, so the ranking is fully determined
    for (let i = 1; i < list.length; i++) expect(keys.some((k) => list[i - 1][k] !== list[i][k]), 'test data has a tie').toBe(true);
    return list.slice(0, limit);
  };
  return {
    totals,
    perDay: [...perDay.values()].sort(byKey('day')),
    topVectors: ranked([...vectors].map(([vector, denied]) => ({ vector, denied })), 'denied'),
    topCategories: ranked([...categories.values()], 'denied'),
    topRoutes: ranked([...routes.values()], 'denied', 'requests'),
    topOffenders: ranked([...offenders].map(([ip_hash, denied]) => ({ ip_hash, denied })), 'denied'),
  };
}

/** The comparable part of an overview() answer: days without events and zero offenders dropped. */
function comparableOverview(o) {
  return {
    totals: o.totals,
    perDay: o.perDay.filter((d) => d.allow + d.deny > 0).map((d) => ({ day: d.day, allow: d.allow, deny: d.deny })).sort(byKey('day')),
    topVectors: o.topVectors,
    topCategories: o.topCategories,
    topRoutes: o.topRoutes,
    topOffenders: o.topOffenders.filter((x) => x.denied > 0),
  };
}

/**
 * @param {string} name
 * @param {() => Promise<any>} openStore a fresh, empty store
 */
export function storeContract(name, openStore) {
  describe(`store contract: ${name}`, () => {
    /** Methods of STORE_METHODS the suite has called. */
    const called = new Set();
    /** @type {{ store: any, closed: boolean }[]} */
    const opened = [];

    /** A fresh store, wrapped so the suite can tell which methods it exercised. */
    async function fresh() {
      const entry = { store: await openStore(), closed: false };
      opened.push(entry);
      return new Proxy(entry.store, {
        get(target, prop) {
          const v = Reflect.get(target, prop, target);
          if (typeof v !== 'function') return v;
          return (...args) => {
            if (STORE_METHODS.includes(prop)) called.add(prop);
            if (prop === 'close') entry.closed = true;
            return v.apply(target, args);
          };
        },
      });
    }

    let n = 0;
    const unique = (label) => `${label}-${++n}-${randomUUID().slice(0, 8)}`;

    /** An account and a workspace it owns. */
    async function tenant(store, label, retentionDays = 30) {
      const account = await store.createAccount({ email: `${unique(label)}@example.test`, passwordHash: `hash-of-${label}` });
      const workspace = await store.createWorkspace({ id: randomUUID(), name: label, retentionDays, ownerAccountId: account.id });
      return { account, workspace, id: workspace.id };
    }

    afterAll(async () => {
      for (const entry of opened) if (!entry.closed) await entry.store.close();
    });

    it('implements every method of STORE_METHODS', async () => {
      const store = await fresh();
      for (const m of STORE_METHODS) expect(typeof store[m], m).toBe('function');
    });

    describe('accounts', () => {
      let store;
      beforeAll(async () => { store = await fresh(); });

      it('a fresh store is empty; an account makes it non-empty', async () => {
        expect(await store.isEmpty()).toBe(true);
        await store.createAccount({ email: 'first@example.test', passwordHash: 'h0' });
        expect(await store.isEmpty()).toBe(false);
      });

      it('creates an account and finds it by id and by email in any ASCII case', async () => {
        const before = Date.now();
        const a = await store.createAccount({ email: 'Alice@Example.test', passwordHash: 'scrypt$alice' });
        expect(a).toMatchObject({ email: 'Alice@Example.test', passwordHash: 'scrypt$alice' });
        expect(a.id).toBeDefined();
        expect(a.createdAt).toBeGreaterThanOrEqual(before);
        expect(a.createdAt).toBeLessThanOrEqual(Date.now());
        expect(await store.account(a.id)).toEqual(a);
        expect(await store.accountByEmail('alice@example.test')).toEqual(a);
        expect(await store.accountByEmail('ALICE@EXAMPLE.TEST')).toEqual(a);
        expect(await store.accountByEmail('nobody@example.test')).toBeUndefined();
        expect(await store.account(987_654_321)).toBeUndefined();
      });

      it('refuses a second account with the same email, whatever its case, and keeps the first', async () => {
        await store.createAccount({ email: 'bob@example.test', passwordHash: 'first' });
        await expect(store.createAccount({ email: 'bob@example.test', passwordHash: 'second' })).rejects.toThrow();
        await expect(store.createAccount({ email: 'BOB@example.TEST', passwordHash: 'third' })).rejects.toThrow();
        expect((await store.accountByEmail('bob@example.test')).passwordHash).toBe('first');
      });
    });

    describe('workspaces and members', () => {
      let store;
      let owner;
      let bob;
      beforeAll(async () => {
        store = await fresh();
        owner = await store.createAccount({ email: 'owner@example.test', passwordHash: 'h1' });
        bob = await store.createAccount({ email: 'bob@example.test', passwordHash: 'h2' });
      });

      it('a workspace alone makes a store non-empty', async () => {
        const other = await fresh();
        expect(await other.isEmpty()).toBe(true);
        await other.createWorkspace({ id: randomUUID(), name: 'lonely', retentionDays: 30 });
        expect(await other.isEmpty()).toBe(false);
        expect(await other.isEmpty()).toBe(false);
      });

      it('creates a workspace with its owner and lists it with the role', async () => {
        const id = randomUUID();
        const before = Date.now();
        const ws = await store.createWorkspace({ id, name: 'Shop', retentionDays: 30, ownerAccountId: owner.id });
        expect(ws).toEqual({ id, name: 'Shop', retentionDays: 30, createdAt: expect.any(Number) });
        expect(ws.createdAt).toBeGreaterThanOrEqual(before);
        expect(await store.workspace(id)).toEqual(ws);
        expect(await store.workspacesOf(owner.id)).toEqual([{ ...ws, role: 'owner' }]);
        expect(await store.workspacesOf(bob.id)).toEqual([]);
        expect(await store.role(id, owner.id)).toBe('owner');
        expect(await store.role(id, bob.id)).toBeNull();
        expect(await store.members(id)).toEqual([{ accountId: owner.id, email: 'owner@example.test', role: 'owner', createdAt: expect.any(Number) }]);
        expect(await store.workspace(randomUUID())).toBeUndefined();
      });

      it('a workspace created without an owner has no members', async () => {
        const ws = await store.createWorkspace({ id: randomUUID(), name: 'Orphan', retentionDays: 7 });
        expect(await store.members(ws.id)).toEqual([]);
        expect((await store.workspacesOf(owner.id)).map((w) => w.id)).not.toContain(ws.id);
      });

      it('updates only the fields given and returns the updated workspace', async () => {
        const ws = await store.createWorkspace({ id: randomUUID(), name: 'Before', retentionDays: 30, ownerAccountId: owner.id });
        const renamed = await store.updateWorkspace(ws.id, { name: 'After' });
        expect(renamed).toEqual({ ...ws, name: 'After' });
        const shorter = await store.updateWorkspace(ws.id, { retentionDays: 7 });
        expect(shorter).toEqual({ ...ws, name: 'After', retentionDays: 7 });
        expect(await store.workspace(ws.id)).toEqual(shorter);
        expect((await store.workspacesOf(owner.id)).find((w) => w.id === ws.id)).toEqual({ ...shorter, role: 'owner' });
        const ghost = randomUUID();
        await store.updateWorkspace(ghost, { name: 'Ghost' });
        expect(await store.workspace(ghost)).toBeUndefined();
      });

      it('adds a member, changes the role by adding again, and removes the member', async () => {
        const ws = await store.createWorkspace({ id: randomUUID(), name: 'Team', retentionDays: 30, ownerAccountId: owner.id });
        await store.addMember(ws.id, bob.id, 'member');
        expect(await store.role(ws.id, bob.id)).toBe('member');
        expect((await store.workspacesOf(bob.id)).find((w) => w.id === ws.id)).toEqual({ ...ws, role: 'member' });
        let members = await store.members(ws.id);
        expect(members.map((m) => [m.accountId, m.email, m.role]).sort()).toEqual([[bob.id, 'bob@example.test', 'member'], [owner.id, 'owner@example.test', 'owner']].sort());

        await store.addMember(ws.id, bob.id, 'owner');
        expect(await store.role(ws.id, bob.id)).toBe('owner');
        members = await store.members(ws.id);
        expect(members.filter((m) => m.accountId === bob.id)).toEqual([{ accountId: bob.id, email: 'bob@example.test', role: 'owner', createdAt: expect.any(Number) }]);

        await store.removeMember(ws.id, bob.id);
        expect(await store.role(ws.id, bob.id)).toBeNull();
        expect((await store.members(ws.id)).map((m) => m.accountId)).toEqual([owner.id]);
        expect((await store.workspacesOf(bob.id)).map((w) => w.id)).not.toContain(ws.id);
        await store.removeMember(ws.id, bob.id); // removing twice is harmless
        expect(await store.role(ws.id, owner.id)).toBe('owner');
      });

      it('never leaves a workspace without an owner, even when two owners leave at once', async () => {
        const ws = await store.createWorkspace({ id: randomUUID(), name: 'Owned', retentionDays: 30, ownerAccountId: owner.id });
        await expect(store.removeMember(ws.id, owner.id)).rejects.toBeInstanceOf(LastOwnerError);
        await expect(store.addMember(ws.id, owner.id, 'member')).rejects.toBeInstanceOf(LastOwnerError);
        expect(await store.role(ws.id, owner.id)).toBe('owner');
        await store.addMember(ws.id, bob.id, 'owner');
        // both owners leave concurrently: exactly one of them may go
        const results = await Promise.allSettled([store.removeMember(ws.id, owner.id), store.removeMember(ws.id, bob.id)]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof LastOwnerError)).toHaveLength(1);
        expect((await store.members(ws.id)).filter((m) => m.role === 'owner')).toHaveLength(1);
      });
    });

    describe('API keys', () => {
      let store;
      let a;
      let b;
      beforeAll(async () => {
        store = await fresh();
        a = await tenant(store, 'keys-a');
        b = await tenant(store, 'keys-b');
      });

      const newKey = (workspaceId, name) => {
        const id = unique('key');
        return { id, workspaceId, name, prefix: `shk_${id.slice(-6)}`, hash: createHash('sha256').update(id).digest('hex') };
      };

      it('creates keys, lists them per workspace and finds one by hash, never showing the hash', async () => {
        const k1 = newKey(a.id, 'ci');
        const k2 = newKey(a.id, 'prod');
        const before = Date.now();
        const r1 = await store.createApiKey(k1);
        expect(r1).toEqual({ id: k1.id, workspaceId: a.id, name: 'ci', prefix: k1.prefix, scopes: ['events', 'findings'], createdAt: expect.any(Number), lastUsedAt: null, revokedAt: null });
        expect(r1.createdAt).toBeGreaterThanOrEqual(before);
        const r2 = await store.createApiKey(k2);
        expect((await store.apiKeys(a.id)).sort(byKey('id'))).toEqual([r1, r2].sort(byKey('id')));
        expect(await store.apiKeys(b.id)).toEqual([]);
        expect(await store.apiKeyByHash(k1.hash)).toEqual(r1);
        expect(await store.apiKeyByHash(createHash('sha256').update('no such key').digest('hex'))).toBeUndefined();
      });

      it('keeps the scopes a key was created with', async () => {
        const k = { ...newKey(a.id, 'sdk'), scopes: ['events'] };
        const made = await store.createApiKey(k);
        expect(made.scopes).toEqual(['events']);
        expect((await store.apiKeyByHash(k.hash)).scopes).toEqual(['events']);
        const f = { ...newKey(a.id, 'ci'), scopes: ['findings'] };
        await store.createApiKey(f);
        expect((await store.apiKeys(a.id)).find((x) => x.id === f.id).scopes).toEqual(['findings']);
      });

      it('revokes a key once: true, then false; never through another workspace', async () => {
        const k = newKey(a.id, 'to-revoke');
        const other = newKey(a.id, 'stays');
        await store.createApiKey(k);
        await store.createApiKey(other);
        expect(await store.revokeApiKey(b.id, k.id)).toBe(false);
        expect(await store.revokeApiKey(randomUUID(), k.id)).toBe(false);
        expect((await store.apiKeyByHash(k.hash)).revokedAt).toBeNull();

        const before = Date.now();
        expect(await store.revokeApiKey(a.id, k.id)).toBe(true);
        const revoked = await store.apiKeyByHash(k.hash);
        expect(revoked.revokedAt).toBeGreaterThanOrEqual(before);
        expect(await store.revokeApiKey(a.id, k.id)).toBe(false);
        expect((await store.apiKeyByHash(k.hash)).revokedAt).toBe(revoked.revokedAt);
        expect((await store.apiKeys(a.id)).find((x) => x.id === k.id).revokedAt).toBe(revoked.revokedAt);
        expect((await store.apiKeyByHash(other.hash)).revokedAt).toBeNull();
        expect(await store.revokeApiKey(a.id, 'no-such-key')).toBe(false);
      });

      it('touchApiKeys sets lastUsedAt and never moves it back', async () => {
        const k1 = newKey(a.id, 't1');
        const k2 = newKey(b.id, 't2');
        await store.createApiKey(k1);
        await store.createApiKey(k2);
        await store.touchApiKeys(new Map());
        const t = Date.now();
        await store.touchApiKeys(new Map([[k1.id, t]]));
        expect((await store.apiKeyByHash(k1.hash)).lastUsedAt).toBe(t);
        expect((await store.apiKeyByHash(k2.hash)).lastUsedAt).toBeNull();
        await store.touchApiKeys(new Map([[k1.id, t - 60_000], [k2.id, t + 5]]));
        expect((await store.apiKeyByHash(k1.hash)).lastUsedAt).toBe(t);
        expect((await store.apiKeyByHash(k2.hash)).lastUsedAt).toBe(t + 5);
        await store.touchApiKeys(new Map([[k1.id, t + 1000]]));
        expect((await store.apiKeyByHash(k1.hash)).lastUsedAt).toBe(t + 1000);
        expect((await store.apiKeys(a.id)).find((x) => x.id === k1.id).lastUsedAt).toBe(t + 1000);
        await store.touchApiKeys(new Map([['no-such-key', t]]));
      });
    });

    describe('sessions, device codes and access tokens', () => {
      let store;
      let t;
      beforeAll(async () => {
        store = await fresh();
        t = await tenant(store, 'auth');
      });

      it('creates, reads and deletes a session', async () => {
        const hash = unique('session');
        const expiresAt = Date.now() + 3_600_000;
        await store.createSession({ hash, accountId: t.account.id, expiresAt });
        expect(await store.session(hash)).toEqual({ accountId: t.account.id, expiresAt });
        expect(await store.session(unique('other'))).toBeUndefined();
        await store.deleteSession(hash);
        expect(await store.session(hash)).toBeUndefined();
        await store.deleteSession(hash);
      });

      const newCode = async (over = {}) => {
        const code = { hash: unique('device'), userCode: unique('UC').toUpperCase(), intervalS: 5, expiresAt: Date.now() + 600_000, ...over };
        await store.createDeviceCode(code);
        return code;
      };

      it('creates a pending device code, found by hash and by user code', async () => {
        const c = await newCode();
        const expected = { status: 'pending', userCode: c.userCode, accountId: null, workspaceId: null, intervalS: 5, lastPollAt: null, expiresAt: c.expiresAt };
        expect(await store.deviceCodeByHash(c.hash)).toEqual(expected);
        expect(await store.deviceCodeByUserCode(c.userCode)).toEqual(expected);
        expect(await store.deviceCodeByHash(unique('nope'))).toBeUndefined();
        expect(await store.deviceCodeByUserCode('NOPE-NOPE')).toBeUndefined();
      });

      it('records polls, with an interval change only when one is given', async () => {
        const c = await newCode();
        const at = Date.now();
        await store.pollDeviceCode(c.hash, at);
        expect(await store.deviceCodeByHash(c.hash)).toMatchObject({ lastPollAt: at, intervalS: 5, status: 'pending' });
        await store.pollDeviceCode(c.hash, at + 1000, 10);
        expect(await store.deviceCodeByHash(c.hash)).toMatchObject({ lastPollAt: at + 1000, intervalS: 10 });
        await store.pollDeviceCode(c.hash, at + 2000);
        expect(await store.deviceCodeByUserCode(c.userCode)).toMatchObject({ lastPollAt: at + 2000, intervalS: 10 });
      });

      it('approves a pending code once; the approved code is used exactly once', async () => {
        const c = await newCode();
        expect(await store.useDeviceCode(c.hash)).toBe(false); // pending, not approved
        expect(await store.decideDeviceCode(c.userCode, { status: 'approved', accountId: t.account.id, workspaceId: t.id })).toBe(true);
        expect(await store.deviceCodeByHash(c.hash)).toMatchObject({ status: 'approved', accountId: t.account.id, workspaceId: t.id });
        expect(await store.decideDeviceCode(c.userCode, { status: 'denied', accountId: t.account.id, workspaceId: null })).toBe(false);
        expect((await store.deviceCodeByHash(c.hash)).status).toBe('approved');
        expect(await store.useDeviceCode(c.hash)).toBe(true);
        expect(await store.useDeviceCode(c.hash)).toBe(false);
        expect(await store.deviceCodeByUserCode(c.userCode)).toMatchObject({ status: 'used', accountId: t.account.id, workspaceId: t.id });
        expect(await store.decideDeviceCode(c.userCode, { status: 'approved', accountId: t.account.id, workspaceId: t.id })).toBe(false);
      });

      it('of concurrent useDeviceCode calls exactly one wins', async () => {
        const c = await newCode();
        expect(await store.decideDeviceCode(c.userCode, { status: 'approved', accountId: t.account.id, workspaceId: t.id })).toBe(true);
        const wins = await Promise.all(Array.from({ length: 8 }, () => store.useDeviceCode(c.hash)));
        expect(wins.filter(Boolean)).toHaveLength(1);
      });

      it('a denied code cannot be used; an expired or unknown code cannot be decided', async () => {
        const denied = await newCode();
        expect(await store.decideDeviceCode(denied.userCode, { status: 'denied', accountId: t.account.id, workspaceId: null })).toBe(true);
        expect(await store.deviceCodeByHash(denied.hash)).toMatchObject({ status: 'denied', workspaceId: null });
        expect(await store.useDeviceCode(denied.hash)).toBe(false);
        expect(await store.decideDeviceCode(denied.userCode, { status: 'approved', accountId: t.account.id, workspaceId: t.id })).toBe(false);

        const expired = await newCode({ expiresAt: Date.now() - 1000 });
        expect(await store.decideDeviceCode(expired.userCode, { status: 'approved', accountId: t.account.id, workspaceId: t.id })).toBe(false);
        expect(await store.deviceCodeByHash(expired.hash)).toMatchObject({ status: 'pending', accountId: null, workspaceId: null });
        expect(await store.useDeviceCode(expired.hash)).toBe(false);

        expect(await store.decideDeviceCode('NO-SUCH-CODE', { status: 'denied', accountId: t.account.id, workspaceId: null })).toBe(false);
      });

      it('counts pending, unexpired device codes', async () => {
        const own = await fresh();
        const at = Date.now();
        expect(await own.pendingDeviceCodes(at)).toBe(0);
        const mk = (over) => own.createDeviceCode({ hash: unique('pd'), userCode: unique('PD').toUpperCase(), intervalS: 5, expiresAt: at + 600_000, ...over });
        await mk({});
        await mk({});
        await mk({ expiresAt: at - 1 });
        const decided = { hash: unique('pd'), userCode: unique('PD').toUpperCase(), intervalS: 5, expiresAt: at + 600_000 };
        await own.createDeviceCode(decided);
        const w = await tenant(own, 'pending');
        await own.decideDeviceCode(decided.userCode, { status: 'approved', accountId: w.account.id, workspaceId: w.id });
        expect(await own.pendingDeviceCodes(at)).toBe(2);
        expect(await own.pendingDeviceCodes(at + 700_000)).toBe(0);
      });

      it('setPassword replaces the hash and ends the other sessions and every access token', async () => {
        const who = await tenant(store, 'password');
        const keep = unique('keep');
        const other = unique('other');
        const token = unique('tok');
        const later = Date.now() + 3_600_000;
        await store.createSession({ hash: keep, accountId: who.account.id, expiresAt: later });
        await store.createSession({ hash: other, accountId: who.account.id, expiresAt: later });
        await store.createSession({ hash: unique('bystander'), accountId: t.account.id, expiresAt: later });
        await store.createAccessToken({ hash: token, accountId: who.account.id, workspaceId: who.id, expiresAt: later });
        expect(await store.setPassword(who.account.id, 'scrypt$new', { keepSessionHash: keep })).toBe(true);
        expect((await store.account(who.account.id)).passwordHash).toBe('scrypt$new');
        expect(await store.session(keep)).toBeDefined();
        expect(await store.session(other)).toBeUndefined();
        expect(await store.accessToken(token)).toBeUndefined();
        expect(await store.setPassword(987_654_321, 'x')).toBe(false);
      });

      it('removing a member ends its access tokens for that workspace only', async () => {
        const a = await tenant(store, 'member-a');
        const b = await tenant(store, 'member-b');
        await store.addMember(b.id, a.account.id, 'member');
        const inA = unique('tok-a');
        const inB = unique('tok-b');
        const later = Date.now() + 3_600_000;
        await store.createAccessToken({ hash: inA, accountId: a.account.id, workspaceId: a.id, expiresAt: later });
        await store.createAccessToken({ hash: inB, accountId: a.account.id, workspaceId: b.id, expiresAt: later });
        expect(await store.removeMember(b.id, a.account.id)).toBe(true);
        expect(await store.accessToken(inB)).toBeUndefined();
        expect(await store.accessToken(inA)).toBeDefined();
      });

      it('creates and reads an access token', async () => {
        const hash = unique('token');
        const expiresAt = Date.now() + 8 * 3_600_000;
        await store.createAccessToken({ hash, accountId: t.account.id, workspaceId: t.id, expiresAt });
        expect(await store.accessToken(hash)).toEqual({ accountId: t.account.id, workspaceId: t.id, expiresAt });
        expect(await store.accessToken(unique('other'))).toBeUndefined();
      });
    });

    describe('ingestEvents', () => {
      let store;
      let t;
      beforeAll(async () => {
        store = await fresh();
        t = await tenant(store, 'ingest');
      });

      it('stores a batch; the same key and body is replayed with the first answer and stores nothing', async () => {
        const before = await store.countEvents(t.id);
        const key = unique('idem');
        const route = `/idem/${key}`;
        const first = ingestBatch(t.id, [storedEvent({ route }), storedEvent({ route, decision: 'allow', vector: 'none', rule: 'none', matched: '', action: 'passed' })], {
          key, hash: 'hash-one', response: { accepted: 2, rejected: [{ index: 2, errors: ['decision must be one of allow, deny'] }] },
        });
        expect(await store.ingestEvents(first)).toEqual({ status: 'stored', response: first.response });
        expect(await store.countEvents(t.id)).toBe(before + 2);

        const again = ingestBatch(t.id, [storedEvent({ route }), storedEvent({ route }), storedEvent({ route })], { key, hash: 'hash-one' });
        expect(await store.ingestEvents(again)).toEqual({ status: 'replayed', response: first.response });
        expect(await store.countEvents(t.id)).toBe(before + 2);
        expect(await allPages(store, t.id, { route })).toHaveLength(2);
      });

      it('the same key with another body is a conflict and stores nothing', async () => {
        const key = unique('idem');
        const route = `/conflict/${key}`;
        await store.ingestEvents(ingestBatch(t.id, [storedEvent({ route })], { key, hash: 'hash-a' }));
        const before = await store.countEvents(t.id);
        const result = await store.ingestEvents(ingestBatch(t.id, [storedEvent({ route }), storedEvent({ route })], { key, hash: 'hash-b' }));
        expect(result.status).toBe('conflict');
        expect(await store.countEvents(t.id)).toBe(before);
        expect(await allPages(store, t.id, { route })).toHaveLength(1);
      });

      it('without a key every submission is stored', async () => {
        const route = `/nokey/${unique('r')}`;
        const b = ingestBatch(t.id, [storedEvent({ route })], { hash: 'same-body' });
        expect((await store.ingestEvents(b)).status).toBe('stored');
        expect((await store.ingestEvents({ ...b })).status).toBe('stored');
        expect(await allPages(store, t.id, { route })).toHaveLength(2);
      });

      it('50 batches submitted at once are each stored exactly once', async () => {
        const before = await store.countEvents(t.id);
        const run = unique('burst');
        const batches = Array.from({ length: 50 }, (_, i) => ingestBatch(
          t.id,
          Array.from({ length: 1 + (i % 9) }, (_, j) => storedEvent({ route: `/burst/${run}/${i}`, matched: `e${j}`, ip_hash: ipHash(`burst ${i} ${j}`) })),
          { key: `${run}-${i}`, envelope: i % 2 === 0 ? envelopeInfo(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`) : null },
        ));
        const results = await Promise.all(batches.map((b) => store.ingestEvents(b)));
        expect(results.map((r) => r.status)).toEqual(batches.map(() => 'stored'));
        results.forEach((r, i) => expect(r.response).toEqual(batches[i].response));
        const total = batches.reduce((s, b) => s + b.events.length, 0);
        expect(await store.countEvents(t.id)).toBe(before + total);
        for (let i = 0; i < batches.length; i++) {
          const got = await allPages(store, t.id, { route: `/burst/${run}/${i}` });
          expect(got.map((e) => e.matched).sort(), `batch ${i}`).toEqual(batches[i].events.map((e) => e.matched).sort());
        }
      });

      it('concurrent retries of one key store the batch once; the rest replay or conflict', async () => {
        const before = await store.countEvents(t.id);
        const run = unique('race');
        const batches = [];
        for (let i = 0; i < 20; i++) {
          const events = Array.from({ length: 3 }, (_, j) => storedEvent({ route: `/race/${run}/${i}`, matched: `e${j}` }));
          // each key three times at once: twice with its body, once with another body
          batches.push(ingestBatch(t.id, events, { key: `${run}-${i}`, hash: `body-${i}` }));
          batches.push(ingestBatch(t.id, events, { key: `${run}-${i}`, hash: `body-${i}` }));
          batches.push(ingestBatch(t.id, events.slice(0, 1), { key: `${run}-${i}`, hash: `other-${i}`, response: { accepted: 1, rejected: [] } }));
        }
        const results = await Promise.all(batches.map((b) => store.ingestEvents(b)));
        for (let i = 0; i < 20; i++) {
          const mine = results.slice(3 * i, 3 * i + 3);
          const stored = mine.findIndex((r) => r.status === 'stored');
          expect(mine.filter((r) => r.status === 'stored'), `key ${i}`).toHaveLength(1);
          const winner = batches[3 * i + stored];
          mine.forEach((r, j) => {
            if (j === stored) return;
            const same = batches[3 * i + j].requestHash === winner.requestHash;
            expect(r.status, `key ${i} submission ${j}`).toBe(same ? 'replayed' : 'conflict');
            if (same) expect(r.response).toEqual(winner.response);
          });
          expect(await allPages(store, t.id, { route: `/race/${run}/${i}` })).toHaveLength(winner.events.length);
        }
        const expected = results.reduce((s, r, k) => s + (r.status === 'stored' ? batches[k].events.length : 0), 0);
        expect(await store.countEvents(t.id)).toBe(before + expected);
      });

      it('a batch without an envelope stores its events and touches no fleet record', async () => {
        const fleetBefore = await store.fleet(t.id);
        const route = `/bare/${unique('r')}`;
        expect((await store.ingestEvents(ingestBatch(t.id, [storedEvent({ route }), storedEvent({ route })]))).status).toBe('stored');
        expect(await allPages(store, t.id, { route })).toHaveLength(2);
        expect(await store.fleet(t.id)).toEqual(fleetBefore);
      });

      it('a heartbeat (envelope, no events) creates the fleet record and stores no event', async () => {
        const before = await store.countEvents(t.id);
        const instance = randomUUID();
        const receivedAt = Date.now();
        const r = await store.ingestEvents(ingestBatch(t.id, [], { envelope: envelopeInfo(instance, { dropped: 4, app_id: 'idle-app' }), receivedAt }));
        expect(r).toEqual({ status: 'stored', response: { accepted: 0, rejected: [] } });
        expect(await store.countEvents(t.id)).toBe(before);
        expect((await store.fleet(t.id)).find((f) => f.instanceId === instance)).toEqual({
          instanceId: instance, appId: 'idle-app', sdk: '@shield/node', sdkVersion: '1.4.0',
          firstSeen: receivedAt, lastSeen: receivedAt, lastEventAt: null, events: 0, dropped: 4,
        });
      });

      it('fleet records accumulate per instance; a replay does not count again', async () => {
        const instance = randomUUID();
        const t0 = Date.now() - 10_000;
        const e1 = [storedEvent({ ts: t0 - 5000 }), storedEvent({ ts: t0 - 4000 }), storedEvent({ ts: t0 - 3000 })];
        const key = unique('fleet');
        await store.ingestEvents(ingestBatch(t.id, e1, { key, hash: 'f1', receivedAt: t0, envelope: envelopeInfo(instance, { dropped: 2, sdk_version: '1.0.0' }) }));
        let rec = (await store.fleet(t.id)).find((f) => f.instanceId === instance);
        expect(rec).toEqual({ instanceId: instance, appId: 'shop', sdk: '@shield/node', sdkVersion: '1.0.0', firstSeen: t0, lastSeen: t0, lastEventAt: t0 - 3000, events: 3, dropped: 2 });

        const e2 = [storedEvent({ ts: t0 + 1000 }), storedEvent({ ts: t0 + 500 })];
        await store.ingestEvents(ingestBatch(t.id, e2, { receivedAt: t0 + 2000, envelope: envelopeInfo(instance, { dropped: 5, sdk_version: '1.1.0' }) }));
        rec = (await store.fleet(t.id)).find((f) => f.instanceId === instance);
        expect(rec).toEqual({ instanceId: instance, appId: 'shop', sdk: '@shield/node', sdkVersion: '1.1.0', firstSeen: t0, lastSeen: t0 + 2000, lastEventAt: t0 + 1000, events: 5, dropped: 5 });

        // the first batch again: replayed, the record stays as it is
        expect((await store.ingestEvents(ingestBatch(t.id, e1, { key, hash: 'f1', receivedAt: t0 + 3000, envelope: envelopeInfo(instance, { dropped: 2, sdk_version: '1.0.0' }) }))).status).toBe('replayed');
        expect((await store.fleet(t.id)).find((f) => f.instanceId === instance)).toEqual(rec);

        // a heartbeat moves lastSeen and keeps what the events said
        await store.ingestEvents(ingestBatch(t.id, [], { receivedAt: t0 + 4000, envelope: envelopeInfo(instance, { dropped: 5, sdk_version: '1.1.0' }) }));
        expect((await store.fleet(t.id)).find((f) => f.instanceId === instance)).toEqual({ ...rec, lastSeen: t0 + 4000 });
      });

      it('an instance sending several batches at once is counted once per batch', async () => {
        const instance = randomUUID();
        const batches = Array.from({ length: 12 }, (_, i) => ingestBatch(t.id, Array.from({ length: i + 1 }, () => storedEvent()), { key: unique('same-instance'), envelope: envelopeInfo(instance, { dropped: i }) }));
        await Promise.all(batches.map((b) => store.ingestEvents(b)));
        const rec = (await store.fleet(t.id)).find((f) => f.instanceId === instance);
        expect(rec.events).toBe((12 * 13) / 2);
        expect(rec.dropped).toBe(11);
        expect(rec.firstSeen).toBe(Math.min(...batches.map((b) => b.receivedAt)));
        expect(rec.lastSeen).toBe(Math.max(...batches.map((b) => b.receivedAt)));
      });
    });

    describe('events() feed', () => {
      let store;
      let t;
      const base = Date.now() - 3 * 3_600_000;
      const MIN = 60_000;
      /** @type {ReturnType<typeof storedEvent>[]} */
      const input = [];
      let full;
      beforeAll(async () => {
        store = await fresh();
        t = await tenant(store, 'feed');
        for (let i = 0; i < 36; i++) {
          const allow = i % 4 === 0;
          const vector = allow ? 'none' : ['xss', 'sql', 'path'][i % 3];
          input.push(storedEvent({
            ts: base + ((i * 7) % 36) * MIN, // distinct times, not in insertion order
            decision: allow ? 'allow' : 'deny',
            action: i === 7 ? null : allow ? 'passed' : 'blocked',
            vector,
            rule: allow ? 'none' : `patterns.${vector}.r${i % 2}`,
            matched: `m${i}`,
            route: ['/a', '/b/:id', '/c', '/d', '/e'][i % 5],
            method: i % 2 === 1 ? 'POST' : 'GET',
            ip_hash: ipHash(`feed ${i % 4}`),
            app_id: i % 6 === 0 ? 'blog' : 'shop',
            ip: i === 5 ? '203.0.113.9' : null,
          }));
        }
        // ten events sharing one time, newest of all, across two batches
        for (let i = 36; i < 46; i++) input.push(storedEvent({ ts: base + 100 * MIN, matched: `m${i}`, route: '/tie', ip_hash: ipHash(`feed ${i % 4}`) }));
        for (let k = 0; k < input.length; k += 9) await store.ingestEvents(ingestBatch(t.id, input.slice(k, k + 9)));
        full = (await store.events(t.id, { limit: 1000 })).events;
      });

      const matchedOf = (events) => events.map((e) => e.matched);
      const inputOf = (e) => input[Number(e.matched.slice(1))];

      it('returns every event, newest first, as decision events', async () => {
        expect(full).toHaveLength(46);
        expect(new Set(matchedOf(full)).size).toBe(46);
        expect(full.map((e) => Date.parse(e.timestamp))).toEqual(input.map((e) => e.ts).sort((x, y) => y - x));
        expect(new Set(full.slice(0, 10).map((e) => e.route))).toEqual(new Set(['/tie']));
        expect(await store.countEvents(t.id)).toBe(46);
        for (const e of full) {
          const src = inputOf(e);
          expect(typeof e.id).toBe('string');
          expect(e).toMatchObject({
            workspace_id: t.id, app_id: src.app_id, sdk: src.sdk, sdk_version: src.sdk_version, decision: src.decision, vector: src.vector,
            rule: src.rule, matched: src.matched, route: src.route, method: src.method, ip_hash: src.ip_hash, timestamp: new Date(src.ts).toISOString(),
          });
          if (src.action === null) expect(e.action).toBeUndefined(); else expect(e.action).toBe(src.action);
          if (src.ip === null) expect(e.ip).toBeUndefined(); else expect(e.ip).toBe(src.ip);
        }
      });

      it('cursor pages add up to the whole feed: no duplicates, no gaps, same order', async () => {
        for (const size of [1, 3, 7, 10, 45, 46]) {
          const paged = await allPages(store, t.id, {}, size);
          expect(matchedOf(paged), `page size ${size}`).toEqual(matchedOf(full));
        }
        const first = await store.events(t.id, { limit: 5 });
        expect(first.events).toHaveLength(5);
        expect(first.next).not.toBeNull();
      });

      it('a page taken before newer events arrive continues where it stopped', async () => {
        const other = await fresh();
        const w = await tenant(other, 'feed-live');
        const older = Array.from({ length: 12 }, (_, i) => storedEvent({ ts: base + i * MIN, matched: `old${i}` }));
        await other.ingestEvents(ingestBatch(w.id, older));
        const p1 = await other.events(w.id, { limit: 5 });
        await other.ingestEvents(ingestBatch(w.id, [storedEvent({ ts: base + 50 * MIN, matched: 'newer' }), storedEvent({ ts: base + 6.5 * MIN, matched: 'between' })]));
        const rest = [];
        let cursor = p1.next;
        while (cursor !== null) {
          const p = await other.events(w.id, { limit: 5, cursor });
          rest.push(...p.events);
          cursor = p.next;
        }
        expect([...matchedOf(p1.events), ...matchedOf(rest)]).toEqual(['old11', 'old10', 'old9', 'old8', 'old7', 'between', 'old6', 'old5', 'old4', 'old3', 'old2', 'old1', 'old0']);
      });

      it.each([
        ['decision', 'allow', (e) => e.decision === 'allow'],
        ['vector', 'sql', (e) => e.vector === 'sql'],
        ['rule', 'patterns.xss.r1', (e) => e.rule === 'patterns.xss.r1'],
        ['route', '/b/:id', (e) => e.route === '/b/:id'],
        ['method', 'POST', (e) => e.method === 'POST'],
        ['ip_hash', ipHash('feed 2'), (e) => e.ip_hash === ipHash('feed 2')],
        ['app', 'blog', (e) => e.app_id === 'blog'],
      ])('filters by %s', async (field, value, keep) => {
        const expected = matchedOf(full.filter(keep));
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(full.length);
        expect(matchedOf((await store.events(t.id, { [field]: value, limit: 1000 })).events)).toEqual(expected);
        expect(matchedOf(await allPages(store, t.id, { [field]: value }, 2))).toEqual(expected);
      });

      it('combines filters, and a filter nothing matches gives an empty page', async () => {
        const q = { decision: 'deny', method: 'GET', app: 'shop', vector: 'xss' };
        const expected = matchedOf(full.filter((e) => e.decision === 'deny' && e.method === 'GET' && e.app_id === 'shop' && e.vector === 'xss'));
        expect(expected.length).toBeGreaterThan(0);
        expect(matchedOf((await store.events(t.id, { ...q, limit: 1000 })).events)).toEqual(expected);
        expect(await store.events(t.id, { route: '/nowhere', limit: 10 })).toEqual({ events: [], next: null });
        expect((await store.events(t.id, { ip_hash: ipHash('nobody'), limit: 10 })).events).toEqual([]);
      });

      it('from is inclusive and to exclusive', async () => {
        const from = base + 10 * MIN;
        const to = base + 20 * MIN;
        const got = (await store.events(t.id, { from, to, limit: 1000 })).events.map((e) => Date.parse(e.timestamp));
        expect(got).toEqual(Array.from({ length: 10 }, (_, i) => base + (19 - i) * MIN));
        expect(matchedOf(await allPages(store, t.id, { from, to, vector: 'xss' }, 1))).toEqual(matchedOf(full.filter((e) => {
          const ts = Date.parse(e.timestamp);
          return ts >= from && ts < to && e.vector === 'xss';
        })));
        expect(matchedOf((await store.events(t.id, { from: base + 100 * MIN, limit: 1000 })).events).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `m${36 + i}`).sort());
        expect((await store.events(t.id, { to: base, limit: 1000 })).events).toEqual([]);
      });
    });

    describe('overview()', () => {
      let store;
      let t;
      const today = Math.floor(Date.now() / DAY) * DAY;
      const dayStart = (k) => today - k * DAY; // start of the day k days ago (UTC)
      const D0 = dayStart(6);
      const D1 = dayStart(5);
      const D2 = dayStart(4);
      const HOUR = 3_600_000;
      const [A, B, C, D] = ['A', 'B', 'C', 'D'].map((x) => ipHash(`overview ${x}`));
      const xss = { vector: 'xss', rule: 'patterns.xss.script-tag', route: '/search', method: 'GET' };
      const sql = { vector: 'sql', rule: 'patterns.sql.union', route: '/login', method: 'POST' };
      const path = { vector: 'path', rule: 'patterns.path.traversal', route: '/files', method: 'GET', app_id: 'blog' };
      const allow = { decision: 'allow', action: 'passed', vector: 'none', rule: 'none', matched: '' };
      const repeat = (k, make) => Array.from({ length: k }, (_, i) => make(i));
      // Offender A has more denies overall (6) than C (5), though each of A's days has fewer.
      const events = [
        ...repeat(3, (i) => storedEvent({ ...xss, ts: D0 + i * HOUR, ip_hash: A })), // first one at 00:00:00.000
        ...repeat(2, (i) => storedEvent({ ...allow, route: '/home', ts: D0 + 5 * HOUR + i, ip_hash: B })),
        ...repeat(5, (i) => storedEvent({ ...sql, ts: D1 + 2 * HOUR + i, ip_hash: C })),
        ...repeat(2, (i) => storedEvent({ ...sql, ts: D1 + 3 * HOUR + i, ip_hash: A })),
        storedEvent({ ...xss, rule: 'patterns.xss.event-handler', ts: D1 + 4 * HOUR, ip_hash: A }),
        storedEvent({ ...allow, route: '/feed', app_id: 'blog', ts: D1 + 5 * HOUR, ip_hash: B }),
        ...repeat(2, (i) => storedEvent({ ...path, ts: D2 + DAY - 1 - i, ip_hash: D })), // last one at 23:59:59.999
        storedEvent({ ...xss, ts: D2 + HOUR, ip_hash: D }),
        // outside [D0, D2]: the last millisecond before and the first after
        storedEvent({ ...xss, ts: D0 - 1, ip_hash: A }),
        storedEvent({ ...sql, ts: D2 + DAY, ip_hash: C }),
      ];
      beforeAll(async () => {
        store = await fresh();
        t = await tenant(store, 'overview');
        // in three batches, one of them spanning days
        await store.ingestEvents(ingestBatch(t.id, events.slice(0, 6)));
        await store.ingestEvents(ingestBatch(t.id, events.slice(6, 13)));
        await store.ingestEvents(ingestBatch(t.id, events.slice(13)));
      });

      it('reports per-day totals and the top lists over an inclusive day range', async () => {
        const q = { from: dayOf(D0), to: dayOf(D2) };
        const got = await store.overview(t.id, q);
        const expected = expectedOverview(events, q);
        expect(comparableOverview(got)).toEqual(expected);
        // the same figures by hand, so the model above cannot hide a mistake
        expect(got.totals).toEqual({ allow: 3, deny: 14 });
        expect(comparableOverview(got).perDay).toEqual([
          { day: dayOf(D0), allow: 2, deny: 3 }, { day: dayOf(D1), allow: 1, deny: 8 }, { day: dayOf(D2), allow: 0, deny: 3 },
        ]);
        expect(got.topVectors).toEqual([{ vector: 'sql', denied: 7 }, { vector: 'xss', denied: 5 }, { vector: 'path', denied: 2 }]);
        expect(got.topOffenders.filter((o) => o.denied > 0)).toEqual([{ ip_hash: A, denied: 6 }, { ip_hash: C, denied: 5 }, { ip_hash: D, denied: 3 }]);
        expect(got.topRoutes.map((r) => r.route)).toEqual(['/login', '/search', '/files', '/home', '/feed']);
      });

      it('range bounds are whole days, both ends included', async () => {
        const wide = { from: dayOf(D0 - DAY), to: dayOf(D2 + DAY) };
        expect(comparableOverview(await store.overview(t.id, wide))).toEqual(expectedOverview(events, wide));
        expect((await store.overview(t.id, wide)).totals).toEqual({ allow: 3, deny: 16 });
        const one = { from: dayOf(D1), to: dayOf(D1) };
        expect(comparableOverview(await store.overview(t.id, one))).toEqual(expectedOverview(events, one));
        const before = { from: dayOf(D0 - DAY), to: dayOf(D0 - DAY) };
        expect((await store.overview(t.id, before)).totals).toEqual({ allow: 0, deny: 1 });
        const nothing = await store.overview(t.id, { from: dayOf(today - 60 * DAY), to: dayOf(today - 50 * DAY) });
        expect(comparableOverview(nothing)).toEqual({ totals: { allow: 0, deny: 0 }, perDay: [], topVectors: [], topCategories: [], topRoutes: [], topOffenders: [] });
      });

      it('narrows everything to one app', async () => {
        const q = { from: dayOf(D0), to: dayOf(D2), app: 'blog' };
        const got = await store.overview(t.id, q);
        expect(comparableOverview(got)).toEqual(expectedOverview(events, q));
        expect(got.totals).toEqual({ allow: 1, deny: 2 });
        expect((await store.overview(t.id, { ...q, app: 'no-such-app' })).totals).toEqual({ allow: 0, deny: 0 });
      });

      it('cuts every top list at limit', async () => {
        const q = { from: dayOf(D0), to: dayOf(D2), limit: 2 };
        const got = await store.overview(t.id, q);
        expect(comparableOverview(got)).toEqual(expectedOverview(events, q));
        for (const list of ['topVectors', 'topCategories', 'topRoutes', 'topOffenders']) expect(got[list].length, list).toBeLessThanOrEqual(2);
        expect(got.totals).toEqual({ allow: 3, deny: 14 });
      });
    });

    describe('findings', () => {
      let store;
      let t;
      beforeAll(async () => {
        store = await fresh();
        t = await tenant(store, 'findings');
      });

      const sortFindings = (list) => [...list].sort(byKey('fingerprint'));
      const expectMostSevereFirst = (list) => {
        for (let i = 1; i < list.length; i++) expect(SEVERITY_RANK[list[i - 1].severity]).toBeLessThanOrEqual(SEVERITY_RANK[list[i].severity]);
      };

      it('stores uploads and serves the latest per repository, overall and per kind', async () => {
        const repo = 'github.com/acme/shop';
        const scaFindings = [scaFinding(1, 'medium'), scaFinding(2, 'critical'), scaFinding(3, 'low'), scaFinding(4, 'critical'), scaFinding(5, 'info')];
        const sca1 = findingsUpload(repo, 'sca', scaFindings);
        const before = Date.now();
        const r1 = await store.ingestFindings(t.id, sca1);
        expect(r1.uploadId).toBeDefined();
        expect(r1.findings).toBe(5);
        expect(r1.inventory).toBe(2); // POST /v1/findings answers with it

        let repos = await store.findingRepositories(t.id);
        expect(repos).toHaveLength(1);
        const summary1 = {
          uploadId: r1.uploadId, kind: 'sca', format: 'json', ref: 'refs/heads/main', commit: sca1.repository.commit,
          tool: sca1.tool, generatedAt: sca1.generatedAt, receivedAt: expect.any(Number), counts: { critical: 2, high: 0, medium: 1, low: 1, info: 1 },
        };
        expect(repos[0]).toEqual({ repository: repo, uploads: 1, lastUploadAt: expect.any(Number), latest: summary1, byKind: { sca: summary1, audit: null } });
        expect(repos[0].latest.receivedAt).toBeGreaterThanOrEqual(before);

        const auditFindings = [finding(10, 'high', { message: null, file: null, line: null }), finding(11, 'info'), finding(12, 'high')];
        const audit = findingsUpload(repo, 'audit', auditFindings, { format: 'sarif', tool: { name: 'semgrep', version: '1.2.3' }, repository: { name: repo, ref: null, commit: null } });
        const r2 = await store.ingestFindings(t.id, audit);
        expect(r2.findings).toBe(3);
        repos = await store.findingRepositories(t.id);
        expect(repos).toHaveLength(1);
        expect(repos[0].uploads).toBe(2);
        expect(repos[0].latest).toMatchObject({ uploadId: r2.uploadId, kind: 'audit', format: 'sarif', ref: null, commit: null, tool: { name: 'semgrep', version: '1.2.3' }, counts: severityCounts(auditFindings) });
        expect(repos[0].byKind.sca).toEqual(summary1);
        expect(repos[0].byKind.audit).toEqual(repos[0].latest);
        expect(repos[0].lastUploadAt).toBe(repos[0].latest.receivedAt);

        // the latest upload overall is the audit; a given upload id reaches the older sca scan
        const latest = await store.repositoryFindings(t.id, repo);
        expect(latest.repository).toBe(repo);
        expect(latest.upload).toEqual(repos[0].latest);
        expect(sortFindings(latest.findings)).toEqual(sortFindings(auditFindings));
        expectMostSevereFirst(latest.findings);
        const first = await store.repositoryFindings(t.id, repo, { uploadId: r1.uploadId });
        expect(first.upload).toEqual(summary1);
        expect(sortFindings(first.findings)).toEqual(sortFindings(scaFindings));
        expectMostSevereFirst(first.findings);
        expect(first.findings.map((f) => f.severity)).toEqual(['critical', 'critical', 'medium', 'low', 'info']);

        // a newer sca scan replaces the sca picture and becomes the latest
        const sca2Findings = [scaFinding(6, 'high')];
        const r3 = await store.ingestFindings(t.id, findingsUpload(repo, 'sca', sca2Findings));
        repos = await store.findingRepositories(t.id);
        expect(repos[0].uploads).toBe(3);
        expect(repos[0].byKind.sca.uploadId).toBe(r3.uploadId);
        expect(repos[0].byKind.audit.uploadId).toBe(r2.uploadId);
        expect(repos[0].latest.uploadId).toBe(r3.uploadId);
        expect((await store.repositoryFindings(t.id, repo)).findings).toEqual(sca2Findings);
        expect((await store.repositoryFindings(t.id, repo, { uploadId: r2.uploadId })).upload.kind).toBe('audit');
      });

      it('keeps repositories apart; an empty upload is an upload with no findings', async () => {
        const r = await store.ingestFindings(t.id, findingsUpload('github.com/acme/clean', 'audit', []));
        expect(r.findings).toBe(0);
        expect(r.inventory).toBe(0);
        const repos = await store.findingRepositories(t.id);
        expect(repos.map((x) => x.repository).sort()).toEqual(['github.com/acme/clean', 'github.com/acme/shop']);
        const clean = repos.find((x) => x.repository === 'github.com/acme/clean');
        expect(clean).toMatchObject({ uploads: 1, latest: { uploadId: r.uploadId, counts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 } }, byKind: { sca: null } });
        expect(await store.repositoryFindings(t.id, 'github.com/acme/clean')).toMatchObject({ repository: 'github.com/acme/clean', findings: [] });
        // an upload id of one repository does not open another
        expect(await store.repositoryFindings(t.id, 'github.com/acme/shop', { uploadId: r.uploadId })).toBeUndefined();
        expect(await store.repositoryFindings(t.id, 'github.com/acme/none')).toBeUndefined();
      });
    });

    describe('applyRetention()', () => {
      it('deletes what is older than each workspace keeps, and expired sessions and tokens', async () => {
        const store = await fresh();
        const short = await tenant(store, 'short', 2);
        const long = await tenant(store, 'long', 30);
        const now = Date.now();
        // noon five days back, so that both old events fall on one UTC day whatever the hour the suite runs
        const old = Math.floor(now / DAY) * DAY - 5 * DAY + DAY / 2;
        const oldEvents = (ws) => [storedEvent({ ts: old, matched: `${ws}-old1` }), storedEvent({ ts: old + 1, matched: `${ws}-old2`, ip_hash: ipHash('old') })];
        await store.ingestEvents(ingestBatch(short.id, [...oldEvents('s'), ...Array.from({ length: 3 }, (_, i) => storedEvent({ ts: now - 3_600_000 + i, matched: `s-new${i}` }))]));
        await store.ingestEvents(ingestBatch(long.id, oldEvents('l')));
        const shortUpload = await store.ingestFindings(short.id, findingsUpload('github.com/acme/r', 'sca', [scaFinding(1, 'high')]));
        await store.ingestFindings(long.id, findingsUpload('github.com/acme/r', 'sca', [scaFinding(2, 'low')]));
        await store.createSession({ hash: 'sess-expired', accountId: short.account.id, expiresAt: now - 1000 });
        await store.createSession({ hash: 'sess-live', accountId: short.account.id, expiresAt: now + DAY });
        await store.createAccessToken({ hash: 'tok-expired', accountId: short.account.id, workspaceId: short.id, expiresAt: now - 1000 });
        await store.createAccessToken({ hash: 'tok-live', accountId: short.account.id, workspaceId: short.id, expiresAt: now + DAY });
        const oldDay = { from: dayOf(old), to: dayOf(old) };
        expect((await store.overview(short.id, oldDay)).totals.deny).toBe(2);

        const at = Date.now();
        expect(await store.applyRetention(at)).toMatchObject({ events: 2, uploads: 0 });
        expect((await allPages(store, short.id)).map((e) => e.matched).sort()).toEqual(['s-new0', 's-new1', 's-new2']);
        expect(await store.countEvents(short.id)).toBe(3);
        expect(await store.countEvents(long.id)).toBe(2);
        expect((await store.overview(short.id, oldDay)).totals).toEqual({ allow: 0, deny: 0 });
        expect((await store.overview(short.id, { from: dayOf(now - 3_600_000), to: dayOf(now) })).totals.deny).toBe(3);
        expect((await store.overview(long.id, oldDay)).totals.deny).toBe(2);
        expect(await store.session('sess-expired')).toBeUndefined();
        expect(await store.session('sess-live')).toBeDefined();
        expect(await store.accessToken('tok-expired')).toBeUndefined();
        expect(await store.accessToken('tok-live')).toBeDefined();
        expect(await store.repositoryFindings(short.id, 'github.com/acme/r', { uploadId: shortUpload.uploadId })).toBeDefined();

        // three days on: the short workspace's events and upload are past its 2 days; nothing of the long one is
        expect(await store.applyRetention(at + 3 * DAY)).toMatchObject({ events: 3, uploads: 1 });
        expect(await store.countEvents(short.id)).toBe(0);
        expect(await store.findingRepositories(short.id)).toEqual([]);
        expect(await store.repositoryFindings(short.id, 'github.com/acme/r')).toBeUndefined();
        expect(await store.countEvents(long.id)).toBe(2);
        expect((await store.findingRepositories(long.id)).map((r) => r.uploads)).toEqual([1]);
        expect((await store.repositoryFindings(long.id, 'github.com/acme/r')).findings).toHaveLength(1);
        expect(await store.applyRetention(at + 3 * DAY)).toMatchObject({ events: 0, uploads: 0 });
      });

      it('keeps the largest offenders and routes of past days exact, whatever it compacts', async () => {
        const store = await fresh();
        const w = await tenant(store, 'busy', 30);
        // noon of the UTC day before today: every event below falls on that one day, even a second before midnight
        const yesterday = Math.floor(Date.now() / DAY) * DAY - DAY / 2;
        // 700 addresses and routes with one denied request each, and three heavy hitters
        const events = Array.from({ length: 700 }, (_, i) => storedEvent({ ts: yesterday + i, ip_hash: ipHash(`many-${i}`), route: `/r/${i}` }));
        for (const [name, n] of [['heavy-a', 40], ['heavy-b', 30], ['heavy-c', 20]]) {
          for (let i = 0; i < n; i++) events.push(storedEvent({ ts: yesterday + 1000 + i, ip_hash: ipHash(name), route: `/${name}` }));
        }
        await store.ingestEvents(ingestBatch(w.id, events));
        const range = { from: dayOf(yesterday), to: dayOf(yesterday), limit: 3 };
        const before = await store.overview(w.id, range);
        const result = await store.applyRetention(Date.now());
        expect(result.events).toBe(0);
        const after = await store.overview(w.id, range);
        expect(after.totals).toEqual(before.totals);
        expect(after.topOffenders).toEqual([
          { ip_hash: ipHash('heavy-a'), denied: 40 }, { ip_hash: ipHash('heavy-b'), denied: 30 }, { ip_hash: ipHash('heavy-c'), denied: 20 },
        ]);
        expect(after.topOffenders).toEqual(before.topOffenders);
        expect(after.topRoutes.map((r) => [r.route, r.denied])).toEqual([['/heavy-a', 40], ['/heavy-b', 30], ['/heavy-c', 20]]);
      });

      it('follows a changed retention', async () => {
        const store = await fresh();
        const w = await tenant(store, 'shrinking', 30);
        await store.ingestEvents(ingestBatch(w.id, [storedEvent({ ts: Date.now() - 10 * DAY }), storedEvent({ ts: Date.now() - DAY })]));
        expect((await store.applyRetention(Date.now())).events).toBe(0);
        await store.updateWorkspace(w.id, { retentionDays: 7 });
        expect((await store.applyRetention(Date.now())).events).toBe(1);
        expect(await store.countEvents(w.id)).toBe(1);
      });
    });

    describe('tenancy', () => {
      let store;
      let a;
      let b;
      const shared = { instance: randomUUID(), key: 'same-idempotency-key', repo: 'github.com/acme/shared' };
      let aUpload;
      let bUpload;
      // every event of this block carries this one time, so that `today` is their day even across midnight
      const stamp = Date.now();
      const today = dayOf(stamp);
      beforeAll(async () => {
        store = await fresh();
        a = await tenant(store, 'tenant-a');
        b = await tenant(store, 'tenant-b');
        await store.ingestEvents(ingestBatch(a.id, Array.from({ length: 4 }, (_, i) => storedEvent({ ts: stamp, matched: `a${i}`, route: i === 0 ? '/only-a' : '/shared', ip_hash: ipHash('A-only'), app_id: 'app-a' })), {
          key: shared.key, hash: 'a-body', envelope: envelopeInfo(shared.instance, { dropped: 9 }),
        }));
        aUpload = await store.ingestFindings(a.id, findingsUpload(shared.repo, 'sca', [scaFinding(1, 'critical'), scaFinding(2, 'high')]));
        bUpload = await store.ingestFindings(b.id, findingsUpload(shared.repo, 'audit', [finding(3, 'low')]));
      });

      it('the same idempotency key in another workspace is a new batch', async () => {
        const r = await store.ingestEvents(ingestBatch(b.id, [storedEvent({ ts: stamp, matched: 'b0', route: '/shared', app_id: 'app-b', decision: 'allow', vector: 'none', rule: 'none', action: 'passed' })], {
          key: shared.key, hash: 'b-body', envelope: envelopeInfo(shared.instance, { dropped: 1 }),
        }));
        expect(r.status).toBe('stored');
        expect(r.response).toEqual({ accepted: 1, rejected: [] });
      });

      it('no read of workspace B shows data of workspace A', async () => {
        const bEvents = await allPages(store, b.id);
        expect(bEvents.map((e) => e.matched)).toEqual(['b0']);
        expect(bEvents.every((e) => e.workspace_id === b.id)).toBe(true);
        expect(await store.countEvents(b.id)).toBe(1);
        expect(await store.countEvents(a.id)).toBe(4);
        for (const q of [{ route: '/only-a' }, { app: 'app-a' }, { ip_hash: ipHash('A-only') }, { decision: 'deny' }, { vector: 'xss' }]) {
          expect((await store.events(b.id, { ...q, limit: 100 })).events, JSON.stringify(q)).toEqual([]);
        }
        const aFirst = await store.events(a.id, { limit: 2 });
        const fromACursor = await store.events(b.id, { limit: 100, cursor: aFirst.next });
        expect(fromACursor.events.every((e) => e.workspace_id === b.id)).toBe(true);

        const ov = await store.overview(b.id, { from: today, to: today });
        expect(ov.totals).toEqual({ allow: 1, deny: 0 });
        expect(ov.topVectors).toEqual([]);
        expect(ov.topOffenders.filter((o) => o.denied > 0)).toEqual([]);
        expect(ov.topRoutes).toEqual([{ route: '/shared', method: 'GET', requests: 1, denied: 0 }]);
        expect((await store.overview(b.id, { from: today, to: today, app: 'app-a' })).totals).toEqual({ allow: 0, deny: 0 });
        expect((await store.overview(a.id, { from: today, to: today })).totals).toEqual({ allow: 0, deny: 4 });

        const bFleet = await store.fleet(b.id);
        expect(bFleet).toHaveLength(1);
        expect(bFleet[0]).toMatchObject({ instanceId: shared.instance, events: 1, dropped: 1 });
        expect((await store.fleet(a.id))[0]).toMatchObject({ instanceId: shared.instance, events: 4, dropped: 9 });

        const bRepos = await store.findingRepositories(b.id);
        expect(bRepos).toHaveLength(1);
        expect(bRepos[0]).toMatchObject({ repository: shared.repo, uploads: 1, latest: { uploadId: bUpload.uploadId }, byKind: { sca: null } });
        expect((await store.repositoryFindings(b.id, shared.repo)).findings.map((f) => f.rule)).toEqual(['js.rule-3']);
        expect(await store.repositoryFindings(b.id, shared.repo, { uploadId: aUpload.uploadId })).toBeUndefined();
        expect((await store.repositoryFindings(a.id, shared.repo)).findings).toHaveLength(2);
      });

      it('keys, members and tokens stay with their workspace', async () => {
        const key = { id: unique('key'), workspaceId: a.id, name: 'a-key', prefix: 'shk_aaaa', hash: createHash('sha256').update('a key').digest('hex') };
        await store.createApiKey(key);
        expect((await store.apiKeys(b.id)).map((k) => k.id)).not.toContain(key.id);
        expect((await store.apiKeyByHash(key.hash)).workspaceId).toBe(a.id);
        expect(await store.revokeApiKey(b.id, key.id)).toBe(false);
        expect((await store.apiKeyByHash(key.hash)).revokedAt).toBeNull();

        expect(await store.role(b.id, a.account.id)).toBeNull();
        expect((await store.members(b.id)).map((m) => m.accountId)).toEqual([b.account.id]);
        expect((await store.workspacesOf(a.account.id)).map((w) => w.id)).toEqual([a.id]);

        await store.createAccessToken({ hash: 'a-token', accountId: a.account.id, workspaceId: a.id, expiresAt: Date.now() + DAY });
        expect((await store.accessToken('a-token')).workspaceId).toBe(a.id);
      });

      it('a workspace that does not exist reads as empty', async () => {
        const ghost = randomUUID();
        expect(await store.events(ghost, { limit: 10 })).toEqual({ events: [], next: null });
        expect(await store.countEvents(ghost)).toBe(0);
        expect(await store.fleet(ghost)).toEqual([]);
        expect(comparableOverview(await store.overview(ghost, { from: today, to: today }))).toEqual({ totals: { allow: 0, deny: 0 }, perDay: [], topVectors: [], topCategories: [], topRoutes: [], topOffenders: [] });
        expect(await store.findingRepositories(ghost)).toEqual([]);
        expect(await store.repositoryFindings(ghost, shared.repo)).toBeUndefined();
        expect(await store.apiKeys(ghost)).toEqual([]);
        expect(await store.members(ghost)).toEqual([]);
        expect(await store.role(ghost, a.account.id)).toBeNull();
      });
    });

    describe('close()', () => {
      it('calls racing close() settle, stored or refused, and close() resolves', async () => {
        const store = await fresh();
        const w = await tenant(store, 'closing');
        const pending = Array.from({ length: 5 }, (_, i) => store.ingestEvents(ingestBatch(w.id, [storedEvent({ matched: `c${i}` })])));
        const closing = store.close();
        // Either way the caller learns what happened; nothing hangs. (The sqlite store refuses
        // them: close() does not wait for a call still looking up its workspace.)
        for (const outcome of await Promise.allSettled(pending)) {
          if (outcome.status === 'fulfilled') expect(outcome.value.status).toBe('stored');
          else expect(outcome.reason).toBeInstanceOf(Error);
        }
        await closing;
      });
    });

    it('the suite exercised every method of STORE_METHODS', () => {
      expect(STORE_METHODS.filter((m) => !called.has(m))).toEqual([]);
    });
  });
}
