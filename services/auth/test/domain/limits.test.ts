// The request limits' rules on in-memory ports (MemoryRateLimits counts per limit and key), moved
// down from the end-to-end limit files: which limit a use case charges, with which key, before what
// work, and what a spent limit answers. Counting itself (atomic, windowed) is the Redis store's, held
// by services/auth/test/redis-login-attempts.state.test.ts and the stores' own tests; the end-to-end
// file limits.security keeps guesses in flight through the whole stack and the gateway's client
// address (X-Forwarded-For, an IPv6 /64).
import { AuthErrors } from '../../src/errors';
import { login } from '../../src/domain/sign-in/login';
import { answerResetRequest, requestPasswordReset, resetPassword } from '../../src/domain/email/password-reset';
import { memorySignIn, MemoryRateLimits, MemoryResetRequests, requestOf } from '../fakes';
import type { LimiterName } from '../../src/domain/ports';

const rateLimited = expect.objectContaining({ code: 'rate_limited', httpStatus: 429, retryAfterSeconds: 60 });
const from = (budget: string) => ({ ...requestOf(), ip: budget, budget });

async function setUp(budgets: Partial<Record<LimiterName, number>> = {}) {
  const setup = await memorySignIn();
  const rateLimits = new MemoryRateLimits(budgets);
  const resetRequests = new MemoryResetRequests();
  const known = new Set<string>();
  const limited: string[] = [];
  const deps = Object.assign(setup.deps, {
    rateLimits,
    resetRequests,
    metrics: { ...setup.deps.metrics, rateLimited: (name: string) => void limited.push(name) },
  });
  deps.loginAttempts.isKnown = async (kind, email, budget) => known.has(`${kind}:${email}:${budget}`);
  return { ...setup, deps, rateLimits, resetRequests, known, limited };
}

describe('login per client', () => {
  it('answers 429 with a retry past the client’s budget, before any password work, and counts the refusal', async () => {
    const { deps, make, rateLimits, attempts, limited } = await setUp({ loginIp: 3 });
    await make('user', 'grace@example.com');
    for (let i = 0; i < 3; i++) await expect(login(deps, 'user', { email: `x${i}@example.com`, password: 'whatever1' }, from('198.51.100.7'))).rejects.toMatchObject(AuthErrors.invalidCredentials());
    await expect(login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, from('198.51.100.7'))).rejects.toEqual(rateLimited);
    expect(attempts).toHaveLength(3);
    expect(limited).toEqual(['loginIp']);
    // Another client has a budget of its own.
    await expect(login(deps, 'user', { email: 'grace@example.com', password: 'right password' }, from('198.51.100.8'))).resolves.toMatchObject({ kind: 'session' });
    expect(rateLimits.spent.filter((s) => s.startsWith('loginIp')).map((s) => s.split(' ')[1])).toEqual([...Array(4).fill('198.51.100.7'), '198.51.100.8']);
  });
});

describe('reset-password', () => {
  it('answers 429 with a retry past the client’s budget, before the token is looked up or a password hashed', async () => {
    const { deps, rateLimits } = await setUp({ resetIp: 3 });
    let hashed = 0;
    deps.hasher = { ...deps.hasher, hash: async (p) => (hashed++, `h:${p}`) };
    const lookups: string[] = [];
    const find = deps.resets.find.bind(deps.resets);
    deps.resets.find = async (token, kind) => (lookups.push(token), find(token, kind));
    for (let i = 0; i < 3; i++) await expect(resetPassword(deps, 'user', { token: `bogus-${i}`, newPassword: 'a brand new secret' }, from('203.0.113.5'))).rejects.toMatchObject(AuthErrors.resetInvalid());
    await expect(resetPassword(deps, 'user', { token: 'bogus-3', newPassword: 'a brand new secret' }, from('203.0.113.5'))).rejects.toEqual(rateLimited);
    expect(lookups).toEqual(['bogus-0', 'bogus-1', 'bogus-2']);
    expect(hashed).toBe(0);
    expect(rateLimits.used.get('resetIp 203.0.113.5')).toBe(4);
  });
});

describe('forgot-password', () => {
  it('charges the client, then the address from that client, keyed by the normalised address: case and spaces give no fresh budget', async () => {
    const { deps, rateLimits, resetRequests } = await setUp({ forgotEmailIp: 2 });
    await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('192.0.2.1'));
    await requestPasswordReset(deps, 'user', { email: '  CAROL@example.com  ' }, from('192.0.2.1'));
    await expect(requestPasswordReset(deps, 'user', { email: ' carol@example.com' }, from('192.0.2.1'))).rejects.toEqual(rateLimited);
    expect(rateLimits.spent.slice(0, 2)).toEqual(['forgotIp 192.0.2.1', 'forgotEmailIp user:carol@example.com:192.0.2.1']);
    expect(resetRequests.queued.map((r) => r.email)).toEqual(['carol@example.com', 'carol@example.com']);
  });

  it('lets the owner on another client ask when a stranger spent their own budget for the address', async () => {
    const { deps, resetRequests } = await setUp({ forgotEmailIp: 2 });
    for (let i = 0; i < 2; i++) await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('203.0.113.9'));
    await expect(requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('203.0.113.9'))).rejects.toEqual(rateLimited);
    await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('192.0.2.10'));
    expect(resetRequests.queued.at(-1)).toMatchObject({ email: 'carol@example.com', ip: '192.0.2.10', mail: true });
  });

  it('answers alike once the address’s mail budget is spent, and queues the request with no mail; the worker then sends nothing', async () => {
    const { deps, make, resetRequests } = await setUp({ forgotEmail: 4 });
    await make('user', 'carol@example.com');
    for (let i = 0; i < 5; i++) await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from(`198.51.100.${i}`));
    expect(resetRequests.queued.map((r) => r.mail)).toEqual([true, true, true, true, false]);
    for (let request = await resetRequests.claim(); request; request = await resetRequests.claim()) await answerResetRequest(deps, request);
    expect(deps.outbox.events.filter((e) => e.type === 'account.password_reset.requested')).toHaveLength(4);
  });

  it('still mails the owner asking from a client that signed in lately, when strangers spent the address’s mail budget', async () => {
    const { deps, known, resetRequests } = await setUp({ forgotEmail: 2 });
    for (let i = 0; i < 2; i++) await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from(`198.51.100.1${i}`));
    await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('198.51.100.13'));
    known.add('user:carol@example.com:127.0.0.1');
    await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('127.0.0.1'));
    expect(resetRequests.queued.map((r) => [r.ip, r.mail])).toEqual([
      ['198.51.100.10', true],
      ['198.51.100.11', true],
      ['198.51.100.13', false],
      ['127.0.0.1', true],
    ]);
  });

  it('queues a known and an unknown address in the same shape, and looks neither up before answering', async () => {
    const { deps, make, resetRequests } = await setUp();
    await make('user', 'carol@example.com');
    const lookups: string[] = [];
    const findByEmail = deps.accounts.user.findByEmail.bind(deps.accounts.user);
    deps.accounts.user.findByEmail = async (email) => (lookups.push(email), findByEmail(email));
    await requestPasswordReset(deps, 'user', { email: 'carol@example.com' }, from('192.0.2.1'));
    await requestPasswordReset(deps, 'user', { email: 'nobody@example.com' }, from('192.0.2.1'));
    expect(lookups).toEqual([]);
    const shape = { kind: 'user', ip: '192.0.2.1', requestId: 'test', mail: true };
    expect(resetRequests.queued).toEqual([
      { email: 'carol@example.com', ...shape },
      { email: 'nobody@example.com', ...shape },
    ]);
  });

  it('charges only the client for an admin’s request without an address, and queues nothing', async () => {
    const { deps, rateLimits, resetRequests } = await setUp();
    await requestPasswordReset(deps, 'admin', { email: 'not an address' }, from('192.0.2.1'));
    expect(rateLimits.spent).toEqual(['forgotIp 192.0.2.1']);
    expect(resetRequests.queued).toEqual([]);
  });
});
