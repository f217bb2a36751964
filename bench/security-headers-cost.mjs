#!/usr/bin/env node
// What the gateway's security headers (helmet's set, services/gateway/src/security-headers.ts) cost
// one answer: a bare node:http server answering the gateway's 404 with and without them, in turns,
// its CPU µs a request read from /proc beside the throughput autocannon reaches (the client parses
// the headers too, on the same cores). Needs `npm run build` first.
//   node bench/security-headers-cost.mjs [rounds=3]
import http from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, spawnLines } from './lib/processes.mjs';

const require = createRequire(import.meta.url);
const ROUNDS = Number(process.argv[2] ?? 3);

if (process.env.SECURITY_HEADERS_SERVER) {
  // The server side: the gateway's 404 envelope, with the gateway's headers or without.
  const { helmetHeaders } = require('../services/gateway/dist/security-headers.js');
  const body = Buffer.from(JSON.stringify(require('../libs/shared/dist/index.js').NOT_FOUND_ENVELOPE));
  const security = process.env.SECURITY_HEADERS_SERVER === 'with' ? helmetHeaders().flat() : [];
  const server = http.createServer((_req, res) => {
    res.writeHead(404, [...security, 'X-Request-Id', 'b3b87eb3-ad6f-4b56-8bb0-e778e602880b', 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length)]);
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
} else {
  const autocannon = require('autocannon');
  const results = { with: [], without: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of ['without', 'with']) {
      const { child, firstLine } = spawnLines(process.execPath, [fileURLToPath(import.meta.url)], { SECURITY_HEADERS_SERVER: side });
      const port = Number(await firstLine);
      const url = `http://127.0.0.1:${port}/no/such/route`;
      await autocannon({ url, connections: 16, duration: 2 });
      const before = cpuSeconds(child.pid);
      const run = await autocannon({ url, connections: 16, duration: 6 });
      const cpuUs = ((cpuSeconds(child.pid) - before) * 1e6) / run.requests.total;
      child.kill();
      results[side].push({ requestsPerSecond: Math.round(run.requests.average), cpuMicrosPerRequest: Math.round(cpuUs * 10) / 10 });
      process.stdout.write(`round ${round + 1}: ${side} the security headers: ${results[side].at(-1).requestsPerSecond}/s, ${results[side].at(-1).cpuMicrosPerRequest} µs a request\n`);
    }
  }
  process.stdout.write(`${JSON.stringify({ command: `node bench/security-headers-cost.mjs ${ROUNDS}`, node: process.version, results })}\n`);
}
