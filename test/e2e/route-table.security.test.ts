// Every row of the route table, through the gateway: who may call it, and no 5xx for any body.

import fc from 'fast-check';
import { ROUTES } from '@acct/shared/routes';
import { registerAndLogin } from '@acct/test-harness/factories';
import { call } from '@acct/test-harness/http-client';
import { sharedStack, type SharedStack } from '@acct/test-stack/shared';

// One handle on the run's shared stack for every block below.
let stack: SharedStack;
beforeAll(async () => {
  stack = await sharedStack();
});
afterAll(() => stack.stop());

// Who may call each route, as the route table says (libs/shared/src/routes): every route for a
// session's access token refuses a request without one (401) and one of the other kind of session
// (403), with nothing kept by a cache unless the row says so, and the revocation feed a request
// without its token. Sent through the gateway for every
// row, so a new route is checked the moment its row exists.
describe('route-callers.security', () => {
  const tokens: Record<'user' | 'admin', string> = { user: '', admin: '' };

  beforeAll(async () => {
    // A feed token set: without one the feed is off (404) for everyone.
    tokens.user = (await registerAndLogin(stack, 'user')).accessToken;
    tokens.admin = (await registerAndLogin(stack, 'admin')).accessToken;
  });

  /** A path of the route with a well-formed value for each parameter. */
  const concrete = (path: string) =>
    path.replace(/:([A-Za-z]+)/g, (_m, name: string) => ({ userId: '6740c0ffee0000000000ffff', platform: 'linux', version: '1.0.0', provider: 'corp' })[name] ?? 'x1');

  const guarded = ROUTES.filter((r) => r.caller === 'user' || r.caller === 'admin');

  it('has routes of each kind to check (the table is read)', () => {
    expect([guarded.some((r) => r.caller === 'user'), guarded.some((r) => r.caller === 'admin')]).toEqual([true, true]);
  });

  it.each(guarded.map((r) => [r.operationId, r] as const))('%s: 401 without a token, 403 with the other kind’s', async (_id, route) => {
    const path = concrete(route.path);
    const body = route.body === 'none' ? undefined : {};
    const other = route.caller === 'user' ? 'admin' : 'user';
    const anonymous = await call(stack.url, route.method.toUpperCase(), path, { body });
    const wrongKind = await call(stack.url, route.method.toUpperCase(), path, { body, headers: { authorization: `Bearer ${tokens[other]}` } });
    expect([anonymous.status, wrongKind.status]).toEqual([401, 403]);
    // Nothing keeps an answer unless the row says who may: errors included.
    if (!route.caching) expect([anonymous.headers.get('cache-control'), wrongKind.headers.get('cache-control')]).toEqual(['no-store', 'no-store']);
  });

  it('keeps the revocation feed to back ends with its token', async () => {
    const feed = ROUTES.filter((r) => r.caller === 'feed');
    expect(feed.map((r) => r.path)).toEqual(['/api/revocations']);
    for (const route of feed) {
      expect((await call(stack.url, 'GET', route.path)).status).toBe(401);
      // A session's token is not a feed token.
      expect((await call(stack.url, 'GET', route.path, { headers: { authorization: `Bearer ${tokens.admin}` } })).status).toBe(401);
    }
  });
});

// Property: whatever JSON reaches any account route, the answer is a 4xx (or 2xx) envelope, never a 5xx.
describe('fuzz.property', () => {

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
          // One expectation a run: jest builds every matcher for each expect() (4,000 runs a file).
          expect({ status: res.status < 500 ? 'under 500' : res.status, success: typeof res.body?.success, message: typeof res.body?.message }).toEqual({ status: 'under 500', success: 'boolean', message: 'string' });
        }),
        { numRuns: 40 },
      );
    });
  });
});
