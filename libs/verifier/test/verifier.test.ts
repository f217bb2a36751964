// The verifier alone, against a key set and a feed served from a local HTTP server: what it accepts
// and refuses, a key added later, the feed's replay and resume, and staleness when heartbeats stop.
import { generateKeyPairSync, createHash, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { withLowS } from '@acct/shared';
import { AccessTokenVerifier } from '../src';

interface Key {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, string>;
}

function newKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const kid = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
  return { kid, privateKey, jwk: { kty, crv, x, y, kid, alg: 'ES256', use: 'sig' } };
}

/** A token as the stack signs it: ES256, its signature in the low-S form. */
const token = (key: Key, claims: Record<string, unknown> = {}, options: jwt.SignOptions = {}) =>
  withLowS(jwt.sign({ sub: 'u1', kind: 'user', role: 'user', sid: 's1', ...claims }, key.privateKey, { algorithm: 'ES256', keyid: key.kid, issuer: 'account-service', audience: 'account-api', expiresIn: 900, ...options }));

/** A gateway stand-in: the key set, and a feed whose events a test writes. */
async function gateway(keys: Key[]) {
  const streams = new Set<http.ServerResponse>();
  let keySetFetches = 0;
  const lastEventIds: string[] = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      keySetFetches++;
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
      return;
    }
    if (req.url === '/api/revocations' && req.headers.authorization === 'Bearer feed-token') {
      lastEventIds.push(String(req.headers['last-event-id'] ?? ''));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      streams.add(res);
      res.write(`event: heartbeat\ndata: {"freshAsOf":${Date.now()}}\n\n`);
      res.once('close', () => streams.delete(res));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keySetFetches: () => keySetFetches,
    lastEventIds,
    send: (text: string) => streams.forEach((s) => s.write(text)),
    dropStreams: () => streams.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('AccessTokenVerifier', () => {
  it('accepts a valid token, and refuses one of another issuer, audience or algorithm, an expired one, a forged one', async () => {
    const key = newKey();
    const server = await gateway([key]);
    const verifier = await new AccessTokenVerifier({ url: server.url }).start();
    try {
      expect(await verifier.verify(`Bearer ${token(key)}`)).toEqual({ ok: true, claims: { sub: 'u1', kind: 'user', role: 'user', sid: 's1', exp: expect.any(Number) } });
      expect(await verifier.verify(token(key, {}, { issuer: 'someone-else' }))).toEqual({ ok: false, reason: 'invalid' });
      expect(await verifier.verify(token(key, {}, { audience: 'another-api' }))).toEqual({ ok: false, reason: 'invalid' });
      expect(await verifier.verify(token(key, {}, { expiresIn: -60 }))).toEqual({ ok: false, reason: 'expired' });
      expect(await verifier.verify(token(newKey()).replace(/^[^.]+/, token(key).split('.')[0]))).toEqual({ ok: false, reason: 'invalid' });
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', kid: key.kid })).toString('base64url')}.${token(key).split('.')[1]}.`;
      expect(await verifier.verify(unsigned)).toMatchObject({ ok: false });
      expect(await verifier.verify(undefined)).toEqual({ ok: false, reason: 'missing' });
      expect(await verifier.verify('not a token')).toEqual({ ok: false, reason: 'malformed' });
    } finally {
      await verifier.stop();
      await server.close();
    }
  });

  it('reads every shape of a low-S signature: r or s with leading zero bytes, r with its high bit set; one bit changed refuses', async () => {
    const key = newKey();
    const server = await gateway([key]);
    const verifier = await new AccessTokenVerifier({ url: server.url }).start();
    // Signed until each shape has turned up (a leading zero byte turns up once in 256 halves).
    const shapes = new Map<string, string>();
    try {
      for (let i = 0; i < 20_000 && shapes.size < 3; i++) {
        const signed = token(key, { sid: `s${i}` });
        const signature = Buffer.from(signed.split('.')[2], 'base64url');
        for (const [half, at] of [['r', 0], ['s', 32]] as const) {
          if (signature[at] === 0) shapes.set(`${half} with a leading zero`, signed);
          if (signature[at] & 0x80) shapes.set(`${half} with its high bit set`, signed);
        }
      }
      // A low-S signature's s is below half the order, so its high bit is never set.
      expect([...shapes.keys()].sort()).toEqual(['r with a leading zero', 'r with its high bit set', 's with a leading zero']);
      for (const signed of shapes.values()) {
        expect((await verifier.verify(signed)).ok).toBe(true);
        const [head, body, signature] = signed.split('.');
        const flipped = Buffer.from(signature, 'base64url');
        flipped[40] ^= 1;
        expect(await verifier.verify(`${head}.${body}.${flipped.toString('base64url')}`)).toEqual({ ok: false, reason: 'invalid' });
        expect(await verifier.verify(`${head}.${body}.${signature.slice(0, -4)}`)).toEqual({ ok: false, reason: 'invalid' });
      }
    } finally {
      await verifier.stop();
      await server.close();
    }
  });

  it('refuses the high-S twin of a valid signature (a second text for one token) and a token not valid yet (nbf)', async () => {
    const key = newKey();
    const server = await gateway([key]);
    const verifier = await new AccessTokenVerifier({ url: server.url }).start();
    try {
      const signed = token(key);
      expect((await verifier.verify(signed)).ok).toBe(true);
      const [head, body, signature] = signed.split('.');
      const jose = Buffer.from(signature, 'base64url');
      const order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
      const highS = Buffer.from((order - BigInt(`0x${jose.subarray(32).toString('hex')}`)).toString(16).padStart(64, '0'), 'hex');
      const twin = `${head}.${body}.${Buffer.concat([jose.subarray(0, 32), highS]).toString('base64url')}`;
      expect(await verifier.verify(twin)).toEqual({ ok: false, reason: 'invalid' });
      expect(await verifier.verify(token(key, {}, { notBefore: 120 }))).toEqual({ ok: false, reason: 'invalid' });
      expect((await verifier.verify(token(key, {}, { notBefore: 2 }))).ok).toBe(true);
    } finally {
      await verifier.stop();
      await server.close();
    }
  });

  it('with a revocation check of its own (a shared Redis), refuses when the check throws and when it says revoked', async () => {
    const key = newKey();
    const server = await gateway([key]);
    let answer: () => boolean = () => false;
    const verifier = await new AccessTokenVerifier({ url: server.url, revocations: { isRevoked: () => answer() } }).start();
    try {
      expect((await verifier.verify(token(key))).ok).toBe(true);
      answer = () => true;
      expect(await verifier.verify(token(key))).toEqual({ ok: false, reason: 'revoked' });
      answer = () => {
        throw new Error('Redis is away');
      };
      expect(await verifier.verify(token(key))).toEqual({ ok: false, reason: 'stale' });
    } finally {
      await verifier.stop();
      await server.close();
    }
  });

  it('fetches the key set again for a key it does not know, at most every keyRefetchMs', async () => {
    const first = newKey();
    const keys = [first];
    const server = await gateway(keys);
    const verifier = await new AccessTokenVerifier({ url: server.url, keyRefetchMs: 0 }).start();
    try {
      const added = newKey();
      keys.push(added);
      expect((await verifier.verify(token(added))).ok).toBe(true);
      expect(server.keySetFetches()).toBe(2);
      const limited = await new AccessTokenVerifier({ url: server.url, keyRefetchMs: 60_000 }).start();
      await limited.verify(token(newKey()));
      await limited.verify(token(newKey()));
      expect(server.keySetFetches()).toBe(3);
    } finally {
      await verifier.stop();
      await server.close();
    }
  });

  it('stops trusting a key the stack retired: at the fetch a new key causes, and at the background fetch of an old set', async () => {
    const first = newKey();
    const keys = [first];
    const server = await gateway(keys);
    const onUnknown = await new AccessTokenVerifier({ url: server.url, keyRefetchMs: 0 }).start();
    const byAge = await new AccessTokenVerifier({ url: server.url, keyRefetchMs: 60_000, keyMaxAgeMs: 0 }).start();
    try {
      expect((await onUnknown.verify(token(first))).ok).toBe(true);
      expect((await byAge.verify(token(first))).ok).toBe(true);
      // The rotation's last step: the old key leaves the published set.
      const second = newKey();
      keys.splice(0, 1, second);
      expect((await onUnknown.verify(token(second))).ok).toBe(true);
      expect(await onUnknown.verify(token(first))).toEqual({ ok: false, reason: 'invalid' });
      // No unknown key here: the set, older than keyMaxAgeMs, is fetched again behind a check.
      // (It learns of the rotation only by fetching the set again: no token here names a key it lacks.)
      let verdict = await byAge.verify(token(first));
      for (let i = 0; i < 300 && verdict.ok; i++) {
        await new Promise((r) => setTimeout(r, 10));
        verdict = await byAge.verify(token(first));
      }
      expect(verdict).toEqual({ ok: false, reason: 'invalid' });
      // A set with no usable key is a failed fetch: the keys stay.
      keys.splice(0, keys.length);
      await onUnknown.verify(token(newKey()));
      expect((await onUnknown.verify(token(second))).ok).toBe(true);
    } finally {
      await onUnknown.stop();
      await byAge.stop();
      await server.close();
    }
  });

  it('refuses an ended session from the feed, resumes after a drop from the last event, and says stale when heartbeats stop', async () => {
    const key = newKey();
    const server = await gateway([key]);
    const verifier = await new AccessTokenVerifier({ url: server.url, feedToken: 'feed-token', maxStalenessMs: 300 }).start();
    try {
      expect((await verifier.verify(token(key, { sid: 's1' }))).ok).toBe(true);
      server.send(`id: 100-0\nevent: revoked\ndata: ${JSON.stringify({ sids: ['s1'], until: Date.now() + 60_000 })}\n\n`);
      await waitFor(async () => (await verifier.verify(token(key, { sid: 's1' }))).ok === false);
      expect(await verifier.verify(token(key, { sid: 's1' }))).toEqual({ ok: false, reason: 'revoked' });
      // A drop: it connects again, asking for what came after the last event it applied.
      server.dropStreams();
      await waitFor(() => server.lastEventIds.length === 2);
      expect(server.lastEventIds).toEqual(['', '100-0']);
      // No heartbeat for longer than the bound: a live session's token cannot be vouched for.
      await new Promise((r) => setTimeout(r, 400));
      expect(await verifier.verify(token(key, { sid: 's2' }))).toEqual({ ok: false, reason: 'stale' });
      server.send(`event: heartbeat\ndata: {"freshAsOf":${Date.now()}}\n\n`);
      await waitFor(async () => (await verifier.verify(token(key, { sid: 's2' }))).ok);
    } finally {
      await verifier.stop();
      await server.close();
    }
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
