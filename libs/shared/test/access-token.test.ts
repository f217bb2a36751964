// The access-token check the gateway and every service run on each request: what it accepts and
// refuses, and that a token it found valid is not verified again (its ES256 signature is most of a
// check's cost) until it expires, never longer, and with nothing kept of a refusal.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AccessTokenVerifier } from '../src/access-token';
import { withLowS } from '../src/ecdsa-low-s';
import { testKeys } from '@acct/test-harness/keys';

const keys = testKeys();
const other = testKeys();
const verifier = new AccessTokenVerifier(createPublicKey(keys.publicKey), 'account-service', 'account-clients');
// Read once: the bounded-memory test signs 5,000 tokens, and reading the PEM for each was 4.5 s of
// this file's 7.9 s (a profiled run, 2026-11-30).
const signingKey = createPrivateKey(keys.privateKey);
const otherSigningKey = createPrivateKey(other.privateKey);
// Low-S, as auth signs (ecdsa-low-s.ts).
const sign = (claims: Record<string, unknown>, options: jwt.SignOptions = {}, key = signingKey) =>
  withLowS(
  jwt.sign({ kind: 'user', role: 'user', sid: 's1', ...claims }, key, { algorithm: 'ES256', subject: 'u1', issuer: 'account-service', audience: 'account-clients', expiresIn: 60, ...options }),
  );

afterEach(() => jest.restoreAllMocks());

it('accepts a valid token, and refuses a forged, foreign, expired or malformed one', () => {
  expect(verifier.verify(sign({}))).toEqual({ sub: 'u1', kind: 'user', role: 'user', sid: 's1' });
  const token = sign({ sid: 's2' });
  const forged = `${token.slice(0, token.lastIndexOf('.'))}.${sign({ sid: 's3' }).split('.')[2]}`;
  expect(verifier.verify(forged)).toBeUndefined();
  expect(verifier.verify(sign({}, {}, otherSigningKey))).toBeUndefined();
  expect(verifier.verify(sign({}, { expiresIn: -1 }))).toBeUndefined();
  expect(verifier.verify(sign({}, { audience: 'someone-else' }))).toBeUndefined();
  expect(verifier.verify(sign({ kind: 'robot' }))).toBeUndefined();
  expect(verifier.verifyHeader('Basic abc')).toBeUndefined();
});

it('refuses the high-S twin of a valid signature: one token has one text (ecdsa-low-s.ts)', () => {
  const token = sign({ sid: 'twin' });
  const [head, body, signature] = token.split('.');
  const jose = Buffer.from(signature, 'base64url');
  const order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  const highS = Buffer.from((order - BigInt(`0x${jose.subarray(32).toString('hex')}`)).toString(16).padStart(64, '0'), 'hex');
  const twin = `${head}.${body}.${Buffer.concat([jose.subarray(0, 32), highS]).toString('base64url')}`;
  // The twin verifies as a signature (OpenSSL takes either form), and the verifier refuses it all the same.
  expect(jwt.verify(twin, createPublicKey(keys.publicKey), { algorithms: ['ES256'] })).toBeTruthy();
  expect(verifier.verify(twin)).toBeUndefined();
  expect(verifier.verify(token)).toEqual({ sub: 'u1', kind: 'user', role: 'user', sid: 'twin' });
  expect(withLowS(twin)).toBe(token);
});

it('checks a token’s signature once, then answers the same claims (frozen) until the token expires', () => {
  const token = sign({ sid: 'cached' });
  const signatureChecks = jest.spyOn(jwt, 'verify');
  const first = verifier.verifyHeader(`Bearer ${token}`);
  const again = verifier.verifyHeader(`bearer ${token}`);
  expect(signatureChecks).toHaveBeenCalledTimes(1);
  expect(again).toBe(first);
  expect(Object.isFrozen(first)).toBe(true);
  // Past its `exp`: refused, without a second look at the signature, and forgotten.
  const { exp } = jwt.decode(token) as { exp: number };
  expect(verifier.verify(token, exp * 1000 - 1)).toBe(first);
  expect(verifier.verify(token, exp * 1000)).toBeUndefined();
  expect(signatureChecks).toHaveBeenCalledTimes(1);
});

it('keeps nothing of a refusal: a bad token costs a check each time', () => {
  const bad = sign({}, {}, otherSigningKey);
  const signatureChecks = jest.spyOn(jwt, 'verify');
  verifier.verify(bad);
  verifier.verify(bad);
  expect(signatureChecks).toHaveBeenCalledTimes(2);
});

it('remembers a bounded number of tokens, dropping the oldest first', () => {
  const fresh = new AccessTokenVerifier(createPublicKey(keys.publicKey), 'account-service', 'account-clients');
  const first = sign({ sid: 'first' });
  fresh.verify(first);
  for (let i = 0; i < 5_000; i++) fresh.verify(sign({ sid: `s${i}` }));
  const signatureChecks = jest.spyOn(jwt, 'verify');
  expect(fresh.verify(first)).toMatchObject({ sid: 'first' });
  expect(signatureChecks).toHaveBeenCalledTimes(1);
});
