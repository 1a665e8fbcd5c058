// The local ingest sink of `npm run bench:http`: accepts POST /v1/events, counts envelopes and
// events (inflating each brotli or gzip body), answers 202. Its own process, so its work is not counted
// against the server under test.

import { createServer } from 'node:http';
import { brotliDecompress, gunzip } from 'node:zlib';

let events = 0;
let batches = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const done = (body) => {
      try {
        const env = JSON.parse(body.toString('utf8'));
        batches++;
        events += env.events?.length ?? 0;
      } catch { /* counted as nothing */ }
      res.statusCode = 202;
      res.end('{}');
    };
    const encoding = req.headers['content-encoding'];
    if (encoding === 'br') brotliDecompress(raw, (err, b) => done(err ? Buffer.alloc(0) : b));
    else if (encoding === 'gzip') gunzip(raw, (err, b) => done(err ? Buffer.alloc(0) : b));
    else done(raw);
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.count) process.send({ events, batches });
  if (m.exit) process.exit(0);
});
