// How the tests' HTTP client (http-client.ts) sends a request: undici's `request` on one keep-alive
// pool. JavaScript, loaded by the jest worker's own require (http-client.ts says how), so that a
// worker has one pool and one copy of undici for all its files, as it has one global `fetch`.
//
// Node's `fetch` is undici too, under the WHATWG Request, Response and streams: on this VM
// (2026-11-30, `node bench/http-client-cost.mjs`: 3,000 POSTs answered 400 by a local server,
// client and server in one process) 0.57 and 0.80 ms of CPU a request with `fetch` in two runs,
// 0.09 and 0.10 ms with `request`. The end-to-end suite sends some tens of thousands of requests
// (route-table.security alone 3,700: 20.5 s of CPU with fetch, 13.7 s with request).
'use strict';
const { Agent, request } = require('undici');

// fetch's own pool: keep-alive, idle sockets closed after 4 s (undici's default).
const agent = new Agent();

/** undici's request on this worker's pool. */
function send(url, options) {
  return request(url, { ...options, dispatcher: agent });
}

module.exports = { send };
