// API errors: a status, a stable machine code and a message naming the bad field. Every error
// body of the control plane is { error: code, message, field? }.

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
