// The 404 baseline: a bare node:http server answering every request 404 with the gateway's JSON
// envelope and writing the same pino request record. Prints its port on stdout's first line.
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createLogger } = require('../libs/shared/dist/index.js');
// The gateway's request logger is built the same way: no redaction (its fields are fixed), and
// synchronous writes, as the logger factory makes them (to a file here instead of stdout).
const logger = createLogger({ redact: false, destination: require('pino').destination({ dest: process.env.BARE_LOG ?? '/dev/null', sync: true }) });
const body = JSON.stringify({ success: false, message: 'Route not found', code: 'not_found' });

const server = http.createServer((req, res) => {
  const started = process.hrtime.bigint();
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
  logger.warn(
    { method: req.method, path: req.url, status: 404, duration_ms: durationMs, ip: req.socket.remoteAddress, actor_type: 'anonymous', request_id: 'bare' },
    `${req.method} ${req.url} 404 ${durationMs}ms`,
  );
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
