// The 404 baseline: a bare node:http server answering every request 404 with the gateway's JSON
// envelope and writing the same pino request record. Given BARE_VERSION_FROM (a version check's URL,
// read once at start), it answers that path's GET with the same 200 (body, Cache-Control, ETag) and
// the same record too: the version check's baseline with the request log every gateway answer
// writes. Prints its port on stdout's first line.
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { createLogger, NOT_FOUND_ENVELOPE } = require('../libs/shared/dist/index.js');
// The gateway's request logger is built the same way: no redaction (its fields are fixed), and
// synchronous writes, as the logger factory makes them (to a file here instead of stdout).
const logger = createLogger({ redact: false, destination: require('pino').destination({ dest: process.env.BARE_LOG ?? '/dev/null', sync: true }) });
const body = JSON.stringify(NOT_FOUND_ENVELOPE);
const version = process.env.BARE_VERSION_FROM ? new URL(process.env.BARE_VERSION_FROM) : undefined;
let versionAnswer;
if (version) {
  const res = await fetch(version);
  if (res.status !== 200) throw new Error(`the version check answered ${res.status}`);
  const answer = Buffer.from(await res.arrayBuffer());
  // As a latin1 string, as the gateway holds it: written with the head in one write.
  versionAnswer = { body: answer.toString('latin1'), headers: { 'content-type': res.headers.get('content-type'), 'cache-control': res.headers.get('cache-control'), etag: res.headers.get('etag'), 'content-length': answer.length } };
}

const server = http.createServer((req, res) => {
  const started = process.hrtime.bigint();
  const answer = versionAnswer && req.method === 'GET' && req.url?.startsWith(version.pathname) ? versionAnswer : undefined;
  const status = answer ? 200 : 404;
  if (answer) {
    res.writeHead(200, answer.headers);
    res.end(answer.body, 'latin1');
  } else {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
  const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
  logger[answer ? 'info' : 'warn'](
    { method: req.method, path: req.url, status, duration_ms: durationMs, ip: req.socket.remoteAddress, actor_type: 'anonymous', request_id: 'bare' },
    `${req.method} ${req.url} ${status} ${durationMs}ms`,
  );
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
