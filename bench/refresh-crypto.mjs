#!/usr/bin/env node
// What a refresh's cryptography costs in auth, item by item, warm, in one process (µs a call): the
// access token's ES256 signature through jsonwebtoken, through node:crypto alone and as a whole token
// built by hand, and the sealing of the successor token (HKDF, AES-256-GCM, the random bytes of a
// secret and an IV), as services/auth/src/data-access/redis-sessions.ts does them, and the seal with
// its key as raw bytes, as it did before 2026-11-27 (on Node 24 a Buffer key costs two internal
// throws a call).
// `node bench/refresh-crypto.mjs`
import { createCipheriv, createSecretKey, generateKeyPairSync, hkdfSync, randomBytes, sign } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const jwt = require('jsonwebtoken');
const CALLS = Number(process.env.CALLS ?? 50_000);

function time(name, fn) {
  for (let i = 0; i < CALLS / 10; i++) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) fn();
  process.stdout.write(`${name}: ${(Number(process.hrtime.bigint() - started) / CALLS / 1000).toFixed(2)} µs\n`);
}

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const claims = { kind: 'user', role: 'user', sid: 'abcdefghijklmnopqrstuv' };
const input = Buffer.from('x'.repeat(220));
const secret = 'a'.repeat(43);
const id = 'b'.repeat(22);
const key = Buffer.from(hkdfSync('sha256', secret, id, 'refresh-successor', 32));

time('jwt.sign ES256 (jsonwebtoken)', () => jwt.sign(claims, privateKey, { algorithm: 'ES256', subject: '64b0c0ffee', issuer: 'acct', audience: 'acct-api', expiresIn: 900, keyid: 'kid' }));
// With `{ key, dsaEncoding }`, which on Node 24 costs two internal throws a call (jsonwebtoken hands the key object alone).
time('crypto.sign ES256 alone', () => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }));
// The same token built by hand, as a floor for what jsonwebtoken adds (auth keeps jsonwebtoken, as
// DESIGN.md names it): the header encoded once, the key object alone (a DER signature), DER to JOSE.
const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: 'kid' })).toString('base64url');
const derToJose = (der) => {
  // SEQUENCE { INTEGER r, INTEGER s }: each as 32 bytes, its sign byte dropped or zeros put in front.
  const rAt = der[1] & 0x80 ? 3 + (der[1] & 0x7f) : 2;
  const r = der.subarray(rAt + 2, rAt + 2 + der[rAt + 1]);
  const sAt = rAt + 2 + r.length;
  const s = der.subarray(sAt + 2, sAt + 2 + der[sAt + 1]);
  const out = Buffer.alloc(64);
  r.subarray(Math.max(0, r.length - 32)).copy(out, 32 - Math.min(32, r.length));
  s.subarray(Math.max(0, s.length - 32)).copy(out, 64 - Math.min(32, s.length));
  return out.toString('base64url');
};
time('an ES256 JWT built by hand (crypto.sign with the key object)', () => {
  const now = Math.floor(Date.now() / 1000);
  const payload = Buffer.from(JSON.stringify({ ...claims, iat: now, exp: now + 900, aud: 'acct-api', iss: 'acct', sub: '64b0c0ffee' })).toString('base64url');
  const data = `${header}.${payload}`;
  return `${data}.${derToJose(sign('sha256', Buffer.from(data), privateKey))}`;
});
time('hkdfSync (successor key)', () => Buffer.from(hkdfSync('sha256', secret, id, 'refresh-successor', 32)));
const seal = (keyOf) => () => {
  const cipher = createCipheriv('aes-256-gcm', keyOf(), randomBytes(12));
  return Buffer.concat([cipher.update('c'.repeat(66), 'utf8'), cipher.final(), cipher.getAuthTag()]);
};
time('AES-256-GCM seal of a token, its key a KeyObject (createSecretKey, as auth does)', seal(() => createSecretKey(key)));
time('AES-256-GCM seal of a token, its key a Buffer (before 2026-11-27)', seal(() => key));
time('randomBytes(32) as base64url (a secret)', () => randomBytes(32).toString('base64url'));
time('randomBytes(12) (an IV)', () => randomBytes(12));
