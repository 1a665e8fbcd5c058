// Findings uploads: parseFindingsUpload (shield JSON and SARIF 2.1.0 -> one normalized shape, or
// a 400 naming the bad field) and the sqlite findings store against a real database file
// (set-wise ingest in one transaction, latest upload per repository, retention, and workspaces
// that never see each other's uploads).

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { parseFindingsUpload, normalizeRepositoryName } from '../../server/src/findings/parse.js';
import { Db } from '../../server/src/store/sqlite/driver.js';
import { CORE_SCHEMA } from '../../server/src/store/sqlite/schema.js';
import {
  FINDINGS_SCHEMA,
  ingestFindings,
  findingRepositories,
  repositoryFindings,
  deleteUploadsBefore,
} from '../../server/src/store/sqlite/findings.js';

const COMMIT = '3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f';
const GENERATED = '2025-03-14T09:26:53.589Z';

/** A complete shield JSON upload: every optional field present somewhere. */
function shieldUpload() {
  return {
    schema_version: '1',
    kind: 'sca',
    tool: { name: 'shield', version: '0.1.0' },
    repository: { name: 'github.com/acme/shop', ref: 'refs/heads/main', commit: COMMIT },
    generated_at: GENERATED,
    summary: { critical: 1, high: 0, medium: 1, low: 0, info: 0 },
    findings: [
      {
        id: 'npm:left-padder@1.0.2:GHSA-aaaa-bbbb-cccc',
        rule: 'GHSA-aaaa-bbbb-cccc',
        severity: 'critical',
        title: 'Prototype pollution in left-padder',
        message: 'left-padder before 1.0.3 lets a crafted key write to Object.prototype.',
        location: { file: 'package-lock.json', line: 812, column: 5 },
        package: { ecosystem: 'npm', name: 'left-padder', version: '1.0.2', direct: false, path: ['web-kit@2.1.0', 'left-padder@1.0.2'] },
        advisory: {
          id: 'GHSA-aaaa-bbbb-cccc',
          aliases: ['CVE-2025-10001'],
          cvss: { score: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
          url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc',
          fixed_in: ['1.0.3'],
        },
        remediation: 'upgrade web-kit to 2.2.0, which pulls left-padder 1.0.3',
      },
      {
        id: 'pypi:tinyyaml@5.1:PYSEC-2025-7',
        rule: 'PYSEC-2025-7',
        severity: 'medium',
        title: 'Unsafe load in tinyyaml',
        package: { ecosystem: 'PyPI', name: 'tinyyaml', version: '5.1' },
      },
    ],
    inventory: [
      { ecosystem: 'npm', name: 'web-kit', version: '2.1.0', direct: true, lockfile: 'package-lock.json' },
      { ecosystem: 'npm', name: 'left-padder', version: '1.0.2', direct: false },
      { ecosystem: 'PyPI', name: 'tinyyaml', version: '5.1' },
    ],
  };
}

const NORMALIZED_SHIELD_FINDINGS = [
  {
    fingerprint: 'npm:left-padder@1.0.2:GHSA-aaaa-bbbb-cccc',
    rule: 'GHSA-aaaa-bbbb-cccc',
    severity: 'critical',
    title: 'Prototype pollution in left-padder',
    message: 'left-padder before 1.0.3 lets a crafted key write to Object.prototype.',
    file: 'package-lock.json',
    line: 812,
    package: 'left-padder',
    version: '1.0.2',
    ecosystem: 'npm',
    advisoryId: 'GHSA-aaaa-bbbb-cccc',
    cvss: 9.8,
    url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc',
  },
  {
    fingerprint: 'pypi:tinyyaml@5.1:PYSEC-2025-7',
    rule: 'PYSEC-2025-7',
    severity: 'medium',
    title: 'Unsafe load in tinyyaml',
    message: null,
    file: null,
    line: null,
    package: 'tinyyaml',
    version: '5.1',
    ecosystem: 'PyPI',
    advisoryId: null,
    cvss: null,
    url: null,
  },
];

const LONG_TEXT = `The query built in buildFilter concatenates request input. ${'x'.repeat(300)}`;

/** A SARIF 2.1.0 log of an imaginary code scanner, covering each severity source. */
function sarifLog() {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'lintwise',
            version: '4.2.0',
            informationUri: 'https://lintwise.example/',
            rules: [
              { id: 'LW100', shortDescription: { text: 'SQL built from input' }, properties: { 'security-severity': '9.1' } },
              { id: 'LW200', shortDescription: { text: 'Debug endpoint enabled' }, defaultConfiguration: { level: 'error' } },
              { id: 'LW300', shortDescription: { text: 'Weak hash' }, helpUri: 'https://lintwise.example/rules/LW300' },
              { id: 'GHSA-dddd-eeee-ffff', shortDescription: { text: 'Vulnerable dependency' }, helpUri: 'https://github.com/advisories/GHSA-dddd-eeee-ffff' },
            ],
          },
        },
        versionControlProvenance: [{ repositoryUri: 'https://github.com/acme/shop.git', branch: 'main', revisionId: COMMIT.toUpperCase() }],
        invocations: [{ executionSuccessful: true, endTimeUtc: '2025-03-14T10:00:00Z' }],
        artifacts: [{ location: { uri: 'src/config.js' }, mimeType: 'text/javascript' }],
        results: [
          // security-severity beats the explicit level
          {
            ruleId: 'LW100',
            ruleIndex: 0,
            level: 'warning',
            message: { text: 'Untrusted input reaches db.query' },
            locations: [{ physicalLocation: { artifactLocation: { uri: 'src/db.js' }, region: { startLine: 42, startColumn: 7 } } }],
            partialFingerprints: { primaryLocationLineHash: '9c1e44ab:1' },
          },
          // no level: the rule's default level (error -> high); location through the artifacts table
          {
            ruleId: 'LW200',
            message: { text: 'Debug endpoint /__debug is mounted' },
            locations: [{ physicalLocation: { artifactLocation: { index: 0 }, region: { startLine: 3 } } }],
          },
          // note -> low; the title is the first 200 characters of the message
          {
            ruleId: 'LW300',
            level: 'note',
            message: { text: LONG_TEXT },
            locations: [{ physicalLocation: { artifactLocation: { uri: 'src/hash.js' }, region: { startLine: 9 } } }],
          },
          // none -> info
          { ruleId: 'LW300', level: 'none', message: { text: 'md5 used for a cache key' } },
          // a passing check is not a finding
          { ruleId: 'LW200', kind: 'pass', message: { text: 'checked' } },
          // an accepted suppression is not a finding
          { ruleId: 'LW300', level: 'error', message: { text: 'suppressed' }, suppressions: [{ kind: 'inSource', status: 'accepted' }] },
          // security-severity on the result itself
          { ruleId: 'LW300', level: 'error', message: { text: 'sha1 for passwords' }, properties: { 'security-severity': '5.0' } },
          // an advisory-named rule, with its help link
          { ruleId: 'GHSA-dddd-eeee-ffff', message: { text: 'tar-lite 6.0.0 is vulnerable' }, fingerprints: { 'osv/v1': 'tar-lite@6.0.0' } },
        ],
      },
    ],
  };
}

/** Runs fn, expects an ApiError 400 invalid_findings, returns it. */
function rejection(fn) {
  let error;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  expect(error, 'expected a rejection').toBeDefined();
  expect(error.name).toBe('ApiError');
  expect(error.status).toBe(400);
  expect(error.code).toBe('invalid_findings');
  expect(Array.isArray(error.details)).toBe(true);
  expect(error.details.length).toBeGreaterThan(0);
  expect(error.details.length).toBeLessThanOrEqual(20);
  expect(error.details[0]).toEqual({ field: error.field, message: error.message });
  return error;
}

const sha256 = (s) => createHash('sha256').update(s).digest('hex');

describe('parseFindingsUpload: shield JSON', () => {
  it('normalizes a valid upload', () => {
    const upload = parseFindingsUpload(shieldUpload());
    expect(upload).toEqual({
      format: 'json',
      kind: 'sca',
      tool: { name: 'shield', version: '0.1.0' },
      repository: { name: 'github.com/acme/shop', ref: 'refs/heads/main', commit: COMMIT },
      generatedAt: Date.UTC(2025, 2, 14, 9, 26, 53, 589),
      findings: NORMALIZED_SHIELD_FINDINGS,
      inventory: [
        { ecosystem: 'npm', name: 'web-kit', version: '2.1.0', direct: true },
        { ecosystem: 'npm', name: 'left-padder', version: '1.0.2', direct: false },
        { ecosystem: 'PyPI', name: 'tinyyaml', version: '5.1', direct: null },
      ],
    });
  });

  it('accepts the minimal upload and does not mutate the body', () => {
    const body = { $schema: 'https://shield.dev/schema/findings.schema.json', schema_version: '1', kind: 'audit', tool: { name: 'shield', version: '0.1.0' }, repository: { name: 'acme/api' }, generated_at: '2025-01-01T00:00:00+00:00', findings: [] };
    const copy = structuredClone(body);
    const upload = parseFindingsUpload(body, { query: { repository: 'gitlab.example.com/acme/api' } });
    expect(body).toEqual(copy);
    expect(upload.repository).toEqual({ name: 'gitlab.example.com/acme/api', ref: null, commit: null });
    expect(upload.kind).toBe('audit');
    expect(upload.generatedAt).toBe(Date.UTC(2025, 0, 1));
    expect(upload.findings).toEqual([]);
    expect(upload.inventory).toEqual([]);
  });

  it('takes repository, ref, commit and kind from the query over the body', () => {
    const upload = parseFindingsUpload(shieldUpload(), {
      query: { repository: 'git@github.com:acme/shop-fork.git', ref: 'feature/x', commit: 'AB'.repeat(32), kind: 'audit' },
    });
    expect(upload.repository).toEqual({ name: 'github.com/acme/shop-fork', ref: 'feature/x', commit: 'ab'.repeat(32) });
    expect(upload.kind).toBe('audit');
  });

  it('lets the query supply a repository the body lacks', () => {
    const body = shieldUpload();
    delete body.repository;
    expect(parseFindingsUpload(body, { query: { repository: 'acme/shop' } }).repository).toEqual({ name: 'acme/shop', ref: null, commit: null });
    const nameless = shieldUpload();
    delete nameless.repository.name;
    expect(parseFindingsUpload(nameless, { query: { repository: 'acme/shop' } }).repository.name).toBe('acme/shop');
  });

  // [what, how to break a valid upload, field named, text the message must contain]
  const BAD = [
    ['body not an object', () => [], 'body', 'body must be a JSON object'],
    ['body null', () => null, 'body', 'body must be a JSON object'],
    ['schema_version missing', (b) => void delete b.schema_version, 'schema_version', 'schema_version is required'],
    ['schema_version unknown', (b) => void (b.schema_version = '2'), 'schema_version', 'schema_version must be "1"'],
    ['schema_version a number', (b) => void (b.schema_version = 1), 'schema_version', 'schema_version must be "1"'],
    ['kind missing', (b) => void delete b.kind, 'kind', 'kind is required'],
    ['kind unknown', (b) => void (b.kind = 'dast'), 'kind', 'kind must be one of sca, audit'],
    ['tool missing', (b) => void delete b.tool, 'tool', 'tool is required'],
    ['tool a string', (b) => void (b.tool = 'shield'), 'tool', 'tool must be an object'],
    ['tool.name missing', (b) => void delete b.tool.name, 'tool.name', 'tool.name is required'],
    ['tool.version a number', (b) => void (b.tool.version = 1), 'tool.version', 'tool.version must be a string'],
    ['repository missing', (b) => void delete b.repository, 'repository', 'repository is required'],
    ['repository a string', (b) => void (b.repository = 'acme/shop'), 'repository', 'repository must be an object'],
    ['repository.name missing', (b) => void delete b.repository.name, 'repository.name', 'repository.name is required'],
    ['repository.name a URL', (b) => void (b.repository.name = 'https://github.com/acme/shop'), 'repository.name', 'repository.name must match pattern'],
    ['repository.name too long', (b) => void (b.repository.name = `acme/${'s'.repeat(300)}`), 'repository.name', 'repository.name must NOT have more than 256 characters'],
    ['repository.ref with a space', (b) => void (b.repository.ref = 'main branch'), 'repository.ref', 'repository.ref must match pattern'],
    ['repository.commit short', (b) => void (b.repository.commit = 'abc123'), 'repository.commit', 'repository.commit must match pattern'],
    ['repository extra field', (b) => void (b.repository.url = 'x'), 'repository.url', 'repository.url is not allowed'],
    ['generated_at missing', (b) => void delete b.generated_at, 'generated_at', 'generated_at is required'],
    ['generated_at a number', (b) => void (b.generated_at = 1741944413589), 'generated_at', 'generated_at must be a string'],
    ['generated_at not UTC', (b) => void (b.generated_at = '2025-03-14T09:26:53+02:00'), 'generated_at', 'generated_at must match pattern'],
    ['generated_at no such day', (b) => void (b.generated_at = '2025-02-30T00:00:00Z'), 'generated_at', 'generated_at must match format "date-time"'],
    ['summary count negative', (b) => void (b.summary.high = -1), 'summary.high', 'summary.high must be >= 0'],
    ['findings missing', (b) => void delete b.findings, 'findings', 'findings is required'],
    ['findings an object', (b) => void (b.findings = {}), 'findings', 'findings must be an array'],
    ['finding not an object', (b) => void (b.findings[1] = 'x'), 'findings[1]', 'findings[1] must be an object'],
    ['finding id missing', (b) => void delete b.findings[0].id, 'findings[0].id', 'findings[0].id is required'],
    ['finding id with a space', (b) => void (b.findings[0].id = 'a b'), 'findings[0].id', 'findings[0].id must match pattern'],
    ['finding rule missing', (b) => void delete b.findings[1].rule, 'findings[1].rule', 'findings[1].rule is required'],
    ['finding severity missing', (b) => void delete b.findings[0].severity, 'findings[0].severity', 'findings[0].severity is required'],
    ['finding severity unknown', (b) => void (b.findings[1].severity = 'urgent'), 'findings[1].severity', 'findings[1].severity must be one of critical, high, medium, low, info'],
    ['finding title missing', (b) => void delete b.findings[0].title, 'findings[0].title', 'findings[0].title is required'],
    ['finding title too long', (b) => void (b.findings[0].title = 't'.repeat(201)), 'findings[0].title', 'findings[0].title must NOT have more than 200 characters'],
    ['finding message a number', (b) => void (b.findings[0].message = 7), 'findings[0].message', 'findings[0].message must be a string'],
    ['location without file', (b) => void delete b.findings[0].location.file, 'findings[0].location.file', 'findings[0].location.file is required'],
    ['location line zero', (b) => void (b.findings[0].location.line = 0), 'findings[0].location.line', 'findings[0].location.line must be >= 1'],
    ['location line a string', (b) => void (b.findings[0].location.line = '812'), 'findings[0].location.line', 'findings[0].location.line must be an integer'],
    ['package version missing', (b) => void delete b.findings[0].package.version, 'findings[0].package.version', 'findings[0].package.version is required'],
    ['package direct a string', (b) => void (b.findings[0].package.direct = 'no'), 'findings[0].package.direct', 'findings[0].package.direct must be a boolean'],
    ['package path not an array', (b) => void (b.findings[0].package.path = 'a>b'), 'findings[0].package.path', 'findings[0].package.path must be an array'],
    ['advisory id missing', (b) => void delete b.findings[0].advisory.id, 'findings[0].advisory.id', 'findings[0].advisory.id is required'],
    ['cvss score above 10', (b) => void (b.findings[0].advisory.cvss.score = 11), 'findings[0].advisory.cvss.score', 'findings[0].advisory.cvss.score must be <= 10'],
    ['advisory url not a URI', (b) => void (b.findings[0].advisory.url = 'not a link'), 'findings[0].advisory.url', 'findings[0].advisory.url must match format "uri"'],
    ['unknown finding field', (b) => void (b.findings[0].cwe = 'CWE-1321'), 'findings[0].cwe', 'findings[0].cwe is not allowed'],
    ['unknown top-level field', (b) => void (b.extra = true), 'extra', 'extra is not allowed'],
    ['inventory not an array', (b) => void (b.inventory = {}), 'inventory', 'inventory must be an array'],
    ['inventory name missing', (b) => void delete b.inventory[2].name, 'inventory[2].name', 'inventory[2].name is required'],
    ['inventory direct a number', (b) => void (b.inventory[0].direct = 1), 'inventory[0].direct', 'inventory[0].direct must be a boolean'],
  ];

  it.each(BAD)('%s -> 400 naming %s', (_what, breakIt, field, text) => {
    let body = shieldUpload();
    const replaced = breakIt(body);
    if (replaced !== undefined) body = replaced;
    const err = rejection(() => parseFindingsUpload(body));
    expect(err.field).toBe(field);
    expect(err.message).toContain(text);
  });

  it('lists up to 20 bad items in details, each naming its field', () => {
    const body = shieldUpload();
    const finding = body.findings[1];
    body.findings = Array.from({ length: 30 }, (_, i) => ({ ...finding, id: `f${i}`, severity: i % 3 === 0 ? 'urgent' : 'low' }));
    const err = rejection(() => parseFindingsUpload(body));
    expect(err.field).toBe('findings[0].severity');
    expect(err.details.map((d) => d.field)).toEqual(['findings[0].severity', 'findings[3].severity', 'findings[6].severity', 'findings[9].severity', 'findings[12].severity', 'findings[15].severity', 'findings[18].severity', 'findings[21].severity', 'findings[24].severity', 'findings[27].severity']);

    body.findings = Array.from({ length: 30 }, (_, i) => ({ ...finding, id: `f${i}`, severity: 'urgent' }));
    body.inventory[0].name = '';
    const many = rejection(() => parseFindingsUpload(body));
    expect(many.details).toHaveLength(20);
    expect(many.details[19]).toEqual({ field: 'findings[19].severity', message: 'findings[19].severity must be one of critical, high, medium, low, info' });
  });

  it('refuses more than 50,000 findings', () => {
    const body = shieldUpload();
    const finding = body.findings[1];
    body.findings = new Array(50_001).fill(finding);
    const err = rejection(() => parseFindingsUpload(body));
    expect(err.field).toBe('findings');
    expect(err.message).toBe('findings must NOT have more than 50000 items');
  });

  it('refuses a megabyte-long repository name on its length', () => {
    const body = shieldUpload();
    body.repository.name = 'a'.repeat(1 << 20);
    expect(rejection(() => parseFindingsUpload(body)).field).toBe('repository.name');
  });

  // [query, field, text]
  const BAD_QUERY = [
    [{ repository: ['acme/a', 'acme/b'] }, 'repository', 'query parameter repository must be given once'],
    [{ repository: 'has space/x' }, 'repository', 'query parameter repository must be a repository name'],
    [{ repository: 'https://' }, 'repository', 'query parameter repository must be a repository name'],
    [{ ref: 'a b' }, 'ref', 'query parameter ref must be a git ref'],
    [{ commit: 'xyz' }, 'commit', 'query parameter commit must be 40 or 64 hexadecimal digits'],
    [{ commit: 'a'.repeat(41) }, 'commit', 'query parameter commit must be 40 or 64 hexadecimal digits'],
    [{ kind: 'dast' }, 'kind', 'query parameter kind must be one of sca, audit'],
  ];

  it.each(BAD_QUERY)('query %j -> 400 naming %s', (query, field, text) => {
    const err = rejection(() => parseFindingsUpload(shieldUpload(), { query }));
    expect(err.field).toBe(field);
    expect(err.message).toContain(text);
  });
});

describe('normalizeRepositoryName', () => {
  it.each([
    ['github.com/acme/shop', 'github.com/acme/shop'],
    ['acme/shop', 'acme/shop'],
    ['https://github.com/acme/shop.git', 'github.com/acme/shop'],
    ['https://ci-bot:s3cret@github.com/acme/shop/', 'github.com/acme/shop'],
    ['git@github.com:acme/shop.git', 'github.com/acme/shop'],
    ['ssh://git@gitlab.example.com:2222/acme/shop.git', 'gitlab.example.com:2222/acme/shop'],
    ['https://github.com/acme/shop?tab=readme#top', 'github.com/acme/shop'],
    ['  acme/shop  ', 'acme/shop'],
  ])('%s -> %s', (raw, name) => {
    expect(normalizeRepositoryName(raw)).toBe(name);
  });

  it.each(['', 'https://', 'acme//shop', 'acme/shop with space', '/acme/shop', 'a'.repeat(3000)])('%j -> null', (raw) => {
    expect(normalizeRepositoryName(raw)).toBeNull();
  });
});

describe('parseFindingsUpload: SARIF 2.1.0', () => {
  it('maps results to findings', () => {
    const upload = parseFindingsUpload(sarifLog(), { now: 1 });
    expect(upload.format).toBe('sarif');
    expect(upload.kind).toBe('audit');
    expect(upload.tool).toEqual({ name: 'lintwise', version: '4.2.0' });
    expect(upload.repository).toEqual({ name: 'github.com/acme/shop', ref: 'main', commit: COMMIT });
    expect(upload.generatedAt).toBe(Date.UTC(2025, 2, 14, 10));
    expect(upload.inventory).toEqual([]);
    expect(upload.findings.map((f) => [f.rule, f.severity, f.file, f.line])).toEqual([
      ['LW100', 'critical', 'src/db.js', 42],
      ['LW200', 'high', 'src/config.js', 3],
      ['LW300', 'low', 'src/hash.js', 9],
      ['LW300', 'info', null, null],
      ['LW300', 'medium', null, null],
      ['GHSA-dddd-eeee-ffff', 'medium', null, null],
    ]);
    const [sql, debug, weak, , sha1, advisory] = upload.findings;
    expect(sql).toMatchObject({ title: 'Untrusted input reaches db.query', message: 'Untrusted input reaches db.query', cvss: 9.1, advisoryId: null, url: null, package: null, version: null, ecosystem: null });
    expect(debug.cvss).toBeNull();
    expect(weak.title).toBe(LONG_TEXT.slice(0, 200));
    expect(weak.message).toBe(LONG_TEXT);
    expect(weak.url).toBe('https://lintwise.example/rules/LW300');
    expect(sha1.cvss).toBe(5);
    expect(advisory).toMatchObject({ advisoryId: 'GHSA-dddd-eeee-ffff', url: 'https://github.com/advisories/GHSA-dddd-eeee-ffff' });
    for (const f of upload.findings) expect(f.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    // with no fingerprints from the tool: rule, place and text
    expect(debug.fingerprint).toBe(sha256(JSON.stringify(['location', 'LW200', 'src/config.js', 3, 'Debug endpoint /__debug is mounted'])));
    expect(new Set(upload.findings.map((f) => f.fingerprint)).size).toBe(upload.findings.length);
  });

  it('keeps fingerprints stable across scans and tied to the tool fingerprint when given', () => {
    const first = parseFindingsUpload(sarifLog());
    const moved = sarifLog();
    // the tool's fingerprint stays when the code moves; the computed one follows the line
    moved.runs[0].results[0].locations[0].physicalLocation.region.startLine = 50;
    moved.runs[0].results[1].locations[0].physicalLocation.region.startLine = 4;
    const second = parseFindingsUpload(moved);
    expect(second.findings[0].fingerprint).toBe(first.findings[0].fingerprint);
    expect(second.findings[1].fingerprint).not.toBe(first.findings[1].fingerprint);
    expect(parseFindingsUpload(sarifLog())).toEqual(first);
  });

  it('takes the kind from the query, else from the tool name', () => {
    expect(parseFindingsUpload(sarifLog(), { query: { kind: 'sca' } }).kind).toBe('sca');
    const osv = sarifLog();
    osv.runs[0].tool.driver.name = 'osv-scanner';
    expect(parseFindingsUpload(osv).kind).toBe('sca');
  });

  it('takes the repository from the query when the log has none, and the time from now', () => {
    const log = sarifLog();
    delete log.runs[0].versionControlProvenance;
    delete log.runs[0].invocations;
    const upload = parseFindingsUpload(log, { query: { repository: 'acme/shop', ref: 'main' }, now: 1234 });
    expect(upload.repository).toEqual({ name: 'acme/shop', ref: 'main', commit: null });
    expect(upload.generatedAt).toBe(1234);
  });

  it('drops a non-git revision and recognizes SARIF without $schema', () => {
    const log = sarifLog();
    delete log.$schema;
    log.runs[0].versionControlProvenance[0].revisionId = 'r1234';
    const upload = parseFindingsUpload(log);
    expect(upload.format).toBe('sarif');
    expect(upload.repository.commit).toBeNull();
  });

  // [what, how to break a valid log, field named, text the message must contain]
  const BAD_SARIF = [
    ['runs not an array', (l) => void (l.runs = {}), 'runs', 'runs must be an array'],
    ['runs empty', (l) => void (l.runs = []), 'runs', 'runs must contain at least one run'],
    ['version unknown', (l) => void (l.version = '2.0.0'), 'version', 'version must be one of 2.1.0'],
    ['result level fatal', (l) => void (l.runs[0].results[2].level = 'fatal'), 'runs[0].results[2].level', 'runs[0].results[2].level must be one of none, note, warning, error'],
    ['result message missing', (l) => void delete l.runs[0].results[0].message, 'runs[0].results[0].message', 'runs[0].results[0].message is required'],
    ['tool missing', (l) => void delete l.runs[0].tool, 'runs[0].tool', 'runs[0].tool is required'],
    ['startLine zero', (l) => void (l.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0), 'runs[0].results[0].locations[0].physicalLocation.region.startLine', 'must be >= 1'],
    ['repository missing', (l) => void delete l.runs[0].versionControlProvenance, 'repository', 'repository is required'],
    ['repositoryUri not a repository', (l) => void (l.runs[0].versionControlProvenance[0].repositoryUri = 'https://'), 'runs[0].versionControlProvenance[0].repositoryUri', 'must name a repository'],
    ['duplicate artifacts', (l) => void l.runs[0].artifacts.push(structuredClone(l.runs[0].artifacts[0])), 'runs[0].artifacts', 'must not contain duplicate items'],
    ['long mimeType', (l) => void (l.runs[0].artifacts[0].mimeType = `text/${'x'.repeat(100_000)}`), 'runs[0].artifacts[0].mimeType', 'must be at most 256 characters'],
    ['huge string', (l) => void (l.runs[0].results[0].message.text = 'y'.repeat(70_000)), 'runs[0].results[0].message.text', 'must be at most 65536 characters'],
    [
      'deep nesting',
      (l) => {
        let bag = {};
        l.runs[0].properties = bag;
        for (let i = 0; i < 80; i++) bag = bag.next = {};
      },
      `runs[0].properties${'.next'.repeat(61)}`,
      'nests deeper than 64 levels',
    ],
  ];

  it.each(BAD_SARIF)('%s -> 400 naming %s', (_what, breakIt, field, text) => {
    const log = sarifLog();
    breakIt(log);
    const err = rejection(() => parseFindingsUpload(log));
    expect(err.field).toBe(field);
    expect(err.message).toContain(text);
  });

  it('lists bad results in details', () => {
    const log = sarifLog();
    log.runs[0].results[1].level = 'fatal';
    log.runs[0].results[4].level = 'severe';
    delete log.runs[0].results[6].message;
    const err = rejection(() => parseFindingsUpload(log));
    expect(err.details.map((d) => d.field)).toEqual(['runs[0].results[1].level', 'runs[0].results[4].level', 'runs[0].results[6].message']);
  });

  it('refuses more than 50,000 results', () => {
    const log = sarifLog();
    const result = log.runs[0].results[3];
    log.runs.push(structuredClone(log.runs[0]));
    log.runs[0].results = new Array(30_000).fill(result);
    log.runs[1].results = new Array(20_001).fill(result);
    const err = rejection(() => parseFindingsUpload(log));
    expect(err.field).toBe('runs[1].results');
    expect(err.message).toContain('at most 50000 results');
  });
});

describe('sqlite findings store', () => {
  /** @type {string} */
  let dir;
  /** @type {Db} */
  let db;
  const WS_A = 1;
  const WS_B = 2;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shield-findings-'));
    db = await Db.open(join(dir, 'control-plane.db'));
    await db.exec('PRAGMA journal_mode=WAL');
    await db.exec(CORE_SCHEMA + FINDINGS_SCHEMA);
    await db.exec(`INSERT INTO workspaces (ws, id, name, retention_days, created_at) VALUES
      (${WS_A}, '11111111-1111-4111-8111-111111111111', 'alpha', 30, 0),
      (${WS_B}, '22222222-2222-4222-8222-222222222222', 'beta', 30, 0)`);
  });

  afterAll(async () => {
    await db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const count = async (table, ws) => (await db.get(`SELECT count(*) AS n FROM ${table} WHERE ws = ?`, [ws])).n;

  /** A shield upload of another repository/kind with n findings of the given severity. */
  function upload({ repository, kind, severities, inventory = 0 }) {
    return parseFindingsUpload({
      schema_version: '1',
      kind,
      tool: { name: 'shield', version: '0.1.0' },
      repository: { name: repository },
      generated_at: GENERATED,
      findings: severities.map((severity, i) => ({ id: `${kind}-${i}`, rule: `rule.${i}`, severity, title: `${severity} #${i}` })),
      inventory: Array.from({ length: inventory }, (_, i) => ({ ecosystem: 'npm', name: `pkg-${i}`, version: '1.0.0', direct: i % 2 === 0 })),
    });
  }

  let shopSca;
  let shopAudit;
  let apiAudit;
  let betaShop;

  it('ingests uploads set-wise and returns what it stored', async () => {
    const parsed = parseFindingsUpload(shieldUpload());
    shopSca = await ingestFindings(db, WS_A, parsed, 1000);
    expect(shopSca).toEqual({ uploadId: expect.any(Number), findings: 2, inventory: 3 });
    shopAudit = await ingestFindings(db, WS_A, upload({ repository: 'github.com/acme/shop', kind: 'audit', severities: ['low', 'high', 'info', 'high'] }), 2000);
    apiAudit = await ingestFindings(db, WS_A, upload({ repository: 'github.com/acme/api', kind: 'audit', severities: [] }), 1500);
    betaShop = await ingestFindings(db, WS_B, upload({ repository: 'github.com/acme/shop', kind: 'sca', severities: ['critical'], inventory: 5 }), 500);
    expect(shopAudit).toMatchObject({ findings: 4, inventory: 0 });
    expect(apiAudit).toMatchObject({ findings: 0, inventory: 0 });
    expect(betaShop).toMatchObject({ findings: 1, inventory: 5 });
    expect(new Set([shopSca.uploadId, shopAudit.uploadId, apiAudit.uploadId, betaShop.uploadId]).size).toBe(4);
    expect(await count('findings', WS_A)).toBe(6);
    expect(await count('finding_inventory', WS_A)).toBe(3);
    expect(await count('findings', WS_B)).toBe(1);
    expect(await count('finding_inventory', WS_B)).toBe(5);
    const direct = await db.all('SELECT name, direct FROM finding_inventory WHERE upload_id = ? ORDER BY rowid', [shopSca.uploadId]);
    expect(direct).toEqual([{ name: 'web-kit', direct: 1 }, { name: 'left-padder', direct: 0 }, { name: 'tinyyaml', direct: null }]);
  });

  it('round-trips findings, most severe first', async () => {
    const sca = await repositoryFindings(db, WS_A, 'github.com/acme/shop', { uploadId: shopSca.uploadId });
    expect(sca.repository).toBe('github.com/acme/shop');
    expect(sca.upload).toEqual({
      uploadId: shopSca.uploadId,
      kind: 'sca',
      format: 'json',
      ref: 'refs/heads/main',
      commit: COMMIT,
      tool: { name: 'shield', version: '0.1.0' },
      generatedAt: Date.parse(GENERATED),
      receivedAt: 1000,
      counts: { critical: 1, high: 0, medium: 1, low: 0, info: 0 },
    });
    expect(sca.findings).toEqual(NORMALIZED_SHIELD_FINDINGS);

    const audit = await repositoryFindings(db, WS_A, 'github.com/acme/shop');
    expect(audit.upload.uploadId).toBe(shopAudit.uploadId);
    expect(audit.findings.map((f) => `${f.severity} ${f.fingerprint}`)).toEqual(['high audit-1', 'high audit-3', 'low audit-0', 'info audit-2']);
    const top = await repositoryFindings(db, WS_A, 'github.com/acme/shop', { limit: 1 });
    expect(top.findings.map((f) => f.fingerprint)).toEqual(['audit-1']);
    expect((await repositoryFindings(db, WS_A, 'github.com/acme/shop', { kind: 'sca' })).upload.uploadId).toBe(shopSca.uploadId);
  });

  it('never shows one workspace the uploads of another', async () => {
    expect(await repositoryFindings(db, WS_B, 'github.com/acme/shop', { uploadId: shopSca.uploadId })).toBeUndefined();
    expect(await repositoryFindings(db, WS_A, 'github.com/acme/shop', { uploadId: betaShop.uploadId })).toBeUndefined();
    expect(await repositoryFindings(db, WS_B, 'github.com/acme/api')).toBeUndefined();
    const beta = await repositoryFindings(db, WS_B, 'github.com/acme/shop');
    expect(beta.upload.uploadId).toBe(betaShop.uploadId);
    expect(beta.findings.map((f) => f.fingerprint)).toEqual(['sca-0']);
    expect(await findingRepositories(db, 3)).toEqual([]);
    expect(await repositoryFindings(db, 3, 'github.com/acme/shop')).toBeUndefined();
    const betaRepos = await findingRepositories(db, WS_B);
    expect(betaRepos).toHaveLength(1);
    expect(betaRepos[0]).toMatchObject({ repository: 'github.com/acme/shop', uploads: 1, lastUploadAt: 500, latest: { uploadId: betaShop.uploadId } });
    await expect(findingRepositories(db, '11111111-1111-4111-8111-111111111111')).rejects.toThrow(TypeError);
  });

  it('is undefined for an upload of another repository or an unknown one', async () => {
    expect(await repositoryFindings(db, WS_A, 'github.com/acme/api', { uploadId: shopSca.uploadId })).toBeUndefined();
    expect(await repositoryFindings(db, WS_A, 'github.com/acme/nothing')).toBeUndefined();
    expect(await repositoryFindings(db, WS_A, 'github.com/acme/shop', { uploadId: 987654 })).toBeUndefined();
  });

  it('summarizes each repository by its latest upload, overall and per kind', async () => {
    const repos = await findingRepositories(db, WS_A);
    expect(repos.map((r) => r.repository)).toEqual(['github.com/acme/api', 'github.com/acme/shop']);
    const [api, shop] = repos;
    expect(api).toMatchObject({ uploads: 1, lastUploadAt: 1500, latest: { uploadId: apiAudit.uploadId, kind: 'audit' }, byKind: { sca: null } });
    expect(api.latest.counts).toEqual({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
    expect(shop.uploads).toBe(2);
    expect(shop.lastUploadAt).toBe(2000);
    expect(shop.latest).toMatchObject({ uploadId: shopAudit.uploadId, kind: 'audit', counts: { critical: 0, high: 2, medium: 0, low: 1, info: 1 } });
    expect(shop.byKind.audit).toEqual(shop.latest);
    expect(shop.byKind.sca).toMatchObject({ uploadId: shopSca.uploadId, ref: 'refs/heads/main', commit: COMMIT, counts: { critical: 1, medium: 1 } });

    // a newer sca scan becomes the latest; same received time: the later upload wins
    const newer = await ingestFindings(db, WS_A, upload({ repository: 'github.com/acme/shop', kind: 'sca', severities: ['medium'] }), 2000);
    const after = (await findingRepositories(db, WS_A)).find((r) => r.repository === 'github.com/acme/shop');
    expect(after).toMatchObject({ uploads: 3, lastUploadAt: 2000, latest: { uploadId: newer.uploadId, kind: 'sca' } });
    expect(after.byKind.sca.uploadId).toBe(newer.uploadId);
    expect(after.byKind.audit.uploadId).toBe(shopAudit.uploadId);
    expect((await repositoryFindings(db, WS_A, 'github.com/acme/shop')).upload.uploadId).toBe(newer.uploadId);
  });

  it('stores a parsed SARIF log', async () => {
    const parsed = parseFindingsUpload(sarifLog());
    const stored = await ingestFindings(db, WS_B, parsed, 3000);
    expect(stored.findings).toBe(6);
    const read = await repositoryFindings(db, WS_B, 'github.com/acme/shop');
    expect(read.upload).toMatchObject({ uploadId: stored.uploadId, format: 'sarif', kind: 'audit', ref: 'main', commit: COMMIT });
    const order = ['critical', 'high', 'medium', 'low', 'info'];
    const expected = parsed.findings.map((f, i) => [f, i]).sort((a, b) => order.indexOf(a[0].severity) - order.indexOf(b[0].severity) || a[1] - b[1]).map(([f]) => f);
    expect(read.findings).toEqual(expected);
  });

  it('rolls the whole upload back when one row fails', async () => {
    const before = await count('finding_uploads', WS_A);
    const bad = upload({ repository: 'github.com/acme/broken', kind: 'audit', severities: ['high', 'low'], inventory: 2 });
    bad.findings[1].severity = 'catastrophic';
    await expect(ingestFindings(db, WS_A, bad, 4000)).rejects.toThrow(/CHECK constraint/);
    expect(await count('finding_uploads', WS_A)).toBe(before);
    expect(await repositoryFindings(db, WS_A, 'github.com/acme/broken')).toBeUndefined();
    expect((await db.get("SELECT count(*) AS n FROM finding_inventory WHERE repository = 'github.com/acme/broken'")).n).toBe(0);
  });

  it('ingests a large upload in one statement per table', async () => {
    const severities = Array.from({ length: 20_000 }, (_, i) => ['critical', 'high', 'medium', 'low', 'info'][i % 5]);
    const big = upload({ repository: 'github.com/acme/mono', kind: 'sca', severities, inventory: 30_000 });
    const stored = await ingestFindings(db, WS_B, big, 3500);
    expect(stored).toMatchObject({ findings: 20_000, inventory: 30_000 });
    const read = await repositoryFindings(db, WS_B, 'github.com/acme/mono', { limit: 50_000 });
    expect(read.findings).toHaveLength(20_000);
    expect(read.upload.counts).toEqual({ critical: 4000, high: 4000, medium: 4000, low: 4000, info: 4000 });
    expect(read.findings[0]).toMatchObject({ severity: 'critical', fingerprint: 'sca-0' });
    expect(read.findings[3999]).toMatchObject({ severity: 'critical', fingerprint: 'sca-19995' });
    expect(read.findings[4000]).toMatchObject({ severity: 'high', fingerprint: 'sca-1' });
    expect((await repositoryFindings(db, WS_B, 'github.com/acme/mono')).findings).toHaveLength(1000);
  });

  it('deletes uploads before the cutoff, with their rows, in one workspace only', async () => {
    const betaUploads = await count('finding_uploads', WS_B);
    const betaFindings = await count('findings', WS_B);
    // ws A: sca at 1000 and api at 1500 go; the audit and the newer sca at 2000 stay
    expect(await deleteUploadsBefore(db, WS_A, 1600)).toBe(2);
    expect(await repositoryFindings(db, WS_A, 'github.com/acme/shop', { uploadId: shopSca.uploadId })).toBeUndefined();
    expect((await db.get('SELECT count(*) AS n FROM findings WHERE upload_id IN (?, ?)', [shopSca.uploadId, apiAudit.uploadId])).n).toBe(0);
    expect((await db.get('SELECT count(*) AS n FROM finding_inventory WHERE upload_id = ?', [shopSca.uploadId])).n).toBe(0);
    expect((await findingRepositories(db, WS_A)).map((r) => [r.repository, r.uploads])).toEqual([['github.com/acme/shop', 2]]);
    expect(await count('findings', WS_A)).toBe(5);
    // ws B's upload received at 500 is older than the cutoff but not ws A's to delete
    expect(await count('finding_uploads', WS_B)).toBe(betaUploads);
    expect(await count('findings', WS_B)).toBe(betaFindings);
    expect(await deleteUploadsBefore(db, WS_A, 1600)).toBe(0);
    expect(await deleteUploadsBefore(db, WS_B, 10_000)).toBe(betaUploads);
    expect(await count('findings', WS_B)).toBe(0);
    expect(await count('finding_inventory', WS_B)).toBe(0);
    expect(await count('findings', WS_A)).toBe(5);
  });

  it('keeps what it acknowledged across a reopen of the file', async () => {
    const file = db.file;
    await db.close();
    db = await Db.open(file);
    const shop = await repositoryFindings(db, WS_A, 'github.com/acme/shop');
    expect(shop.findings.map((f) => f.fingerprint)).toEqual(['sca-0']);
    expect(shop.upload.receivedAt).toBe(2000);
  });
});
