// What is measured: shield (all default rules) and the two peers with their default options.
import { shield } from './load-shield.mjs';
import { filterXSS } from 'xss';
import sanitizeHtml from 'sanitize-html';

/** Large enough that the probe's 1 MB values are scanned, not reported as oversize. */
export const PROBE_MAX_VALUE_LENGTH = 2_000_000;

/** One string -> result functions, by subject name. `engine` is created once per process. */
const { Engine } = shield;

export function makeSubjects() {
  const engine = new Engine({ maxValueLength: PROBE_MAX_VALUE_LENGTH });
  return {
    engine,
    fns: {
      'shield scan': (s) => engine.scan(s),
      'shield sanitize': (s) => engine.sanitize(s),
      'js-xss': (s) => filterXSS(s),
      'sanitize-html': (s) => sanitizeHtml(s),
      // not benchmarked: a deliberately quadratic function that tests the probe's cap and watchdog
      // (node bench/run.mjs --no-probe is unaffected; see bench/README.md, "Self-test")
      'selftest-quadratic': (s) => {
        let n = 0;
        for (let i = 0; i < s.length; i++) for (let j = 0; j < i; j += 1) n += s.charCodeAt(j) & 1;
        return n;
      },
    },
  };
}

export { Engine, filterXSS, sanitizeHtml };
