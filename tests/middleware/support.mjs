// Helpers for the middleware suites: real HTTP servers on 127.0.0.1 and the Express versions.

import { once } from 'node:events';
import express5 from 'express';
import express4 from 'express4';

/** Both supported Express majors, for describe.each. */
export const EXPRESSES = [
  ['express 5', express5],
  ['express 4', express4],
];

/** Starts `app` on a free port of 127.0.0.1; returns its base URL and a close function. */
export async function listen(app) {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

/** Waits (without timers of fixed length) until `test()` holds, or fails after `ms`. */
export async function waitFor(test, ms = 2000) {
  const until = Date.now() + ms;
  while (!test()) {
    if (Date.now() > until) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}
