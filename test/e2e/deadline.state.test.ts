// A 504 the gateway answered never takes effect later: the gateway sends auth its deadline, and auth,
// whose slow part (a bcrypt hash at a high cost) outlasts it, commits nothing: no account, no
// session or login push, no new password. Auth reached directly (no deadline) does the same work to
// the end, which is how each test checks what happened.
import { call } from '@acct/test-harness/http-client';
import { buildAccount } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let auth: string;
beforeAll(async () => {
  // A hash outlasts the gateway's whole wait here: 268 ms at cost 12 on this 2-core VM, idle (533 ms at
  // 13, which with a 300 ms wait made the same margin for twice the CPU: eight hashes, 4.8 s of it).
  stack = await startStack('deadline', { auth: { BCRYPT_COST: '12' }, gateway: { UPSTREAM_TIMEOUT_MS: '150' } });
  auth = `http://127.0.0.1:${stack.running.auth.port}`;
});
afterAll(() => stack.stop());

const later = () => new Promise((r) => setTimeout(r, 2_500));

async function registeredDirectly() {
  const account = buildAccount();
  const res = await call(auth, 'POST', '/api/auth/user/register', { body: account });
  expect(res.status).toBe(201);
  return { account, id: res.body.data.user.id as string };
}

describe('a request the gateway answered 504', () => {
  it('register: no account is made after the 504', async () => {
    const account = buildAccount();
    const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    expect([res.status, res.body.code]).toEqual([504, 'upstream_timeout']);
    await later();
    // Free: registering it directly works, which it would not if the timed-out one had gone on.
    expect((await call(auth, 'POST', '/api/auth/user/register', { body: account })).status).toBe(201);
  });

  it('login: no session opens and no login push is sent after the 504', async () => {
    const { account, id } = await registeredDirectly();
    const res = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    expect(res.status).toBe(504);
    expect(res.setCookies).toEqual([]);
    await expect(stack.events.waitFor('user.login.succeeded', (p) => p.userId === id, 2_500)).rejects.toThrow();
    expect(stack.logs.request).toContainEqual(expect.objectContaining({ path: '/api/auth/user/login', status: 504 }));
  });

  it('reset-password: the password stays what it was, and the link still works', async () => {
    const { account, id } = await registeredDirectly();
    const requestId = `deadline-reset-${id}`;
    await call(auth, 'POST', '/api/auth/user/forgot-password', { body: { email: account.email }, headers: { 'x-request-id': requestId } });
    const mailed = await stack.events.waitFor('account.password_reset.requested', (p) => p.requestId === requestId);
    const token = new URL(mailed.payload.resetUrl).searchParams.get('token');
    const res = await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'a password that never took' } });
    expect(res.status).toBe(504);
    await later();
    expect((await call(auth, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } })).status).toBe(200);
    expect((await call(auth, 'POST', '/api/auth/user/reset-password', { body: { token, newPassword: 'the one the owner chose' } })).status).toBe(200);
  });
});
