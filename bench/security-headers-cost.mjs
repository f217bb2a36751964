#!/usr/bin/env node
// What one answer of the gateway's 404 costs a bare node:http server two ways, in turns, its CPU µs a
// request read from /proc beside the throughput autocannon reaches (the client parses the answer too,
// on the same cores). Needs `npm run build` first.
//   node bench/security-headers-cost.mjs [rounds=3] [headers|body]
// headers (the default): without and with the gateway's security headers (helmet's set,
//   services/gateway/src/security-headers.ts).
// body: with the headers, the body as a Buffer (Node writes it as a second chunk of a writev) and as
//   a string (written with the head in one write), as the gateway now sends its own answers.
import http from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, spawnLines } from './lib/processes.mjs';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.argv[2] ?? 3);
const COMPARE = process.argv[3] ?? 'headers';
const SIDES = { headers: ['without', 'with'], body: ['buffer', 'string'] }[COMPARE];
if (!SIDES) {
  process.stderr.write('usage: node bench/security-headers-cost.mjs [rounds=3] [headers|body]\n');
  process.exit(2);
}

if (process.env.SECURITY_HEADERS_SERVER) {
  // The server side: the gateway's 404 envelope, written as this side says.
  const { helmetHeaders } = require('../services/gateway/dist/security-headers.js');
  const text = JSON.stringify(require('../libs/shared/dist/index.js').NOT_FOUND_ENVELOPE);
  const side = process.env.SECURITY_HEADERS_SERVER;
  const body = side === 'string' ? text : Buffer.from(text);
  const security = side === 'without' ? [] : helmetHeaders().flat();
  const server = http.createServer((_req, res) => {
    res.writeHead(404, [...security, 'X-Request-Id', 'b3b87eb3-ad6f-4b56-8bb0-e778e602880b', 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text))]);
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
} else {
  const autocannon = require('autocannon');
  const results = Object.fromEntries(SIDES.map((side) => [side, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of SIDES) {
      const { child, firstLine } = spawnLines(process.execPath, [fileURLToPath(import.meta.url)], { SECURITY_HEADERS_SERVER: side });
      const port = Number(await firstLine);
      const url = `http://127.0.0.1:${port}/no/such/route`;
      await autocannon({ url, connections: 16, duration: 2 });
      const before = cpuSeconds(child.pid);
      const run = await autocannon({ url, connections: 16, duration: 6 });
      const cpuUs = ((cpuSeconds(child.pid) - before) * 1e6) / run.requests.total;
      child.kill();
      results[side].push({ requestsPerSecond: Math.round(run.requests.average), cpuMicrosPerRequest: Math.round(cpuUs * 10) / 10 });
      const label = COMPARE === 'headers' ? `${side} the security headers` : `the body as a ${side}`;
      process.stdout.write(`round ${round + 1}: ${label}: ${results[side].at(-1).requestsPerSecond}/s, ${results[side].at(-1).cpuMicrosPerRequest} µs a request\n`);
    }
  }
  process.stdout.write(`${JSON.stringify({ command: `node bench/security-headers-cost.mjs ${ROUNDS} ${COMPARE}`, node: process.version, results })}\n`);
}
