// Taking an account back, end to end through the gateway: whoever held the password for a moment
// may change the address (more than once), start flows and add ways in; the owner of an address the
// account had in the last week, or of its reset mailbox, can always take it back, and nothing the
// other person started keeps working after that. Links are read from the events auth records.
import { call, cookieValue } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
let adminToken: string;
beforeAll(async () => {
  // Every request comes from one address here: its budgets are not what these tests are about.
  const roomy = { RATE_LOGIN_IP_PER_MINUTE: '1000', RATE_REGISTER_IP_PER_HOUR: '1000', RATE_RESET_IP_PER_HOUR: '1000', RATE_FORGOT_IP_PER_HOUR: '1000', RATE_EMAIL_LINK_IP_PER_HOUR: '1000' };
  stack = await startStack('takeback', { auth: { EMAIL_VERIFICATION: 'soft', ADMIN_REGISTRATION_OPEN: 'true', ...roomy } });
  adminToken = (await registerAndLogin(stack, 'admin')).accessToken;
});
afterAll(() => stack.stop());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tokenOf = (url: string) => new URL(url).searchParams.get('token') as string;
const login = (email: string, password: string) => call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password } });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => call(stack.url, 'POST', path, { body, headers });

/** Asks for a change of the signed-in user's address and confirms it from the new address; answers the undo link mailed to the old one. */
async function changeAddress(user: { id: string; accessToken: string; password: string }, from: string, to: string): Promise<string> {
  const asked = await post('/api/auth/user/email', { newEmail: to, password: user.password }, bearer(user.accessToken));
  expect(asked.status).toBe(200);
  const confirm = await stack.events.waitFor('account.email_change.requested', (p) => p.accountId === user.id && p.email === to);
  const confirmed = await post('/api/auth/user/email/confirm', { token: tokenOf(confirm.payload.linkUrl) });
  expect(confirmed.status).toBe(200);
  const notice = await stack.events.waitFor('account.email_change.completed', (p) => p.accountId === user.id && p.email === from && p.newEmail === to);
  return notice.payload.linkUrl as string;
}

/** A user whose password someone else learned: the owner's address, and the other person's session. */
async function accountWithLeakedPassword() {
  const signedIn = await registerAndLogin(stack);
  const intruder = await login(signedIn.account.email, signedIn.account.password);
  const stamp = `${signedIn.id}-${Date.now()}`;
  return {
    owner: signedIn.account.email,
    id: signedIn.id,
    password: signedIn.account.password,
    ownerRefresh: signedIn.refresh,
    intruder: { id: signedIn.id, accessToken: intruder.body.data.accessToken as string, password: signedIn.account.password },
    addresses: { b: `b-${stamp}@example.net`, c: `c-${stamp}@example.net`, d: `d-${stamp}@example.net` },
  };
}

const undo = (link: string) => post('/api/auth/user/email/undo', { token: tokenOf(link) });

/** The token of the reset link the undo (or a forgot-password) mailed to `email`: each test mails one an address at most. */
async function resetLinkFor(id: string, email: string): Promise<string> {
  const event = await stack.events.waitFor('account.password_reset.requested', (p) => p.accountId === id && p.email === email);
  return tokenOf(event.payload.resetUrl);
}

/** An account whose intruder moved it A→B→C: the undo links mailed to A (the owner's) and to B (the intruder's). */
async function movedTwice() {
  const victim = await accountWithLeakedPassword();
  const { b, c } = victim.addresses;
  const undoToA = await changeAddress(victim.intruder, victim.owner, b);
  const undoToB = await changeAddress(victim.intruder, b, c);
  return { victim, b, c, undoToA, undoToB };
}

describe('the undo of a change of address', () => {
  it('survives later changes: A→B→C, and the owner at A takes the account back; the later undo dies', async () => {
    const { victim, c, undoToA, undoToB } = await movedTwice();
    const undone = await undo(undoToA);
    expect([undone.status, undone.body.message]).toEqual([200, 'Email change undone; every session was signed out']);
    await stack.events.waitFor('account.security.changed', (p) => p.accountId === victim.id && p.change === 'email_change_undone');
    // The later change's undo (mailed to the intruder's B) no longer moves the account.
    expect((await undo(undoToB)).body.code).toBe('link_invalid');
    // Every session ended, the intruder's and the owner's, and the password is gone: the owner chooses a new one from A.
    expect((await post('/api/auth/user/refresh', undefined, { cookie: `userRefreshToken=${victim.ownerRefresh}` })).status).toBe(401);
    expect((await call(stack.url, 'GET', '/api/auth/user/me', { headers: bearer(victim.intruder.accessToken) })).status).toBe(401);
    expect((await login(victim.owner, victim.password)).status).toBe(401);
    expect((await login(c, victim.password)).status).toBe(401);
    const reset = await post('/api/auth/user/reset-password', { token: await resetLinkFor(victim.id, victim.owner), newPassword: 'the owner chose this one' });
    expect(reset.status).toBe(200);
    expect((await login(victim.owner, 'the owner chose this one')).status).toBe(200);
  });

  it('wins over an undo the intruder used first: the earliest undo is the owner’s, and it still works', async () => {
    const { victim, b, undoToA, undoToB } = await movedTwice();
    // The intruder undoes to B (their own address) and resets the password from B.
    expect((await undo(undoToB)).status).toBe(200);
    const intruderReset = await post('/api/auth/user/reset-password', { token: await resetLinkFor(victim.id, b), newPassword: 'the intruder chose this' });
    expect(intruderReset.status).toBe(200);
    expect((await login(b, 'the intruder chose this')).status).toBe(200);

    // The owner's undo, issued first, is still good for its week.
    expect((await undo(undoToA)).status).toBe(200);
    expect((await login(b, 'the intruder chose this')).status).toBe(401);
    expect((await login(victim.owner, 'the intruder chose this')).status).toBe(401);
  });

  it('holds the address it returns to: nobody else can register or move to it while the undo lives', async () => {
    const victim = await accountWithLeakedPassword();
    await changeAddress(victim.intruder, victim.owner, victim.addresses.b);
    const squat = await post('/api/auth/user/register', buildAccount({ email: victim.owner }));
    expect([squat.status, squat.body.code]).toEqual([409, 'email_taken']);
    const other = await registerAndLogin(stack);
    const asked = await post('/api/auth/user/email', { newEmail: victim.owner, password: other.account.password }, bearer(other.accessToken));
    expect(asked.status).toBe(200);
    const confirm = await stack.events.waitFor('account.email_change.requested', (p) => p.accountId === other.id && p.email === victim.owner);
    expect((await post('/api/auth/user/email/confirm', { token: tokenOf(confirm.payload.linkUrl) })).body.code).toBe('email_taken');
  });

  it('never answers 200 while a confirmation racing it moves the account on: the undo wins, or one of them is refused', async () => {
    for (let round = 0; round < 4; round++) {
      const victim = await accountWithLeakedPassword();
      const { b, c } = victim.addresses;
      const undoToA = await changeAddress(victim.intruder, victim.owner, b);
      await post('/api/auth/user/email', { newEmail: c, password: victim.password }, bearer(victim.intruder.accessToken));
      const pending = await stack.events.waitFor('account.email_change.requested', (p) => p.accountId === victim.id && p.email === c);
      const [undone] = await Promise.all([undo(undoToA), post('/api/auth/user/email/confirm', { token: tokenOf(pending.payload.linkUrl) })]);
      const where = (await call(stack.url, 'GET', `/api/admin/users/${victim.id}`, { headers: bearer(adminToken) })).body.data.user.email;
      expect(undone.status).toBe(200);
      expect(where).toBe(victim.owner);
      // Whatever the order, the confirmation's own undo (mailed to B if it landed first) cannot take the account from A.
      const late = await stack.events.waitFor('account.email_change.completed', (p) => p.accountId === victim.id && p.email === b, 300).catch(() => undefined);
      if (late) expect((await undo(late.payload.linkUrl)).body.code).toBe('link_invalid');
    }
  });
});

describe('a credential change ends what was pending', () => {
  it('a password reset retires a pending change of address: its confirmation link no longer moves the account', async () => {
    const victim = await accountWithLeakedPassword();
    const { b } = victim.addresses;
    await post('/api/auth/user/email', { newEmail: b, password: victim.password }, bearer(victim.intruder.accessToken));
    const pending = await stack.events.waitFor('account.email_change.requested', (p) => p.accountId === victim.id && p.email === b);

    await post('/api/auth/user/forgot-password', { email: victim.owner });
    const reset = await post('/api/auth/user/reset-password', { token: await resetLinkFor(victim.id, victim.owner), newPassword: 'the owner chose this one' });
    expect(reset.status).toBe(200);

    expect((await post('/api/auth/user/email/confirm', { token: tokenOf(pending.payload.linkUrl) })).body.code).toBe('link_invalid');
    expect((await login(victim.owner, 'the owner chose this one')).status).toBe(200);
  });

  it("the owner's password change retires a reset link mailed before it", async () => {
    const signedIn = await registerAndLogin(stack);
    await post('/api/auth/user/forgot-password', { email: signedIn.account.email });
    const token = await resetLinkFor(signedIn.id, signedIn.account.email);
    const changed = await call(stack.url, 'POST', '/api/auth/user/password', {
      headers: bearer(signedIn.accessToken),
      body: { currentPassword: signedIn.account.password, newPassword: 'a brand new password' },
    });
    expect(changed.status).toBe(200);
    expect(cookieValue(changed.setCookies, 'userRefreshToken')).toBeDefined();
    const late = await post('/api/auth/user/reset-password', { token, newPassword: 'someone else chose this' });
    expect([late.status, late.body.message]).toEqual([400, 'Invalid or expired reset token']);
    expect((await login(signedIn.account.email, 'a brand new password')).status).toBe(200);
  });
});
