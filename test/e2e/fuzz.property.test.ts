// Property: whatever JSON reaches any account route, the answer is a 4xx (or 2xx) envelope, never a 5xx.
import fc from 'fast-check';
import { ROUTES } from '@acct/gateway';
import { call } from '@acct/test-harness/http-client';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('fuzz', { auth: { ADMIN_REGISTRATION_OPEN: 'true' } });
});
afterAll(() => stack.stop());

const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.emailAddress(),
  fc.stringMatching(/^\d{6}$/),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('$ne', '$gt', '$regex', 'a'), fc.oneof(fc.string(), fc.constant(null)), { maxKeys: 2 }),
);
const field = fc.constantFrom('name', 'email', 'password', 'challenge_token', 'code', 'token', 'newPassword', '__proto__', 'constructor');
const body = fc.oneof(fc.dictionary(field, value, { maxKeys: 5 }), fc.jsonValue({ maxDepth: 3 }));
const accountRoutes = ROUTES.filter((r) => r.path.startsWith('/api/auth/'));

describe('every account route under random JSON', () => {
  it.each(accountRoutes.map((r) => [r.path]))('%s never answers 5xx', async (path) => {
    await fc.assert(
      fc.asyncProperty(body, fc.option(fc.string({ maxLength: 80 }), { nil: undefined }), async (payload, cookie) => {
        const res = await call(stack.url, 'POST', path, {
          body: payload,
          cookie: cookie === undefined ? undefined : `userRefreshToken=${encodeURIComponent(cookie)}; adminRefreshToken=${encodeURIComponent(cookie)}`,
        });
        expect(res.status).toBeLessThan(500);
        expect(typeof res.body?.success).toBe('boolean');
        expect(typeof res.body?.message).toBe('string');
      }),
      { numRuns: 40 },
    );
  });
});
