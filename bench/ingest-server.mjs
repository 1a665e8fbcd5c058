// The control plane under test, in its own process: `node bench/ingest-server.mjs <dataDir>`.
// Prints one JSON line { url, bootstrap } once it listens; stops on SIGTERM. The per-key and
// per-address limiters are raised so they do not cap the measurement.
import { startServer } from '@shield/control-plane';

const dataDir = process.argv[2];
const cp = await startServer({
  port: 0, dataDir,
  keyRate: { rate: 1e6, burst: 1e6 }, ipRate: { rate: 1e6, burst: 1e6 },
  ...(process.env.SHIELD_BENCH_SYNCHRONOUS ? { synchronous: process.env.SHIELD_BENCH_SYNCHRONOUS } : {}),
});
const usage0 = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ url: cp.url, bootstrap: cp.bootstrap })}\n`);
process.on('message', (m) => {
  if (m === 'cpu') process.send({ cpu: process.cpuUsage(usage0) });
});
process.on('SIGTERM', async () => {
  await cp.close();
  process.exit(0);
});
