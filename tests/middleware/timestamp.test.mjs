// isoTimestamp: the events' `timestamp`, from a per-second cache of Date#toISOString's first 20
// characters. It must give exactly what toISOString gives, for every millisecond of a second,
// across second, minute, day and year boundaries, before 1970, and outside years 0..9999.
import { describe, it, expect } from 'vitest';
import { isoTimestamp } from '../../dist/middleware/event.js';

const iso = (ms) => new Date(ms).toISOString();

describe('isoTimestamp', () => {
  it('equals toISOString for every millisecond of seconds on both sides of boundaries', () => {
    const starts = [
      0, // the epoch
      Date.UTC(2026, 10, 28, 23, 59, 59), // a day's last second, then the next day
      Date.UTC(2026, 11, 31, 23, 59, 59), // a year's last second
      Date.UTC(2024, 1, 28, 23, 59, 59), // into a leap day
      Date.UTC(1969, 11, 31, 23, 59, 58), // before 1970: negative times
      Date.UTC(9999, 11, 31, 23, 59, 59), // the last second toISOString writes with four digits
    ];
    let checked = 0;
    for (const s of starts) {
      for (let ms = s - 1000; ms < s + 2000; ms++) {
        expect(isoTimestamp(ms)).toBe(iso(ms));
        checked++;
      }
    }
    expect(checked).toBe(starts.length * 3000);
  });

  it('equals toISOString when calls jump back and forth between seconds', () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 20000; i++) {
      const ms = (rnd() % 2) === 0 ? 1764350000000 + (rnd() % 5000) : -62000000000000 + rnd() * 1000 + (rnd() % 1000);
      expect(isoTimestamp(ms)).toBe(iso(ms));
    }
  });

  it('writes six-digit years as toISOString does, and truncates fractional times like a Date', () => {
    for (const ms of [Date.UTC(10000, 0, 1), Date.UTC(10000, 0, 1) + 7, -62198755200000 - 1, 8.64e15, -8.64e15, 1.9, -1.9, 1764350000123.999]) {
      expect(isoTimestamp(ms)).toBe(iso(ms));
    }
  });

  it('throws a RangeError for an invalid time, as toISOString does', () => {
    for (const ms of [Number.NaN, Infinity, -Infinity, 8.64e15 + 1]) {
      expect(() => isoTimestamp(ms)).toThrow(RangeError);
    }
  });

  it('defaults to the current time', () => {
    const before = Date.now();
    const t = Date.parse(isoTimestamp());
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
});
