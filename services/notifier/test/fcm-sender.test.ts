// The FCM sender against firebase-admin's interface: message shape, multicast batching, token pruning.
import { FcmPushSender, LOGIN_PUSH, type MulticastClient } from '@acct/notifier';

type Sent = Parameters<MulticastClient['sendEachForMulticast']>[0];

function fakeClient(errorFor: (token: string) => string | undefined = () => undefined) {
  const calls: Sent[] = [];
  const client: MulticastClient = {
    async sendEachForMulticast(message) {
      calls.push(message);
      const responses = message.tokens.map((t) => {
        const code = errorFor(t);
        return code ? { success: false, error: { code, message: code } } : { success: true };
      });
      return { successCount: responses.filter((r) => r.success).length, failureCount: responses.filter((r) => !r.success).length, responses };
    },
  };
  return { client, calls };
}

describe('FcmPushSender', () => {
  it('sends the login notification with string data, the category for both platforms', async () => {
    const { client, calls } = fakeClient();
    await new FcmPushSender(client).send(['t1', 't2'], LOGIN_PUSH);
    expect(calls).toEqual([
      {
        tokens: ['t1', 't2'],
        notification: { title: 'Login Successful', body: 'You have logged in successfully.' },
        data: { event: 'login' },
        android: { notification: { channelId: 'GENERAL' } },
        apns: { payload: { aps: { category: 'GENERAL' } } },
      },
    ]);
  });

  it('splits more than 500 tokens into multicast batches', async () => {
    const { client, calls } = fakeClient();
    const tokens = Array.from({ length: 1201 }, (_, i) => `t${i}`);
    const result = await new FcmPushSender(client).send(tokens, LOGIN_PUSH);
    expect(calls.map((c) => c.tokens.length)).toEqual([500, 500, 201]);
    expect(result.successCount).toBe(1201);
  });

  it('reports unregistered and invalid tokens for removal, and keeps the rest', async () => {
    const { client } = fakeClient((t) => (t === 'gone' ? 'messaging/registration-token-not-registered' : t === 'junk' ? 'messaging/invalid-registration-token' : undefined));
    const result = await new FcmPushSender(client).send(['ok', 'gone', 'junk'], LOGIN_PUSH);
    expect(result).toEqual({ successCount: 1, failureCount: 2, deadTokens: ['gone', 'junk'] });
  });

  it('throws a transient error when FCM is unavailable for every token, so the event is retried', async () => {
    const { client } = fakeClient(() => 'messaging/unavailable');
    await expect(new FcmPushSender(client).send(['a', 'b'], LOGIN_PUSH)).rejects.toThrow(/FCM unavailable/);
  });

  it('does not retry after a partial success, which would notify some devices twice', async () => {
    const { client } = fakeClient((t) => (t === 'b' ? 'messaging/unavailable' : undefined));
    await expect(new FcmPushSender(client).send(['a', 'b'], LOGIN_PUSH)).resolves.toMatchObject({ successCount: 1, failureCount: 1 });
  });
});
