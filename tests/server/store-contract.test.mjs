// The store contract (store-contract.mjs) against the sqlite store, with its writer in-process and
// on a writer thread; each store gets a fresh data directory, removed at the end.
import { afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@shield/control-plane';
import { storeContract } from './store-contract.mjs';

const dirs = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function sqlite(options) {
  return async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shield-contract-'));
    dirs.push(dataDir);
    return openSqliteStore({ dataDir, ...options });
  };
}

storeContract('sqlite, in-process writer', sqlite({}));
storeContract('sqlite, writer thread', sqlite({ writerThread: true }));
