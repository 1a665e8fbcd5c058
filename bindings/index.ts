// @shield/node public API (engine layer). See README.md.

import { Engine, type Finding, type SanitizeOptions } from './engine.js';

export { Engine, engineBytes, engineModule, ABI_VERSION } from './engine.js';
export type { Finding, EngineOptions, SanitizeOptions } from './engine.js';
export { parseRuleBlob } from './rule-blob.js';
export type { RuleInfo, Severity } from './rule-blob.js';
export { validateUrl, validateUrlAsync, createPinnedLookup, ssrfSafeAgent, BLOCKED_IPV4_RANGES } from './ssrf.js';
export type {
  UrlRejection, UrlCheckOptions, UrlCheckResult, ResolvedAddress, Resolver, AsyncUrlCheckOptions, AsyncUrlCheckResult,
  PinnedLookupOptions, ShieldSsrfError,
} from './ssrf.js';
export { validateRedirect } from './redirect.js';
export type { RedirectRejection, RedirectCheckOptions, RedirectCheckResult } from './redirect.js';
export { sanitizeLdap, sanitizeLdapDn } from './ldap.js';
export { sanitizeJsonpCallback, MAX_JSONP_CALLBACK_LENGTH } from './jsonp.js';
export { sanitizeHeaderValue } from './header-value.js';
export { detectDeserialization, DESERIALIZATION_READ_LIMIT, DESERIALIZATION_CHECK_LIMIT } from './deserialization.js';
export type { DeserializationTag } from './deserialization.js';
export { detectPromptInjection } from './prompt-injection.js';
export type { PromptInjectionResult, PromptInjectionMatch } from './prompt-injection.js';
export { PROMPT_SIGNATURES } from './prompt-signatures.js';
export type { PromptSignature, PromptTier, PromptSignal, PatternStep } from './prompt-signatures.js';
export { scanObject, sanitizeObject, ObjectLimitError, OBJECT_LIMITS, MAX_DEPTH_CEILING } from './object.js';
export type { ObjectFinding, ObjectPath, ObjectScanOptions } from './object.js';

let shared: Engine | undefined;

/** The process-wide engine used by the functions below (created on first use). */
export function defaultEngine(): Engine {
  shared ??= new Engine();
  return shared;
}

/** Every finding in one value: `{ vector, rule, matched, start, end }`. */
export function scan(value: string): Finding[] {
  return defaultEngine().scan(value);
}

/** Findings of many values with one engine call; `result[i]` belongs to `values[i]`. */
export function scanValues(values: readonly string[]): Finding[][] {
  return defaultEngine().scanValues(values);
}

/**
 * NFKC, URL and HTML decoding (at most 4 passes), then: script elements, javascript: URLs,
 * event handlers and embedding/injection tags stripped; SQL injection replaced by [BLOCKED];
 * ../ and ..\ stripped until stable; < > " ' & HTML-encoded. Idempotent.
 */
export function sanitizeString(value: string, options?: SanitizeOptions): string {
  return defaultEngine().sanitize(value, options);
}

/** The decoded form detectors see (NFKC, ignorables removed, URL/HTML decoded). */
export function decode(value: string): string {
  return defaultEngine().decode(value);
}
