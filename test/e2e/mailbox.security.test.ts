// What a mailbox may do: proving an address, and taking an account back.

import fs from 'node:fs';
import path from 'node:path';
import { call, cookieValue } from '@acct/test-harness/http-client';
import { buildAccount, registerAndLogin } from '@acct/test-harness/factories';
import { decodeQuotedPrintable } from '@acct/test-harness/smtp';
import { until } from '@acct/test-harness/until';
import { startStack, type TestStack } from '@acct/test-stack/stack';

// Proving and changing a user's address, end to end through the gateway with EMAIL_VERIFICATION
// required: the links are read from the mails the notifier sent (its mail folder), or where a test
// must tell two requests apart, from their events; used as a mail reader would: once, only the
// newest, never for an address the account has left.
describe('email-ownership.security', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack('emailown', { notifier: true, auth: { EMAIL_VERIFICATION: 'required', ADMIN_REGISTRATION_OPEN: 'true' } });
  });
  afterAll(() => stack.stop());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const tokenOf = (url: string) => new URL(url).searchParams.get('token') as string;
  const mails = () => fs.readdirSync(stack.notifier!.mailDir).map((f) => decodeQuotedPrintable(fs.readFileSync(path.join(stack.notifier!.mailDir, f), 'utf8')));
  /** The link of `action` in a mail the notifier sent to `address`. */
  async function linkMailedTo(address: string, action: 'verify' | 'confirm' | 'undo'): Promise<string> {
    const pattern = new RegExp(`https?://\\S+\\?action=${action}&token=[A-Za-z0-9_-]{43}`);
    return until(() => mails().filter((m) => m.includes(`To: ${address}`)).map((m) => pattern.exec(m)?.[0]).find((link) => link !== undefined), 5_000, `a ${action} link mailed to ${address}`);
  }
  const actionOf = (url: string) => new URL(url).searchParams.get('action');
  const login = (email: string, password: string) => call(stack.url, 'POST', '/api/auth/user/login', { body: { email, password } });
  const verify = (token: string) => call(stack.url, 'POST', '/api/auth/user/verify-email', { body: { token } });

  /** Registers a user and answers the verification link the registration mailed. */
  async function registered() {
    const account = buildAccount();
    const res = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    expect(res.status).toBe(201);
    const id = res.body.data.user.id as string;
    return { account, id, res, link: await linkMailedTo(account.email, 'verify') };
  }

  /** A registered user whose address is proven, signed in. */
  async function verifiedUser() {
    const user = await registered();
    expect((await verify(tokenOf(user.link))).status).toBe(200);
    const signedIn = await login(user.account.email, user.account.password);
    return { ...user, accessToken: signedIn.body.data.accessToken as string, refresh: cookieValue(signedIn.setCookies, 'userRefreshToken') as string };
  }

  describe('email verification (required)', () => {
    it('a new user is unverified, cannot sign in until the mailed link is used, and the link works once', async () => {
      const { account, res, link } = await registered();
      expect(res.body.data.user.emailVerified).toBe(false);
      expect(actionOf(link)).toBe('verify');

      const early = await login(account.email, account.password);
      expect([early.status, early.body.code, early.body.message]).toEqual([403, 'email_not_verified', 'Email address not verified']);
      expect(early.setCookies).toEqual([]);
      // A wrong password still says nothing about verification.
      expect((await login(account.email, 'not the password')).body.code).toBe('invalid_credentials');

      const used = await verify(tokenOf(link));
      expect([used.status, used.body.message, used.body.data.user.emailVerified]).toEqual([200, 'Email verified', true]);
      const again = await verify(tokenOf(link));
      expect([again.status, again.body.code]).toEqual([400, 'link_invalid']);
      expect((await login(account.email, account.password)).status).toBe(200);
    });

    it('only the newest link works; a resend answers alike for any address and mails only an unverified account', async () => {
      const { account, id, link } = await registered();
      const resend = (email: string, requestId: string) => call(stack.url, 'POST', '/api/auth/user/verify-email/resend', { body: { email }, headers: { 'x-request-id': requestId } });
      const known = await resend(account.email, `resend-${id}`);
      const unknown = await resend(`nobody-${id}@example.com`, `resend-nobody-${id}`);
      expect([known.status, known.body]).toEqual([unknown.status, unknown.body]);
      expect(known.body.message).toBe('If that email is waiting to be verified, a new link has been sent.');
      const newer = await stack.events.waitFor('account.email_verification.requested', (p) => p.requestId === `resend-${id}`);
      await expect(stack.events.waitFor('account.email_verification.requested', (p) => p.requestId === `resend-nobody-${id}`, 1_000)).rejects.toThrow();

      expect((await verify(tokenOf(link))).body.code).toBe('link_invalid');
      expect((await verify(tokenOf(newer.payload.linkUrl))).status).toBe(200);
    });

    it.each([
      [{}, 400, 'Please provide token'],
      [{ token: 'x' }, 400, 'Invalid or expired link'],
      [{ token: 12 }, 400, 'Invalid or expired link'],
    ])('answers %j with %i %s', async (body, status, message) => {
      const res = await call(stack.url, 'POST', '/api/auth/user/verify-email', { body });
      expect([res.status, res.body.message]).toEqual([status, message]);
    });

    it('an admin lists users by whether their address is proven; an address an admin sets must be proven again', async () => {
      const unverified = await registered();
      const proven = await verifiedUser();
      const admin = await registerAndLogin(stack, 'admin');
      const list = async (flag: string) =>
        (await call(stack.url, 'GET', `/api/admin/users?emailVerified=${flag}&limit=100`, { headers: bearer(admin.accessToken) })).body.data.users.map((u: { id: string }) => u.id);
      expect(await list('false')).toContain(unverified.id);
      expect(await list('false')).not.toContain(proven.id);
      expect(await list('true')).toContain(proven.id);
      expect((await call(stack.url, 'GET', '/api/admin/users?emailVerified=maybe', { headers: bearer(admin.accessToken) })).status).toBe(400);

      const newAddress = `moved-${proven.id}@example.com`;
      const edited = await call(stack.url, 'PUT', `/api/admin/users/${proven.id}`, { headers: bearer(admin.accessToken), body: { email: newAddress } });
      expect(edited.body.data.user).toMatchObject({ email: newAddress, emailVerified: false });
      const event = await stack.events.waitFor('account.email_verification.requested', (p) => p.accountId === proven.id && p.email === newAddress);
      expect((await login(newAddress, proven.account.password)).body.code).toBe('email_not_verified');
      expect((await verify(tokenOf(event.payload.linkUrl))).status).toBe(200);
    });
  });

  describe('change of email', () => {
    const ask = (token: string, body: unknown) => call(stack.url, 'POST', '/api/auth/user/email', { headers: bearer(token), body });

    it('moves only when the new address confirms, tells the old one, and the old one can undo it, which ends every session', async () => {
      const user = await verifiedUser();
      const newAddress = `new-${user.id}@example.com`;
      const asked = await ask(user.accessToken, { newEmail: newAddress, password: user.account.password });
      expect([asked.status, asked.body.message]).toEqual([200, 'If that address can be used, a confirmation link has been sent to it.']);
      const confirmLink = await linkMailedTo(newAddress, 'confirm');
      // Nothing changed yet.
      expect((await login(user.account.email, user.account.password)).status).toBe(200);

      const confirmed = await call(stack.url, 'POST', '/api/auth/user/email/confirm', { body: { token: tokenOf(confirmLink) } });
      expect([confirmed.status, confirmed.body.data.user.email, confirmed.body.data.user.emailVerified]).toEqual([200, newAddress, true]);
      const undoLink = await linkMailedTo(user.account.email, 'undo');
      expect(mails().find((m) => m.includes(`To: ${user.account.email}`) && m.includes('?action=undo'))).toContain(`was changed to ${newAddress}`);
      expect((await login(newAddress, user.account.password)).status).toBe(200);
      expect((await login(user.account.email, user.account.password)).status).toBe(401);

      const undone = await call(stack.url, 'POST', '/api/auth/user/email/undo', { body: { token: tokenOf(undoLink) } });
      expect(undone.status).toBe(200);
      await stack.events.waitFor('account.security.changed', (p) => p.accountId === user.id && p.change === 'email_change_undone');
      expect((await call(stack.url, 'POST', '/api/auth/user/refresh', { cookie: `userRefreshToken=${user.refresh}` })).status).toBe(401);
      // The password may be whoever changed the address's: it is gone, and a link to choose a new one went to the old address.
      expect((await login(user.account.email, user.account.password)).status).toBe(401);
      expect((await login(newAddress, user.account.password)).status).toBe(401);
      const resetLink = await until(
        () => mails().filter((m) => m.includes(`To: ${user.account.email}`)).map((m) => /https?:\/\/\S+reset-password\?token=[A-Za-z0-9_-]{43}/.exec(m)?.[0]).find((l) => l !== undefined),
        5_000,
        'the reset link mailed with the undo',
      );
      expect((await call(stack.url, 'POST', '/api/auth/user/reset-password', { body: { token: tokenOf(resetLink), newPassword: 'chosen after the undo' } })).status).toBe(200);
      expect((await login(user.account.email, 'chosen after the undo')).status).toBe(200);
      // The undo link works once.
      expect((await call(stack.url, 'POST', '/api/auth/user/email/undo', { body: { token: tokenOf(undoLink) } })).body.code).toBe('link_invalid');
    });

    it('answers a taken address as a free one, and refuses it only at confirmation', async () => {
      const user = await verifiedUser();
      const other = await verifiedUser();
      const asked = await ask(user.accessToken, { newEmail: other.account.email, password: user.account.password });
      expect(asked.body.message).toBe('If that address can be used, a confirmation link has been sent to it.');
      const request = await stack.events.waitFor('account.email_change.requested', (p) => p.accountId === user.id);
      const confirmed = await call(stack.url, 'POST', '/api/auth/user/email/confirm', { body: { token: tokenOf(request.payload.linkUrl) } });
      expect([confirmed.status, confirmed.body.code]).toEqual([409, 'email_taken']);
    });

    it('needs the password (a wrong one is a failed login), a session, and an address', async () => {
      const user = await verifiedUser();
      expect((await ask(user.accessToken, { newEmail: 'x@example.com', password: 'wrong password' })).body.code).toBe('invalid_credentials');
      expect((await ask(user.accessToken, { password: user.account.password })).body.message).toBe('Please provide newEmail');
      expect((await ask(user.accessToken, { newEmail: 'not an address', password: user.account.password })).body.message).toBe('Invalid email format');
      expect((await call(stack.url, 'POST', '/api/auth/user/email', { body: { newEmail: 'x@example.com' } })).status).toBe(401);
    });
  });
});

// Taking an account back, end to end through the gateway: whoever held the password for a moment
// may change the address (more than once), start flows and add ways in; the owner of an address the
// account had in the last week, or of its reset mailbox, can always take it back, and nothing the
// other person started keeps working after that. Links are read from the events auth records.
describe('account-recovery.security', () => {
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
});
