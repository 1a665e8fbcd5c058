// API errors: a status, a stable machine code and a message naming the bad field, answered as
// { error: code, message, field?, details? }. (The OAuth token endpoint answers in RFC 8628's
// { error, error_description } shape, and shield()'s own refusals as { error, vector, incident }.)

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status
   * @param {string} code stable machine-readable code, e.g. `invalid_body`
   * @param {string} message for people; names the field when one is at fault
   * @param {{ field?: string, headers?: Record<string, string>, details?: unknown }} [extra]
   */
  constructor(status, code, message, extra = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = extra.field;
    this.headers = extra.headers;
    this.details = extra.details;
  }

  toJSON() {
    /** @type {Record<string, unknown>} */
    const body = { error: this.code, message: this.message };
    if (this.field !== undefined) body.field = this.field;
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export const badRequest = (message, field) => new ApiError(400, 'invalid_request', message, { field });
export const unauthorized = (message = 'missing or invalid credentials') => new ApiError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (message) => new ApiError(403, 'forbidden', message);
export const notFound = (message = 'not found') => new ApiError(404, 'not_found', message);

/** 429 with Retry-After: the caller should wait `waitS` seconds. */
export const rateLimited = (message, waitS) => new ApiError(429, 'rate_limited', `${message}; retry in ${waitS} s`, { headers: { 'Retry-After': String(waitS) } });
