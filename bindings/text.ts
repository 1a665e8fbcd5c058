// Small string helpers shared by the bindings.

/**
 * A copy of `s` that refers to no other string. V8 makes a slice of 13 or more code units a view
 * of the string it was cut from, so an 80-character `matched` cut from a 2 MB value kept the
 * whole 2 MB alive for as long as the finding lived: in an event waiting in the telemetry queue,
 * in a log, in a caller's list. A finding's texts are short, so the copy is cheap.
 */
export function detach(s: string): string {
  const n = s.length;
  if (n === 0) return '';
  // in pieces: fromCharCode.apply takes its units as arguments, and engines cap their number
  let out = '';
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK);
    const units = new Array<number>(to - from);
    for (let i = from; i < to; i++) units[i - from] = s.charCodeAt(i);
    out += String.fromCharCode.apply(null, units);
  }
  return out;
}

const CHUNK = 4096;
