// The contract's second step through the whole stack: its answers, words, cookie and caching, and a
// lifetime set by OTP_TTL_SECONDS. The flow's rules (one per account, attempts counted before the
// proof, a credential change or a disable ending it) are test/domain/sign-in.test.ts's, and the
// store's under parallel use services/auth/test/redis-sign-in-flows.state.test.ts's.
import { call, cookieValue } from '@acct/test-harness/http-client';
import { buildAccount, startStack, type TestStack } from '@acct/test-stack/stack';

// The default challenge lifetime (5 minutes): a loaded machine never outlasts it between a login and
// its verify. The expiry test has a stack of its own with a 2 s lifetime.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('otp', { auth: { ADMIN_2FA_DEFAULT: 'true', ADMIN_REGISTRATION_OPEN: 'true' } });
});
afterAll(() => stack.stop());

/** Registers a 2FA admin and logs in: answers the challenge token and the code mailed through the bus. */
async function challenge(on: TestStack = stack) {
  const admin = buildAccount();
  const registered = await call(on.url, 'POST', '/api/auth/admin/register', { body: admin });
  const adminId = registered.body.data.admin.id as string;
  const login = await call(on.url, 'POST', '/api/auth/admin/login', { body: { email: admin.email, password: admin.password } });
  const event = await on.events.waitFor('admin.otp.requested', (p) => p.adminId === adminId);
  return { admin, adminId, login, token: login.body.data.challenge_token as string, code: event.payload.code as string, event };
}

const verify = (body: unknown) => call(stack.url, 'POST', '/api/auth/verify-otp', { body });
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('admin login with a second factor', () => {
  it('answers OTP verification required with requires_2fa and a challenge token, and no cookie', async () => {
    const { login, event, admin } = await challenge();
    expect(login.status).toBe(200);
    expect(login.body.message).toBe('OTP verification required');
    expect(login.body.data.requires_2fa).toBe(true);
    expect(typeof login.body.data.challenge_token).toBe('string');
    expect(login.body.data).not.toHaveProperty('accessToken');
    expect(login.setCookies).toEqual([]);
    expect(event.payload).toMatchObject({ email: admin.email, code: expect.stringMatching(/^\d{6}$/) });
  });

  it('verify-otp with the right code answers Login successful with token, user and the admin cookie', async () => {
    const { token, code, adminId } = await challenge();
    const res = await verify({ challenge_token: token, code });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Login successful');
    expect(res.body.data.user).toMatchObject({ id: adminId, role: 'admin' });
    expect(res.body.data.token.split('.')).toHaveLength(3);
    // The same token under the name every other answer uses.
    expect(res.body.data.accessToken).toBe(res.body.data.token);
    expect(res.body.data.expiresIn).toBe(900);
    expect(cookieValue(res.setCookies, 'adminRefreshToken')).toBeDefined();
  });

  it('a code works once only', async () => {
    const { token, code } = await challenge();
    expect((await verify({ challenge_token: token, code })).status).toBe(200);
    expect((await verify({ challenge_token: token, code })).status).toBe(401);
  });

  it('a wrong code answers 401, and after five wrong codes even the right one is refused', async () => {
    const { token, code } = await challenge();
    for (let i = 0; i < 5; i++) {
      const res = await verify({ challenge_token: token, code: wrong(code) });
      expect(res.status).toBe(401);
    }
    const res = await verify({ challenge_token: token, code });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Invalid or expired challenge token');
  });

  it.each([
    [{}, 'Please provide challenge_token and code'],
    [{ challenge_token: 'x' }, 'Please provide challenge_token and code'],
    [{ code: '123456' }, 'Please provide challenge_token and code'],
    [{ challenge_token: 'x', code: '12345' }, 'Code must be a 6 digit OTP'],
    [{ challenge_token: 'x', code: '12345a' }, 'Code must be a 6 digit OTP'],
    [{ challenge_token: 'x', code: 123456 }, 'Code must be a 6 digit OTP'],
  ])('validates %j with 400 %s', async (body, message) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('an unknown challenge token answers 401', async () => {
    const res = await verify({ challenge_token: 'AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', code: '123456' });
    expect(res.status).toBe(401);
  });
});

describe('the second step’s caching', () => {
  it('answers the challenge with Cache-Control no-store, and the session too', async () => {
    const { login, token, code } = await challenge();
    expect(login.headers.get('cache-control')).toBe('no-store');
    expect((await verify({ challenge_token: token, code })).headers.get('cache-control')).toBe('no-store');
  });
});

describe('admin login with a second factor, past a 2 s challenge lifetime', () => {
  let shortLived: TestStack;
  beforeAll(async () => {
    shortLived = await startStack('otpexpiry', { auth: { ADMIN_2FA_DEFAULT: 'true', OTP_TTL_SECONDS: '2', ADMIN_REGISTRATION_OPEN: 'true' } });
  });
  afterAll(() => shortLived.stop());

  it('a challenge expires', async () => {
    const { token, code } = await challenge(shortLived);
    await new Promise((r) => setTimeout(r, 2_200));
    expect((await call(shortLived.url, 'POST', '/api/auth/verify-otp', { body: { challenge_token: token, code } })).status).toBe(401);
  });
});
