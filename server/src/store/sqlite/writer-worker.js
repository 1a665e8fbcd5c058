// The writer thread (see writer-thread.js): one connection that only writes event batches.
// Its event loop has nothing else to do, so each statement of a group commit is handed to
// sqlite the moment the previous one finishes.
import { parentPort, workerData } from 'node:worker_threads';
import { Db, connectionPragmas } from './driver.js';
import { GroupCommitter } from './ingest.js';

const db = await Db.open(workerData.file);
await db.exec(connectionPragmas(workerData.synchronous));
const committer = new GroupCommitter(db);

parentPort.on('message', (m) => {
  if (m.type === 'close') {
    committer.close().then(() => db.close()).then(() => parentPort.postMessage({ type: 'closed' }));
    return;
  }
  committer.submit(m.batch).then(
    (result) => parentPort.postMessage({ id: m.id, result }),
    (err) => parentPort.postMessage({ id: m.id, error: String(err?.stack ?? err) }),
  );
});
parentPort.postMessage({ type: 'ready' });
