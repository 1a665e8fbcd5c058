// Reads a request body for the ingest routes: raw bytes with a hard cap, brotli or gzip inflated
// with a cap of its own (a small bomb cannot expand past it), then JSON. Each refusal names what
// was wrong, with the status the client should act on.
import { brotliDecompress, gunzip } from 'node:zlib';
import { ApiError } from '../errors.js';

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {{ maxBytes: number, maxInflated: number }} limits
 * @returns {Promise<Buffer>} the (inflated) body bytes
 */
export async function readBody(req, limits) {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !(type.startsWith('application/') && type.endsWith('+json'))) {
    throw new ApiError(415, 'unsupported_media_type', `Content-Type must be application/json (got ${type === '' ? 'none' : JSON.stringify(type.slice(0, 100))})`, { field: 'Content-Type' });
  }
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'br') {
    throw new ApiError(415, 'unsupported_media_type', `Content-Encoding must be br, gzip or identity (got ${JSON.stringify(encoding.slice(0, 100))})`, { field: 'Content-Encoding' });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    req.resume();
    throw tooLarge(`body is ${declared} bytes; the limit is ${limits.maxBytes}`);
  }
  // Listeners, not for-await: leaving a for-await loop early destroys the socket, and the
  // client would see a reset instead of the 413.
  const raw = await new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk) => {
      if (over) return;
      size += chunk.length;
      if (size > limits.maxBytes) { over = true; chunks.length = 0; return; }
      chunks.push(chunk);
    });
    req.on('end', () => (over ? reject(tooLarge(`body exceeds the limit of ${limits.maxBytes} bytes`)) : resolve(Buffer.concat(chunks, size))));
    req.on('error', reject);
  });
  if (encoding === 'identity') return raw;
  if (encoding === 'br') {
    // The decoder holds a window of 2^WBITS bytes however little it writes: 16 MiB at WBITS 24,
    // for each body inflated at once. Over 4 MiB (WBITS 22, brotli's usual) is refused unread.
    const bits = brotliWindowBits(raw);
    if (bits > MAX_BROTLI_WINDOW_BITS) {
      const declared = bits > 30 ? 'the large-window extension' : `a window of 2^${bits} bytes`;
      throw new ApiError(400, 'invalid_brotli', `body is not brotli with a window of at most 2^${MAX_BROTLI_WINDOW_BITS} bytes (its first byte declares ${declared})`, { field: 'body' });
    }
  }
  const inflate = encoding === 'br' ? brotliDecompress : gunzip;
  const name = encoding === 'br' ? 'brotli' : 'gzip';
  return new Promise((resolve, reject) => {
    inflate(raw, { maxOutputLength: limits.maxInflated }, (err, out) => {
      if (err === null) resolve(out);
      else if (err.code === 'ERR_BUFFER_TOO_LARGE') reject(tooLarge(`inflated body exceeds the limit of ${limits.maxInflated} bytes`));
      else reject(new ApiError(400, `invalid_${name}`, `body is not valid ${name}: ${err.message}`, { field: 'body' }));
    });
  });
}

const MAX_BROTLI_WINDOW_BITS = 22;

/**
 * The window size (WBITS) a brotli stream declares in its first bits (RFC 7932, section 9.1),
 * 0 for an empty body (the decoder refuses it). The large-window extension (WBITS up to 30) is
 * read as 31: over any limit.
 * @param {Buffer} raw
 */
export function brotliWindowBits(raw) {
  if (raw.length === 0) return 0;
  const b = raw[0];
  if ((b & 1) === 0) return 16;
  const n = (b >> 1) & 7;
  if (n !== 0) return 17 + n;
  const m = (b >> 4) & 7;
  if (m === 1) return 31;
  return m === 0 ? 17 : 8 + m;
}

/** @param {Buffer} bytes */
export function parseJson(bytes) {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new ApiError(400, 'invalid_json', `body is not valid JSON: ${/** @type {Error} */ (err).message.slice(0, 200)}`, { field: 'body' });
  }
}

/** @param {string} message */
export function tooLarge(message) {
  return new ApiError(413, 'payload_too_large', message, { field: 'body' });
}
