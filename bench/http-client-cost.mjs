#!/usr/bin/env node
// What the tests' HTTP client costs a request: Node's fetch against undici's request (the
// transport of libs/test-harness/src/http-client.ts), each POSTing a small JSON body to a local
// node:http server that answers 400 with a small JSON body and a cookie, as the API's refusals do.
// Client and server run in this one process; the CPU is the process's, per request, after a warm-up.
// Two passes of each, alternated. Usage: node bench/http-client-cost.mjs [requests]
import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Agent, request } = require('undici');
const requests = Number(process.argv[2] ?? 3000);

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(400, { 'content-type': 'application/json', 'set-cookie': ['a=b; HttpOnly'] }).end('{"success":false,"message":"x"}'));
});
server.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${server.address().port}/api/x`;
const agent = new Agent();
const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };

const clients = {
  fetch: async () => {
    const res = await fetch(url, { ...init, redirect: 'manual' });
    return [res.status, await res.text(), res.headers.getSetCookie()];
  },
  request: async () => {
    const res = await request(url, { ...init, dispatcher: agent });
    const text = await res.body.text();
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) for (const one of [].concat(value)) headers.append(name, one);
    return [res.statusCode, text, headers.getSetCookie()];
  },
};

const msPerRequest = { fetch: [], request: [] };
try {
  for (let pass = 0; pass < 2; pass++) {
    for (const [name, send] of Object.entries(clients)) {
      for (let i = 0; i < 300; i++) await send();
      const before = process.cpuUsage();
      for (let i = 0; i < requests; i++) await send();
      const used = process.cpuUsage(before);
      msPerRequest[name].push(Math.round(((used.user + used.system) / 1000 / requests) * 1000) / 1000);
    }
  }
} finally {
  server.close();
  await agent.close();
}
console.log(JSON.stringify({ requests, node: process.version, msPerRequest }));
