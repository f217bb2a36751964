import { isolatedNames } from '@acct/test-harness/isolation';
import { until } from '@acct/test-harness/until';
import { RecordingPushSender, startTestNotifier, TestPublisher, type TestNotifier, removeNotifierNames } from '@acct/test-stack/notifier';

const names = isolatedNames('notifpush');
let publisher: TestPublisher;
let notifier: TestNotifier;

beforeAll(async () => {
  publisher = await TestPublisher.open(names.exchange);
  notifier = await startTestNotifier(names);
});
afterAll(async () => {
  await notifier.stop();
  await removeNotifierNames(names);
  await publisher.close();
});

const register = (userId: string, deviceId: string, pushToken: string) =>
  publisher.publish('device.registered', { userId, deviceId, platform: 'linux', pushToken });
/** Waits for these registrations themselves to be stored (no running total shared with other tests). */
const stored = (...eventIds: string[]) => until(() => eventIds.every((id) => notifier.logs.some((r) => r.event_id === id && r.outcome === 'stored')));

describe('notifier: push on user login', () => {
  it('sends the spec notification to every device of the user', async () => {
    await stored(await register('u1', 'd1', 'token-a'), await register('u1', 'd2', 'token-b'));
    await publisher.publish('user.login.succeeded', { userId: 'u1', ip: '1.2.3.4' });
    await until(() => notifier.push.sent.some((s) => s.tokens.includes('token-a')));
    const sent = notifier.push.sent.filter((s) => s.tokens.includes('token-a'));
    expect(sent).toHaveLength(1);
    expect(sent[0].tokens.sort()).toEqual(['token-a', 'token-b']);
    expect(sent[0].notification).toEqual({ title: 'Login Successful', body: 'You have logged in successfully.', category: 'GENERAL', data: { event: 'login' } });
  });

  it('does nothing, successfully, for a user without devices', async () => {
    const eventId = await publisher.publish('user.login.succeeded', { userId: 'nobody', ip: '1.2.3.4' });
    await until(() => notifier.logs.some((r) => r.event_id === eventId));
    expect(notifier.logs.find((r) => r.event_id === eventId)).toMatchObject({ outcome: 'no_devices' });
  });

  it('removes tokens FCM reports as unregistered', async () => {
    await stored(await register('u2', 'd1', 'good'), await register('u2', 'd2', 'stale'));
    notifier.push.dead.add('stale');
    await publisher.publish('user.login.succeeded', { userId: 'u2', ip: '1.2.3.4' });
    await until(() => notifier.push.sent.some((s) => s.tokens.includes('stale')));
    const second = await publisher.publish('user.login.succeeded', { userId: 'u2', ip: '1.2.3.4' });
    await until(() => notifier.logs.some((r) => r.event_id === second && r.outcome === 'sent'));
    expect(notifier.push.sent.filter((s) => s.tokens.includes('good')).at(-1)?.tokens).toEqual(['good']);
  });

  it('sends once when the same event is delivered twice', async () => {
    await stored(await register('u3', 'd1', 'token-c'));
    const eventId = await publisher.publish('user.login.succeeded', { userId: 'u3', ip: '1.2.3.4' });
    await publisher.publish('user.login.succeeded', { userId: 'u3', ip: '1.2.3.4', eventId });
    // Handled side by side, the copy is deferred while the first is in hand, then dropped as a duplicate.
    await until(() => notifier.logs.some((r) => r.event_id === eventId && r.outcome === 'duplicate'));
    await new Promise((r) => setTimeout(r, 100));
    expect(notifier.push.sent.filter((s) => s.tokens.includes('token-c'))).toHaveLength(1);
    expect(notifier.logs.filter((r) => r.event_id === eventId && r.outcome === 'sent')).toHaveLength(1);
  });

  it('dead-letters a poison message at once and keeps the queue flowing', async () => {
    await publisher.publish('user.login.succeeded', {}, '{not json');
    await publisher.publish('user.login.succeeded', { userId: 42 });
    await stored(await register('u4', 'd1', 'token-d'));
    await publisher.publish('user.login.succeeded', { userId: 'u4', ip: '1.2.3.4' });
    await until(() => notifier.push.sent.some((s) => s.tokens.includes('token-d')));
    const dead = await publisher.drainDead(`${names.queuePrefix}notifier.push.dead`);
    expect(dead).toHaveLength(2);
    expect(dead.map((d) => String(d.headers['x-dead-letter-reason']))).toEqual([expect.stringMatching(/^invalid: /), expect.stringMatching(/^invalid: .*userId/)]);
  });

  it('dead-letters after the bounded attempts when the push keeps failing transiently', async () => {
    const failing = new RecordingPushSender();
    const isolated = isolatedNames('notifpushfail');
    const pub = await TestPublisher.open(isolated.exchange);
    const n = await startTestNotifier(isolated, { push: failing });
    try {
      failing.fail = Object.assign(new Error('FCM unavailable'), { name: 'TransientDeliveryError' });
      await pub.publish('device.registered', { userId: 'u5', deviceId: 'd1', platform: 'linux', pushToken: 'token-e' });
      await until(() => n.logs.some((r) => r.outcome === 'stored'));
      const eventId = await pub.publish('user.login.succeeded', { userId: 'u5', ip: '1.2.3.4' });
      await until(() => n.logs.some((r) => r.event_id === eventId && r.outcome === 'dead_lettered'), 5_000);
      expect(n.logs.filter((r) => r.event_id === eventId).map((r) => `${r.outcome}@${r.attempt}`)).toEqual(['retry@1', 'retry@2', 'retry@3', 'dead_lettered@4']);
      const dead = await pub.drainDead(`${isolated.queuePrefix}notifier.push.dead`);
      expect(String(dead[0].headers['x-dead-letter-reason'])).toMatch(/^attempts exhausted/);
    } finally {
      await n.stop();
      await removeNotifierNames(isolated);
      await pub.close();
    }
  });
});

describe('notifier: security alerts on the user’s devices', () => {
  it('pushes a pending removal of the second steps to every device, and mails it; other changes only mail', async () => {
    await stored(await register('u9', 'd1', 'token-alert'));
    const base = { kind: 'user', accountId: 'u9', email: 'u9@example.com', name: 'Nine' };
    const scheduled = await publisher.publish('account.security.changed', { ...base, change: 'factor_recovery_scheduled', details: ['They will be removed after 2026-12-01T00:00:00.000Z:'] });
    await until(() => notifier.push.sent.some((s) => s.tokens.includes('token-alert')));
    expect(notifier.push.sent.filter((s) => s.tokens.includes('token-alert')).map((s) => s.notification.data)).toEqual([{ event: 'factor_recovery_scheduled' }]);
    await until(() => notifier.logs.some((r) => r.event_id === scheduled && r.outcome === 'sent'));
    const other = await publisher.publish('account.security.changed', { ...base, change: 'password_changed' });
    await until(() => notifier.logs.some((r) => r.event_id === other && r.outcome === 'sent'));
    expect(notifier.push.sent.filter((s) => s.tokens.includes('token-alert'))).toHaveLength(1);
  });
});
