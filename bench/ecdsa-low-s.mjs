#!/usr/bin/env node
// What one text per token costs (libs/shared/src/ecdsa-low-s.ts), warm, in one process: the verifiers'
// check that a signature is in its low-S form, and the signer's turning of a high S into its twin,
// beside the ES256 signature and verification they ride on (µs a call).
// `npm run build && node bench/ecdsa-low-s.mjs`
import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const jwt = require('jsonwebtoken');
const { hasLowS, withLowS } = require('../libs/shared/dist/ecdsa-low-s.js');
const CALLS = Number(process.env.CALLS ?? 20_000);

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const tokens = Array.from({ length: 2_000 }, (_, i) => jwt.sign({ sid: `s${i}` }, privateKey, { algorithm: 'ES256', expiresIn: 600 }));

function time(name, fn) {
  for (let i = 0; i < CALLS / 10; i++) fn(tokens[i % tokens.length]);
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) fn(tokens[i % tokens.length]);
  process.stdout.write(`${name}: ${(Number(process.hrtime.bigint() - started) / CALLS / 1000).toFixed(2)} µs\n`);
}

process.stdout.write(`node ${process.version}, ${CALLS} calls each; high-S share of raw OpenSSL signatures: ${(tokens.filter((t) => !hasLowS(t)).length / tokens.length).toFixed(3)}\n`);
time('hasLowS (the verifiers\' check)', hasLowS);
time('withLowS (the signer\'s normalisation)', withLowS);
time('jwt.sign ES256', (t) => jwt.sign({ sid: t.length }, privateKey, { algorithm: 'ES256', expiresIn: 600 }));
time('jwt.verify ES256', (t) => jwt.verify(withLowS(t), publicKey, { algorithms: ['ES256'] }));
