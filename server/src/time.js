// Time in the control plane: ms since the epoch (UTC) inside, ISO 8601 outside, and UTC days
// ('YYYY-MM-DD') as the unit of rollups and overview ranges.

export const DAY_MS = 86_400_000;

/** @param {number} ms @returns {string} the UTC day of a time */
export function dayOf(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/** @param {number | null | undefined} ms @returns {string | null} */
export function iso(ms) {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
