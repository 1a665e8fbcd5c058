// The store's handle on its writer thread (writer-worker.js). If the thread dies, batches in
// flight are refused (the ingest route answers 503, the SDK retries with the same
// Idempotency-Key) and the next batch starts a new thread; what was committed stays.
import { Worker } from 'node:worker_threads';

export class WriterThread {
  /** @param {{ file: string, synchronous: string }} options */
  static async start(options) {
    const w = new WriterThread(options);
    await w.spawn();
    return w;
  }

  /** @param {{ file: string, synchronous: string }} options */
  constructor(options) {
    this.options = options;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Promise<void> | null} */
    this.ready = null;
    /** @type {Map<number, { resolve: (v: any) => void, reject: (e: unknown) => void }>} */
    this.calls = new Map();
    this.next = 1;
    this.closing = false;
  }

  spawn() {
    const worker = new Worker(new URL('./writer-worker.js', import.meta.url), { workerData: this.options });
    this.worker = worker;
    this.ready = new Promise((resolve, reject) => {
      worker.on('message', (m) => {
        if (m.type === 'ready') return void resolve();
        const call = this.calls.get(m.id);
        if (call === undefined) return;
        this.calls.delete(m.id);
        if (m.error === undefined) call.resolve(m.result);
        else call.reject(new Error(`writer thread: ${m.error}`));
      });
      worker.once('error', reject);
    });
    const lost = (why) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.ready = null;
      const err = Object.assign(new Error(`the writer thread stopped (${why})`), { code: 'WRITER_LOST' });
      for (const call of this.calls.values()) call.reject(err);
      this.calls.clear();
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit ${code}`));
    return this.ready;
  }

  /** @param {import('./ingest.js').PreparedBatch} batch */
  async submit(batch) {
    if (this.closing) throw new Error('the store is closed');
    if (this.worker === null) await this.spawn();
    await this.ready;
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ id, batch });
    });
  }

  async close() {
    this.closing = true;
    const worker = this.worker;
    if (worker === null) return;
    await this.ready?.catch(() => {});
    await new Promise((resolve) => {
      worker.once('exit', resolve);
      worker.on('message', (m) => { if (m?.type === 'closed') worker.terminate(); });
      worker.postMessage({ type: 'close' });
    });
  }
}
