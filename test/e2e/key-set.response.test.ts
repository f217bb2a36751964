// The key set other back ends verify access tokens with: GET /.well-known/jwks.json through the
// gateway, and a token from a login verified with it by `jose`, as another service would.
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { call } from '@acct/test-harness/http-client';
import { registerAndLogin } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('keyset');
});
afterAll(() => stack.stop());

describe('GET /.well-known/jwks.json', () => {
  it('publishes the signing key with its kid, cacheable, and a login’s access token names it and verifies with it', async () => {
    const res = await call(stack.url, 'GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = res.body.keys as Array<Record<string, string>>;
    expect(keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), alg: 'ES256', use: 'sig' }]);

    const { accessToken } = await registerAndLogin(stack);
    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', typ: 'JWT', kid: keys[0].kid });
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(res.body), { issuer: 'account-service', audience: 'account-api', algorithms: ['ES256'] });
    expect(payload).toMatchObject({ kind: 'user', role: 'user', sid: expect.any(String) });
    // A token signed with another key names no key of the set.
    await expect(jwtVerify(accessToken.replace(/\.[^.]+$/, '.AAAA'), createLocalJWKSet(res.body))).rejects.toThrow();
  });

  it('answers HEAD alike, without a body, and no other method', async () => {
    const head = await call(stack.url, 'HEAD', '/.well-known/jwks.json');
    expect([head.status, head.text]).toEqual([200, '']);
    expect((await call(stack.url, 'POST', '/.well-known/jwks.json', { body: {} })).status).toBe(404);
  });
});
