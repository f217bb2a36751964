// End to end: account routes → outbox → RabbitMQ → notifier → push and mail.
import fs from 'node:fs';
import path from 'node:path';
import { call } from '@acct/test-harness/http-client';
import { until } from '@acct/test-harness/until';
import { decodeQuotedPrintable } from '@acct/test-harness/smtp';
import { buildAccount, registerAndLogin, startStack, type TestStack } from '@acct/test-stack/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack('notifications', { notifier: true, auth: { ADMIN_2FA_DEFAULT: 'true', ADMIN_REGISTRATION_OPEN: 'true' } });
});
afterAll(() => stack.stop());

const mails = () =>
  fs.readdirSync(stack.notifier!.mailDir).map((f) => decodeQuotedPrintable(fs.readFileSync(path.join(stack.notifier!.mailDir, f), 'utf8')));

describe('notifications from the running stack', () => {
  it('a user login sends the login push to the user’s device, and the login answer does not wait for it', async () => {
    const account = buildAccount();
    const registered = await call(stack.url, 'POST', '/api/auth/user/register', { body: account });
    const userId = registered.body.data.user.id;
    await stack.notifier!.publisher.publish('device.registered', { userId, deviceId: 'laptop', platform: 'linux', pushToken: 'fcm-token-1' });
    await until(() => stack.notifier!.logs.some((r) => r.event_type === 'device.registered' && r.outcome === 'stored'));
    const before = Date.now();
    const login = await call(stack.url, 'POST', '/api/auth/user/login', { body: { email: account.email, password: account.password } });
    expect(login.status).toBe(200);
    await until(() => stack.notifier!.push.sent.some((s) => s.tokens.includes('fcm-token-1')), 5_000, 'login push');
    const push = stack.notifier!.push.sent.find((s) => s.tokens.includes('fcm-token-1'))!;
    expect(push.notification).toMatchObject({ title: 'Login Successful', body: 'You have logged in successfully.', category: 'GENERAL', data: { event: 'login' } });
    expect(push.at).toBeGreaterThanOrEqual(before);
  });

  it('forgot-password puts a reset mail with the link into the mail folder', async () => {
    const { account } = await registerAndLogin(stack);
    await call(stack.url, 'POST', '/api/auth/user/forgot-password', { body: { email: account.email } });
    await until(() => mails().some((m) => m.includes(`To: ${account.email}`)), 5_000, 'reset mail');
    const mail = mails().find((m) => m.includes(`To: ${account.email}`))!;
    expect(mail).toMatch(/Subject: Reset your Account Service password/);
    expect(mail).toMatch(/reset-password\?token=[A-Za-z0-9_-]{43}/);
  });

  it('an admin login with a second factor mails the code, which then logs the admin in', async () => {
    const admin = buildAccount();
    await call(stack.url, 'POST', '/api/auth/admin/register', { body: admin });
    const login = await call(stack.url, 'POST', '/api/auth/admin/login', { body: { email: admin.email, password: admin.password } });
    expect(login.body.data.requires_2fa).toBe(true);
    await until(() => mails().some((m) => m.includes(`To: ${admin.email}`)), 5_000, 'code mail');
    const code = /sign-in code is:\s+(\d{6})/.exec(mails().find((m) => m.includes(`To: ${admin.email}`))!)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    const verified = await call(stack.url, 'POST', '/api/auth/verify-otp', { body: { challenge_token: login.body.data.challenge_token, code } });
    expect(verified.status).toBe(200);
  });
});
