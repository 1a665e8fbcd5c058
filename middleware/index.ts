// @shield/node: the engine's string and object functions (bindings/) and the Express
// middleware (this folder). See README.md.

export * from '../bindings/index.js';
export { shield, telemetryClient } from './shield.js';
export type { ShieldOptions, RequestFinding, DecisionContext, Location } from './shield.js';
export { SDK_NAME, SDK_VERSION, LOCAL_WORKSPACE_ID, VECTORS } from './event.js';
export type { DecisionEvent, TelemetryEnvelope, Action, Vector } from './event.js';
export { hpp } from './hpp.js';
export type { HppOptions } from './hpp.js';
export { securityHeaders, securityHeaderSetter, SECURITY_HEADERS } from './security-headers.js';
export type { SecurityHeadersOptions } from './security-headers.js';
export { csrfProtection, CSRF_DEFAULTS } from './csrf.js';
export type { CsrfOptions, CsrfCookieOptions, CsrfRejectReason } from './csrf.js';
export { errorHandler, scrubText, REDACTED } from './error-handler.js';
export type { ErrorHandlerOptions } from './error-handler.js';
export { TelemetryClient, TelemetryError, telemetryFromEnv, validateEndpoint } from './telemetry.js';
export type { TelemetryOptions, TelemetryStats, TelemetryCompression } from './telemetry.js';
export type { TrustProxy } from './client-ip.js';
export type { ExcludeOptions } from './exclude.js';
