import { isolatedNames } from '@acct/test-harness/isolation';
import { startTestNotifier, TestPublisher, type TestNotifier, removeNotifierNames } from '@acct/test-stack/notifier';
import { startSmtp, type TestSmtp } from '@acct/test-harness/smtp';
import { until } from '@acct/test-harness/until';

const names = isolatedNames('notifmail');
let smtp: TestSmtp;
let notifier: TestNotifier;
let publisher: TestPublisher;

beforeAll(async () => {
  smtp = await startSmtp();
  publisher = await TestPublisher.open(names.exchange);
  notifier = await startTestNotifier(names, { smtpUrl: smtp.url });
});
afterAll(async () => {
  await notifier.stop();
  await removeNotifierNames(names);
  await publisher.close();
  await smtp.close();
});

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe('notifier: email events through real SMTP', () => {
  it('admin.otp.requested mails the code and its lifetime to the admin', async () => {
    await publisher.publish('admin.otp.requested', { adminId: 'a1', email: 'boss@example.com', name: 'Boss', code: '042817', expiresAt: inMinutes(5) });
    const mail = await smtp.waitFor((m) => m.to.includes('boss@example.com'));
    expect(mail.subject).toBe('Your Account Service sign-in code');
    expect(mail.decoded).toContain('042817');
    expect(mail.decoded).toContain('5 minutes');
    expect(mail.decoded).toMatch(/Content-Type: text\/html/);
  });

  it('account.password_reset.requested mails the link, HTML-escaped in the HTML part', async () => {
    const resetUrl = 'https://app.example.com/reset-password?token=abc_DEF-123&x=1';
    await publisher.publish('account.password_reset.requested', { kind: 'user', accountId: 'u1', email: 'ann@example.com', name: 'Ann <3', resetUrl, expiresAt: inMinutes(30) });
    const mail = await smtp.waitFor((m) => m.to.includes('ann@example.com') && /Reset your/.test(m.subject));
    expect(mail.decoded).toContain(resetUrl);
    expect(mail.decoded).toContain('href="https://app.example.com/reset-password?token=abc_DEF-123&amp;x=1"');
    expect(mail.decoded).toContain('Ann &lt;3');
    expect(mail.decoded).toContain('30 minutes');
  });

  it('account.password_reset.completed tells the owner the password changed', async () => {
    await publisher.publish('account.password_reset.completed', { kind: 'admin', accountId: 'a2', email: 'ops@example.com', name: 'Ops' });
    const mail = await smtp.waitFor((m) => m.to.includes('ops@example.com'));
    expect(mail.subject).toBe('Your Account Service password was changed');
    expect(mail.decoded).toContain('If this was not you');
  });

  it('account.security.changed tells the owner what changed in how the account signs in', async () => {
    await publisher.publish('account.security.changed', { kind: 'user', accountId: 'u4', email: 'factor@example.com', name: 'Fay', change: 'totp_removed' });
    const mail = await smtp.waitFor((m) => m.to.includes('factor@example.com'));
    expect(mail.subject).toBe('Security notice for your Account Service account');
    expect(mail.decoded).toContain('The authenticator app was removed from your second factors');
    expect(mail.decoded).toContain('If this was not you');
  });

  it.each([
    ['account.email_verification.requested', 'Confirm your email address for Account Service', 'Confirm that this address is yours'],
    ['account.email_change.requested', 'Confirm your new email address for Account Service', 'The address changes only when you confirm'],
    ['account.email_change.completed', 'The email address of your Account Service account was changed', 'was changed to new@example.com'],
  ])('%s mails its link', async (type, subject, words) => {
    const to = `${type.replace(/\W/g, '-')}@example.com`;
    const linkUrl = 'https://app.example.com/account/email?action=verify&token=abc_DEF-123';
    await publisher.publish(type as 'account.email_change.completed', { kind: 'user', accountId: 'u5', email: to, newEmail: 'new@example.com', name: 'Em', linkUrl, expiresAt: inMinutes(24 * 60) });
    const mail = await smtp.waitFor((m) => m.to.includes(to));
    expect(mail.subject).toBe(subject);
    expect(mail.decoded).toContain(words);
    expect(mail.decoded).toContain('href="https://app.example.com/account/email?action=verify&amp;token=abc_DEF-123"');
  });

  it('retries a transient SMTP failure and sends once it passes', async () => {
    smtp.failNext(2, 451);
    await publisher.publish('account.password_reset.completed', { kind: 'user', accountId: 'u3', email: 'retry@example.com', name: 'Retry' });
    await smtp.waitFor((m) => m.to.includes('retry@example.com'));
    expect(smtp.mails.filter((m) => m.to.includes('retry@example.com'))).toHaveLength(1);
    expect(notifier.logs.filter((r) => r.outcome === 'retry' && r.event_type === 'account.password_reset.completed').length).toBeGreaterThanOrEqual(2);
  });

  it('dead-letters a permanent SMTP failure at once, with the reason', async () => {
    smtp.failNext(1, 550);
    const eventId = await publisher.publish('account.password_reset.completed', { kind: 'user', accountId: 'u4', email: 'nobody@example.com', name: 'Nobody' });
    const deadline = Date.now() + 5_000;
    let dead: Array<{ headers: Record<string, unknown>; body: string }> = [];
    while (Date.now() < deadline && dead.length === 0) {
      dead = await publisher.drainDead(`${names.queuePrefix}notifier.email.dead`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0].body).eventId).toBe(eventId);
    expect(String(dead[0].headers['x-dead-letter-reason'])).toMatch(/^permanent: SMTP 550/);
  });

  it('logs one record per handled event without the code or the link', async () => {
    const eventId = await publisher.publish('admin.otp.requested', { adminId: 'a9', email: 'quiet@example.com', name: 'Q', code: '777333', expiresAt: inMinutes(5) });
    await smtp.waitFor((m) => m.to.includes('quiet@example.com'));
    // The record follows the mail's acceptance: wait for it, then a moment for any second one.
    await until(() => notifier.logs.some((r) => r.event_id === eventId), 5_000, 'the event\'s log record');
    await new Promise((r) => setTimeout(r, 20));
    const records = notifier.logs.filter((r) => r.event_id === eventId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ event_type: 'admin.otp.requested', outcome: 'sent', attempt: 1, duration_ms: expect.any(Number) });
    expect(JSON.stringify(notifier.logs)).not.toContain('777333');
    expect(JSON.stringify(notifier.logs)).not.toContain('abc_DEF-123');
  });
});
