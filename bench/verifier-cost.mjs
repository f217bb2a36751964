#!/usr/bin/env node
// What one access-token check costs: libs/verifier's verify (the check other back ends run) against
// the gateway's own (AccessTokenVerifier.verifyHeader in @acct/shared), on the same key, each check
// a token neither has seen (the gateway's verifier keeps tokens it accepted: the same token again is
// a lookup, measured apart as `gatewaySeenUs`), in one process, three alternating warmed rounds, the
// median of each. Needs `npm run build` first.
//   node bench/verifier-cost.mjs [checks per round=20000]
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const jwt = require('jsonwebtoken');
const shared = require('../libs/shared/dist/index.js');
const { AccessTokenVerifier: Verifier } = require('../libs/verifier/dist/index.js');

const n = Number(process.argv[2] ?? 20_000);
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = publicKey.export({ format: 'pem', type: 'spki' });
const jwk = shared.publicJwk(publicKey);
const tokenOf = (i) => jwt.sign({ sub: '6740c0ffee0000000000a001', kind: 'user', role: 'user', sid: `nyPy_hgQUYHJ5K25tG${String(i).padStart(6, '0')}` }, privateKey, { algorithm: 'ES256', keyid: jwk.kid, issuer: 'account-service', audience: 'account-api', expiresIn: 900 });
// A token per check of every round: 4 rounds of each kind.
const headers = Array.from({ length: 8 * n }, (_, i) => `Bearer ${tokenOf(i)}`);
let next = 0;

// The key set from a local server, as the verifier fetches it.
const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: [jwk] })));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const verifier = await new Verifier({ url: `http://127.0.0.1:${server.address().port}` }).start();
const gateway = new shared.AccessTokenVerifier(shared.publicKeysFrom(pem), 'account-service', 'account-api');
const header = `Bearer ${tokenOf(-1)}`;
if (!(await verifier.verify(header)).ok || !gateway.verifyHeader(header)) throw new Error('the token does not verify');

async function round(label, check) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await check();
  const ns = Number(process.hrtime.bigint() - started) / n;
  return { label, usPerCheck: +(ns / 1000).toFixed(2) };
}
const runs = { verifier: [], gateway: [], gatewaySeen: [] };
for (let r = 0; r < 4; r++) {
  // Round 0 warms both; the next three alternate which goes first.
  const order = r % 2 ? ['gateway', 'verifier'] : ['verifier', 'gateway'];
  for (const which of order) {
    const result = which === 'verifier' ? await round(which, () => verifier.verify(headers[next++])) : await round(which, async () => gateway.verifyHeader(headers[next++]));
    if (r > 0) runs[which].push(result.usPerCheck);
  }
  if (r > 0) runs.gatewaySeen.push((await round('gatewaySeen', async () => gateway.verifyHeader(header))).usPerCheck);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[1];
const result = {
  measuredAt: new Date().toISOString(),
  command: `node bench/verifier-cost.mjs ${n}`,
  machine: `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, node ${process.version}`,
  checksPerRound: n,
  verifierUs: { rounds: runs.verifier, median: median(runs.verifier) },
  gatewayUs: { rounds: runs.gateway, median: median(runs.gateway) },
  gatewaySeenUs: { rounds: runs.gatewaySeen, median: median(runs.gatewaySeen) },
  ratio: +(median(runs.verifier) / median(runs.gateway)).toFixed(2),
};
console.log(JSON.stringify(result, null, 2));
await verifier.stop();
server.close();
