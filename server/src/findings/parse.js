// Turns a POST /v1/findings body into one normalized upload. Two formats arrive: shield's own
// JSON (schema/findings.schema.json, printed by `shield sca` and `shield audit`) and SARIF 2.1.0
// (printed by most other scanners). Both leave here in the same bounded shape, so the store never
// deals with format differences or unbounded strings. Validation runs with ajv's allErrors off:
// with it on, ajv evaluates every keyword of every item (patterns after a failed maxLength
// included) and the error list grows with the input; details are gathered item by item instead.
import { createHash } from 'node:crypto';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ApiError } from '../errors.js';
import { loadSchema } from '../schemas.js';
import { fieldOf, pointerSegments } from '../ajv-errors.js';

/**
 * @typedef {'critical' | 'high' | 'medium' | 'low' | 'info'} Severity
 * @typedef {{
 *   fingerprint: string, rule: string, severity: Severity, title: string, message: string | null,
 *   file: string | null, line: number | null, package: string | null, version: string | null,
 *   ecosystem: string | null, advisoryId: string | null, cvss: number | null, url: string | null,
 * }} NormalizedFinding
 * @typedef {{ ecosystem: string, name: string, version: string, direct: boolean | null }} InventoryPackage
 * @typedef {{
 *   format: 'json' | 'sarif',
 *   kind: 'sca' | 'audit',
 *   tool: { name: string, version: string },
 *   repository: { name: string, ref: string | null, commit: string | null },
 *   generatedAt: number,
 *   findings: NormalizedFinding[],
 *   inventory: InventoryPackage[],
 * }} FindingsUpload
 * @typedef {{ field: string, message: string }} FieldError
 * @typedef {{ (data: unknown): boolean, errors?: import('ajv').ErrorObject[] | null }} Validator
 * @typedef {{ repository?: string, ref?: string, commit?: string, kind?: 'sca' | 'audit' }} QueryOverrides
 */

/** Severities, most severe first. */
export const SEVERITIES = Object.freeze(['critical', 'high', 'medium', 'low', 'info']);
export const MAX_FINDINGS = 50_000;
export const MAX_INVENTORY = 100_000;
const MAX_DETAILS = 20;

// Bounds of normalized SARIF fields: the same as findings.schema.json gives shield JSON, so the
// store sees one set of limits whatever the format.
const MAX = Object.freeze({ toolName: 64, toolVersion: 64, rule: 256, title: 200, message: 4000, file: 1024, url: 2048, ref: 256 });

// SARIF has no size limits of its own. Two patterns of the official schema are unanchored
// (`[^/]+/.+` on mimeType, `[0-9]+(\.[0-9]+){3}` on dottedQuadFileVersion) and V8 runs them in
// time quadratic in the string's length, so those values are held short before ajv sees them.
const SARIF_MAX_DEPTH = 64;
const SARIF_MAX_STRING = 65_536;
const SARIF_MAX_KEY = 1024;
const SARIF_SHORT_KEYS = new Set(['mimeType', 'dottedQuadFileVersion']);
const SARIF_SHORT_STRING = 256;


// The full-mode `uri` format of ajv-formats is one large regex with nested quantifiers; the fast
// one is a linear scheme check, which is all a link in a finding needs. `date-time` stays full
// mode (a small function that also refuses February 30th).
const fastUri = addFormats.get('uri', 'fast');
const fastUriReference = addFormats.get('uri-reference', 'fast');

const shieldSchema = loadSchema('findings.schema.json');
const shieldAjv = new Ajv2020({ strict: true });
addFormats(shieldAjv, ['date-time']);
shieldAjv.addFormat('uri', fastUri);
shieldAjv.addSchema(shieldSchema);
const SHIELD_ID = shieldSchema.$id;
const validateShield = compiled(shieldAjv, SHIELD_ID);
const validateShieldFinding = compiled(shieldAjv, `${SHIELD_ID}#/$defs/finding`);
const validateShieldInventory = compiled(shieldAjv, `${SHIELD_ID}#/$defs/inventoryEntry`);
const validateRepositoryName = compiled(shieldAjv, `${SHIELD_ID}#/$defs/repositoryName`);
const validateRef = compiled(shieldAjv, `${SHIELD_ID}#/$defs/ref`);
const validateCommit = compiled(shieldAjv, `${SHIELD_ID}#/$defs/commit`);

// The official schema trips two ajv defaults, neither about the data: strictRequired (its anyOf
// branches require properties that only the parent schema declares) and the `u` regex flag (one
// language-tag pattern ends in a stray `]?`, valid only without it). The rest of strict mode stays on.
const sarifSchema = loadSchema('sarif-schema-2.1.0.json');
const sarifAjv = new Ajv({ strict: true, strictRequired: false, unicodeRegExp: false });
// ajv checks uniqueItems pairwise when items are objects: 10,000 artifacts take seconds. The
// replacement compares each item's JSON text in a Set, linear in the array's size; it misses
// only duplicates that differ in key order, which nothing here depends on.
sarifAjv.removeKeyword('uniqueItems');
sarifAjv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: false, validate: (/** @type {boolean} */ on, /** @type {unknown[]} */ items) => !on || distinctItems(items) });
addFormats(sarifAjv, ['date-time']);
sarifAjv.addFormat('uri', fastUri);
sarifAjv.addFormat('uri-reference', fastUriReference);
sarifAjv.addSchema(sarifSchema);
const validateSarif = compiled(sarifAjv, sarifSchema.$id);
const validateSarifResult = compiled(sarifAjv, `${sarifSchema.$id}#/definitions/result`);

/** @param {unknown[]} items */
function distinctItems(items) {
  const seen = new Set();
  for (const item of items) {
    const text = JSON.stringify(item);
    if (seen.has(text)) return false;
    seen.add(text);
  }
  return true;
}

/**
 * @param {any} ajv @param {string} ref
 * @returns {Validator}
 */
function compiled(ajv, ref) {
  const fn = ajv.getSchema(ref);
  if (fn === undefined) throw new Error(`schema ${ref} not found`);
  return fn;
}

/**
 * Validates and normalizes one findings upload (shield JSON or SARIF 2.1.0).
 * Throws ApiError 400 `invalid_findings` naming the first bad field.
 * @param {unknown} body the JSON-parsed request body
 * @param {{ query?: Record<string, unknown>, now?: number }} [options] query: URL query parameters
 *   (`repository`, `ref`, `commit`, `kind` override the body); now: fallback for SARIF without a time
 * @returns {FindingsUpload}
 */
export function parseFindingsUpload(body, { query = {}, now = Date.now() } = {}) {
  if (!isObject(body)) throw invalid({ field: 'body', message: 'body must be a JSON object' });
  const overrides = readQuery(query);
  return isSarif(body) ? fromSarif(body, overrides, now) : fromShield(body, overrides);
}

/** @param {Record<string, unknown>} body */
function isSarif(body) {
  const declared = body.$schema;
  if (typeof declared === 'string' && declared.length <= 512 && declared.toLowerCase().includes('sarif')) return true;
  // A shield upload always carries schema_version; a SARIF log always carries runs. Deciding on
  // `runs` (not only a well-formed one) lets a broken SARIF log get SARIF's error messages.
  return body.runs !== undefined && body.schema_version === undefined;
}

// ---------------------------------------------------------------------------------------------
// Query parameters

/** @param {Record<string, unknown>} query @returns {QueryOverrides} */
function readQuery(query) {
  /** @type {QueryOverrides} */
  const out = {};
  if (!isObject(query)) return out;
  const repository = queryString(query, 'repository');
  if (repository !== undefined) {
    const name = normalizeRepositoryName(repository);
    if (name === null) throw queryError('repository', 'must be a repository name such as github.com/acme/shop');
    out.repository = name;
  }
  const ref = queryString(query, 'ref');
  if (ref !== undefined) {
    if (!validateRef(ref)) throw queryError('ref', `must be a git ref of at most ${MAX.ref} printable characters without spaces`);
    out.ref = ref;
  }
  const commit = queryString(query, 'commit');
  if (commit !== undefined) {
    if (!validateCommit(commit)) throw queryError('commit', 'must be 40 or 64 hexadecimal digits');
    out.commit = commit.toLowerCase();
  }
  const kind = queryString(query, 'kind');
  if (kind !== undefined) {
    if (kind !== 'sca' && kind !== 'audit') throw queryError('kind', 'must be one of sca, audit');
    out.kind = kind;
  }
  return out;
}

/** @param {Record<string, unknown>} query @param {string} name @returns {string | undefined} */
function queryString(query, name) {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw queryError(name, 'must be given once, as a string');
  if (value.length > 2048) throw queryError(name, 'must be at most 2048 characters');
  return value;
}

/** @param {string} name @param {string} rest */
function queryError(name, rest) {
  return invalid({ field: name, message: `query parameter ${name} ${rest}` });
}

/**
 * Canonical repository name: `https://user@github.com/acme/shop.git`, `git@github.com:acme/shop`
 * and `github.com/acme/shop` all become `github.com/acme/shop`, so uploads of one repository
 * meet whatever spelling the CI used. Returns null when nothing valid remains.
 * @param {string} raw
 * @returns {string | null}
 */
export function normalizeRepositoryName(raw) {
  if (raw.length > 2048) return null;
  let s = raw.trim();
  let hadScheme = false;
  const schemeEnd = s.indexOf('://');
  if (schemeEnd > 0 && isSchemeName(s.slice(0, schemeEnd))) {
    s = s.slice(schemeEnd + 3);
    hadScheme = true;
  }
  const query = s.indexOf('?');
  if (query >= 0) s = s.slice(0, query);
  const fragment = s.indexOf('#');
  if (fragment >= 0) s = s.slice(0, fragment);
  let slash = s.indexOf('/');
  const at = s.lastIndexOf('@', slash === -1 ? s.length : slash - 1);
  if (at >= 0) {
    s = s.slice(at + 1);
    slash = s.indexOf('/');
  }
  // scp-like `host:owner/name` (ssh remotes); `host:8443/owner/name` keeps its port.
  const colon = s.indexOf(':');
  if (!hadScheme && colon > 0 && (slash === -1 || colon < slash) && !isPortThen(s, colon + 1)) {
    s = `${s.slice(0, colon)}/${s.slice(colon + 1)}`;
  }
  while (s.endsWith('/')) s = s.slice(0, -1);
  if (s.endsWith('.git')) s = s.slice(0, -4);
  while (s.endsWith('/')) s = s.slice(0, -1);
  return validateRepositoryName(s) ? s : null;
}

/** @param {string} s */
function isSchemeName(s) {
  if (s.length === 0 || s.length > 32) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    if (!letter && (i === 0 || !((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46))) return false;
  }
  return true;
}

/** Digits from `start` up to a `/` or the end: a port, not an scp-like path. @param {string} s @param {number} start */
function isPortThen(s, start) {
  let i = start;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
  return i > start && (i === s.length || s[i] === '/');
}

// ---------------------------------------------------------------------------------------------
// shield JSON

/**
 * @param {Record<string, any>} body @param {QueryOverrides} q
 * @returns {FindingsUpload}
 */
function fromShield(body, q) {
  const doc = withQueryRepository(body, q.repository);
  if (!validateShield(doc)) {
    const first = describe(firstError(validateShield), []);
    const details = [first];
    const seen = new Set([key(first)]);
    collectItemErrors(details, seen, doc.findings, validateShieldFinding, 'findings', MAX_FINDINGS);
    collectItemErrors(details, seen, doc.inventory, validateShieldInventory, 'inventory', MAX_INVENTORY);
    throw invalid(first, details);
  }
  const name = q.repository ?? normalizeRepositoryName(doc.repository.name);
  if (name === null) throw invalid({ field: 'repository.name', message: 'repository.name must be a repository name such as github.com/acme/shop' });
  const commit = q.commit ?? doc.repository.commit;
  /** @type {NormalizedFinding[]} */
  const findings = [];
  for (const f of doc.findings) {
    findings.push({
      fingerprint: f.id,
      rule: f.rule,
      severity: f.severity,
      title: text(f.title),
      message: optionalText(f.message),
      file: optionalText(f.location?.file),
      line: f.location?.line ?? null,
      package: optionalText(f.package?.name),
      version: optionalText(f.package?.version),
      ecosystem: f.package?.ecosystem ?? null,
      advisoryId: f.advisory?.id ?? null,
      cvss: f.advisory?.cvss?.score ?? null,
      url: f.advisory?.url ?? null,
    });
  }
  /** @type {InventoryPackage[]} */
  const inventory = [];
  for (const p of doc.inventory ?? []) {
    inventory.push({ ecosystem: p.ecosystem, name: text(p.name), version: text(p.version), direct: p.direct ?? null });
  }
  return {
    format: 'json',
    kind: q.kind ?? doc.kind,
    tool: { name: text(doc.tool.name), version: text(doc.tool.version) },
    repository: { name, ref: q.ref ?? doc.repository.ref ?? null, commit: commit === undefined ? null : commit.toLowerCase() },
    generatedAt: Date.parse(doc.generated_at),
    findings,
    inventory,
  };
}

/**
 * A repository from the query stands in for one the body lacks (without mutating the body), so
 * the schema's "repository is required" still speaks when neither gives one.
 * @param {Record<string, any>} body @param {string | undefined} name
 */
function withQueryRepository(body, name) {
  if (name === undefined) return body;
  if (body.repository === undefined) return { ...body, repository: { name } };
  if (isObject(body.repository) && body.repository.name === undefined) return { ...body, repository: { ...body.repository, name } };
  return body;
}

// ---------------------------------------------------------------------------------------------
// SARIF 2.1.0

/**
 * @param {Record<string, any>} body @param {QueryOverrides} q @param {number} now
 * @returns {FindingsUpload}
 */
function fromSarif(body, q, now) {
  const tooBig = sarifBoundsError(body, [], undefined, 0);
  if (tooBig !== null) throw invalid(tooBig);
  if (Array.isArray(body.runs)) {
    let results = 0;
    for (let i = 0; i < body.runs.length; i++) {
      const run = body.runs[i];
      if (isObject(run) && Array.isArray(run.results)) results += run.results.length;
      if (results > MAX_FINDINGS) throw invalid({ field: `runs[${i}].results`, message: `runs[${i}].results: at most ${MAX_FINDINGS} results per upload` });
    }
  }
  if (!validateSarif(body)) {
    const first = describe(firstError(validateSarif), []);
    const details = [first];
    const seen = new Set([key(first)]);
    if (Array.isArray(body.runs)) {
      for (let i = 0; i < body.runs.length && details.length < MAX_DETAILS; i++) {
        const run = body.runs[i];
        if (isObject(run)) collectItemErrors(details, seen, run.results, validateSarifResult, `runs[${i}].results`, MAX_FINDINGS);
      }
    }
    throw invalid(first, details);
  }
  /** @type {any[]} */
  const runs = body.runs;
  if (runs.length === 0) throw invalid({ field: 'runs', message: 'runs must contain at least one run' });
  const driver = runs[0].tool.driver;
  const toolName = clip(driver.name, MAX.toolName);
  const version = typeof driver.version === 'string' ? driver.version : typeof driver.semanticVersion === 'string' ? driver.semanticVersion : '';

  const provenance = sarifProvenance(runs);
  let name = q.repository;
  if (name === undefined && provenance !== null) {
    const fromLog = normalizeRepositoryName(provenance.entry.repositoryUri);
    if (fromLog === null) {
      const field = `runs[${provenance.run}].versionControlProvenance[${provenance.index}].repositoryUri`;
      throw invalid({ field, message: `${field} must name a repository, such as https://github.com/acme/shop` });
    }
    name = fromLog;
  }
  if (name === undefined) {
    throw invalid({
      field: 'repository',
      message: 'repository is required: give runs[].versionControlProvenance[].repositoryUri in the log or the ?repository= query parameter',
    });
  }
  // A log's branch or revision in another VCS's spelling is dropped, not refused: the repository
  // is what matters; the query parameters are the way to state them exactly.
  const branch = provenance?.entry.branch;
  const revision = provenance?.entry.revisionId;
  const ref = q.ref ?? (typeof branch === 'string' && validateRef(branch) ? branch : null);
  const commit = q.commit ?? (typeof revision === 'string' && validateCommit(revision) ? revision.toLowerCase() : null);

  /** @type {NormalizedFinding[]} */
  const findings = [];
  for (const run of runs) {
    if (!Array.isArray(run.results)) continue;
    const rules = Array.isArray(run.tool.driver.rules) ? run.tool.driver.rules : [];
    /** @type {Map<string, any>} */
    const rulesById = new Map();
    for (const rule of rules) if (typeof rule.id === 'string' && !rulesById.has(rule.id)) rulesById.set(rule.id, rule);
    for (const result of run.results) {
      const finding = sarifFinding(result, run, rules, rulesById);
      if (finding !== null) findings.push(finding);
    }
  }

  return {
    format: 'sarif',
    kind: q.kind ?? kindOfTool(toolName),
    tool: { name: toolName, version: clip(version, MAX.toolVersion) },
    repository: { name, ref, commit },
    generatedAt: sarifTime(runs[0]) ?? now,
    findings,
    inventory: [],
  };
}

/**
 * The first versionControlProvenance entry with a repositoryUri, searching runs in order.
 * @param {any[]} runs
 */
function sarifProvenance(runs) {
  for (let r = 0; r < runs.length; r++) {
    const list = runs[r].versionControlProvenance;
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      if (typeof list[i].repositoryUri === 'string') return { run: r, index: i, entry: list[i] };
    }
  }
  return null;
}

/** @param {any} run @returns {number | null} */
function sarifTime(run) {
  const invocation = Array.isArray(run.invocations) ? run.invocations[0] : undefined;
  const stamp = invocation?.endTimeUtc ?? invocation?.startTimeUtc;
  if (typeof stamp !== 'string') return null;
  const ms = Date.parse(stamp);
  return Number.isFinite(ms) ? ms : null;
}

// Scanners whose SARIF reports vulnerable dependencies rather than code or configuration.
const SCA_TOOLS = ['osv-scanner', 'grype', 'dependency-check', 'dependabot', 'npm audit', 'npm-audit', 'pip-audit', 'govulncheck', 'cargo-audit', 'cargo audit', 'snyk open source', 'shield sca'];

/** @param {string} name @returns {'sca' | 'audit'} */
function kindOfTool(name) {
  const lower = name.toLowerCase();
  for (const tool of SCA_TOOLS) if (lower.includes(tool)) return 'sca';
  return 'audit';
}

// Advisory id prefixes (OSV, GitHub, CVE and ecosystem databases): a rule named like this is an
// advisory, as SCA scanners' SARIF has it.
const ADVISORY_PREFIXES = ['GHSA-', 'CVE-', 'OSV-', 'PYSEC-', 'GO-', 'RUSTSEC-', 'GSD-', 'MAL-'];

/**
 * One SARIF result as a finding, or null when it is not an open problem: a passing or
 * not-applicable check, a result absent from the baseline, or an accepted suppression.
 * @param {any} result @param {any} run @param {any[]} rules @param {Map<string, any>} rulesById
 * @returns {NormalizedFinding | null}
 */
function sarifFinding(result, run, rules, rulesById) {
  if (result.kind === 'pass' || result.kind === 'notApplicable') return null;
  if (result.baselineState === 'absent') return null;
  if (Array.isArray(result.suppressions)) {
    // A suppression without a status counts as accepted (SARIF 3.35.3).
    for (const s of result.suppressions) if (s.status === undefined || s.status === 'accepted') return null;
  }
  const descriptor = sarifRule(result, rules, rulesById);
  const ruleId = result.ruleId ?? result.rule?.id ?? descriptor?.id;
  const rule = typeof ruleId === 'string' && ruleId !== '' ? clip(ruleId, MAX.rule) : 'unknown';

  const physical = Array.isArray(result.locations) ? result.locations[0]?.physicalLocation : undefined;
  let uri = physical?.artifactLocation?.uri;
  const artifactIndex = physical?.artifactLocation?.index;
  if (uri === undefined && Number.isInteger(artifactIndex) && Array.isArray(run.artifacts)) uri = run.artifacts[artifactIndex]?.location?.uri;
  const file = typeof uri === 'string' && uri !== '' ? clip(uri, MAX.file) : null;
  const startLine = physical?.region?.startLine;
  const line = Number.isInteger(startLine) && startLine >= 1 ? Math.min(startLine, 10_000_000) : null;

  let words = result.message?.text;
  if (typeof words !== 'string' && typeof result.message?.id === 'string') words = descriptor?.messageStrings?.[result.message.id]?.text;
  if (typeof words !== 'string' || words === '') words = descriptor?.shortDescription?.text;
  if (typeof words !== 'string' || words === '') words = rule;

  const score = securitySeverity(result.properties) ?? securitySeverity(descriptor?.properties);
  const helpUri = descriptor?.helpUri;
  return {
    fingerprint: sarifFingerprint(result, rule, file, line, words),
    rule,
    severity: score !== null ? severityOfScore(score) : severityOfLevel(sarifLevel(result, descriptor)),
    title: clip(words, MAX.title),
    message: clip(words, MAX.message),
    file,
    line,
    package: null,
    version: null,
    ecosystem: null,
    advisoryId: ADVISORY_PREFIXES.some((p) => rule.startsWith(p)) ? rule : null,
    cvss: score,
    url: typeof helpUri === 'string' && helpUri.length <= MAX.url ? text(helpUri) : null,
  };
}

/** @param {any} result @param {any[]} rules @param {Map<string, any>} rulesById */
function sarifRule(result, rules, rulesById) {
  const index = result.ruleIndex ?? result.rule?.index;
  if (Number.isInteger(index) && index >= 0 && index < rules.length) return rules[index];
  const id = result.ruleId ?? result.rule?.id;
  return typeof id === 'string' ? rulesById.get(id) : undefined;
}

/**
 * SARIF 3.27.10: an explicit level wins; a result whose kind is not `fail` is `none`; else the
 * rule's default level; else `warning`.
 * @param {any} result @param {any} descriptor @returns {string}
 */
function sarifLevel(result, descriptor) {
  if (typeof result.level === 'string') return result.level;
  if (typeof result.kind === 'string' && result.kind !== 'fail') return 'none';
  const level = descriptor?.defaultConfiguration?.level;
  return typeof level === 'string' ? level : 'warning';
}

/** @param {string} level @returns {Severity} */
function severityOfLevel(level) {
  if (level === 'error') return 'high';
  if (level === 'warning') return 'medium';
  if (level === 'note') return 'low';
  return 'info';
}

// GitHub's `security-severity` property (a CVSS-like score, usually a string) ranks security
// results more finely than SARIF's level, so it wins when present, with GitHub's thresholds.
/** @param {number} score @returns {Severity} */
function severityOfScore(score) {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

/** @param {any} properties @returns {number | null} */
function securitySeverity(properties) {
  const raw = isObject(properties) ? properties['security-severity'] : undefined;
  let score = NaN;
  if (typeof raw === 'number') score = raw;
  else if (typeof raw === 'string' && raw.trim() !== '' && raw.length <= 16) score = Number(raw);
  return Number.isFinite(score) && score >= 0 && score <= 10 ? score : null;
}

/**
 * A stable id across scans: the tool's own fingerprints when it gives them, else the rule,
 * place and text. Hashed with the rule so two rules firing at one spot stay two findings.
 * @param {any} result @param {string} rule @param {string | null} file @param {number | null} line @param {string} words
 */
function sarifFingerprint(result, rule, file, line, words) {
  const given = fingerprintPairs(result.fingerprints) ?? fingerprintPairs(result.partialFingerprints);
  const material = given !== null ? ['fingerprints', rule, given] : ['location', rule, file, line, words];
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

/** @param {unknown} bag @returns {[string, string][] | null} */
function fingerprintPairs(bag) {
  if (!isObject(bag)) return null;
  /** @type {[string, string][]} */
  const pairs = [];
  for (const k of Object.keys(bag).sort()) if (typeof bag[k] === 'string') pairs.push([k, bag[k]]);
  return pairs.length > 0 ? pairs : null;
}

/**
 * Holds a SARIF log to size limits before ajv runs: depth, string and key length. One pass,
 * each value visited once.
 * @param {unknown} value @param {(string | number)[]} path @param {string | undefined} key @param {number} depth
 * @returns {FieldError | null}
 */
function sarifBoundsError(value, path, key, depth) {
  if (typeof value === 'string') {
    const max = key !== undefined && SARIF_SHORT_KEYS.has(key) ? SARIF_SHORT_STRING : SARIF_MAX_STRING;
    if (value.length <= max) return null;
    const field = fieldOf(path);
    return { field, message: `${field} must be at most ${max} characters` };
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= SARIF_MAX_DEPTH) {
    const field = fieldOf(path);
    return { field, message: `${field} nests deeper than ${SARIF_MAX_DEPTH} levels` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const err = sarifBoundsError(value[i], path, undefined, depth + 1);
      if (err !== null) return err;
      path.pop();
    }
    return null;
  }
  for (const k of Object.keys(value)) {
    path.push(k);
    if (k.length > SARIF_MAX_KEY) {
      const field = fieldOf(path);
      return { field, message: `${field}: property names must be at most ${SARIF_MAX_KEY} characters` };
    }
    const err = sarifBoundsError(/** @type {Record<string, unknown>} */ (value)[k], path, k, depth + 1);
    if (err !== null) return err;
    path.pop();
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Errors

/** @param {FieldError} first @param {FieldError[]} [details] */
function invalid(first, details = [first]) {
  return new ApiError(400, 'invalid_findings', first.message, { field: first.field, details: details.slice(0, MAX_DETAILS) });
}

/** @param {FieldError} e */
const key = (e) => `${e.field}\u0000${e.message}`;

/** @param {Validator} validate */
function firstError(validate) {
  const errors = validate.errors;
  if (!errors || errors.length === 0) throw new Error('validator failed without an error');
  return errors[0];
}

/**
 * Adds the first error of each bad item of an array, until MAX_DETAILS. Each item is checked
 * alone with allErrors off, so the cost stays linear and the list bounded.
 * @param {FieldError[]} details @param {Set<string>} seen @param {unknown} items
 * @param {Validator} validate @param {string} prefix @param {number} maxItems
 */
function collectItemErrors(details, seen, items, validate, prefix, maxItems) {
  if (!Array.isArray(items)) return;
  const n = Math.min(items.length, maxItems);
  for (let i = 0; i < n && details.length < MAX_DETAILS; i++) {
    if (validate(items[i])) continue;
    const detail = describe(firstError(validate), [], `${prefix}[${i}]`);
    if (seen.has(key(detail))) continue;
    seen.add(key(detail));
    details.push(detail);
  }
}

const TYPE_NAMES = /** @type {Record<string, string>} */ ({
  object: 'an object', array: 'an array', string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', null: 'null',
});

/**
 * An ajv error as { field, message }, the field spelled `findings[3].severity`.
 * @param {import('ajv').ErrorObject} err @param {(string | number)[]} base @param {string} [prefix]
 * @returns {FieldError}
 */
function describe(err, base, prefix = '') {
  const path = [...base, ...pointerSegments(err.instancePath)];
  const params = /** @type {Record<string, any>} */ (err.params);
  if (err.keyword === 'required') path.push(String(params.missingProperty));
  if (err.keyword === 'additionalProperties') path.push(String(params.additionalProperty));
  const inner = fieldOf(path);
  const field = prefix === '' ? inner : inner === 'body' ? prefix : inner.startsWith('[') ? `${prefix}${inner}` : `${prefix}.${inner}`;
  switch (err.keyword) {
    case 'required':
      return { field, message: `${field} is required` };
    case 'additionalProperties':
      return { field, message: `${field} is not allowed` };
    case 'enum':
      return { field, message: `${field} must be one of ${params.allowedValues.map(String).join(', ')}` };
    case 'uniqueItems':
      return { field, message: `${field} must not contain duplicate items` };
    case 'const':
      return { field, message: `${field} must be ${JSON.stringify(params.allowedValue)}` };
    case 'type': {
      const names = String(params.type).split(',').map((t) => TYPE_NAMES[t] ?? t);
      return { field, message: `${field} must be ${names.join(' or ')}` };
    }
    default:
      return { field, message: `${field} ${err.message ?? 'is invalid'}` };
  }
}


// ---------------------------------------------------------------------------------------------
// Small helpers

/** @param {unknown} v @returns {v is Record<string, any>} */
function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// JSON.parse keeps lone surrogates; they would reach sqlite as broken UTF-8.
/** @param {string} s */
function text(s) {
  return s.isWellFormed() ? s : s.toWellFormed();
}

/** @param {unknown} s */
function optionalText(s) {
  return typeof s === 'string' ? text(s) : null;
}

/** First `max` UTF-16 units, never splitting a surrogate pair. @param {string} s @param {number} max */
function clip(s, max) {
  if (s.length <= max) return text(s);
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text(s.slice(0, end));
}
