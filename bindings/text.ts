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
  const units = new Array<number>(n);
  for (let i = 0; i < n; i++) units[i] = s.charCodeAt(i);
  return String.fromCharCode.apply(null, units);
}
