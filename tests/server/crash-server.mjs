// The control plane in its own process, for crash.test.mjs to kill:
// `node tests/server/crash-server.mjs <dataDir>`. Prints one JSON line { url, bootstrap } once it
// listens (bootstrap is null when the data directory was set up before); stops on SIGTERM. The
// per-key and per-address limiters are raised so that the test's stream is never answered 429.
import { startServer } from '@shield/control-plane';

const dataDir = process.argv[2];
if (dataDir === undefined) {
  process.stderr.write('usage: node tests/server/crash-server.mjs <dataDir>\n');
  process.exit(2);
}
const cp = await startServer({
  port: 0, host: '127.0.0.1', dataDir,
  keyRate: { rate: 1e6, burst: 1e6 }, ipRate: { rate: 1e6, burst: 1e6 },
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${JSON.stringify({ url: cp.url, bootstrap: cp.bootstrap })}\n`);
process.on('SIGTERM', async () => {
  await cp.close();
  process.exit(0);
});
