// Push transports: the FCM sender (firebase-admin's sendEachForMulticast, behind a small interface
// so tests can record), and a logging sender for when FCM is not configured.
import type { Logger } from '@acct/shared';
import { TransientDeliveryError } from '../domain/delivery-errors';
import type { PushNotification, PushResult, PushSender } from '../domain/ports';

/** The part of firebase-admin's Messaging this service uses. */
export interface MulticastClient {
  sendEachForMulticast(message: FcmMulticastMessage): Promise<{
    successCount: number;
    failureCount: number;
    responses: Array<{ success: boolean; error?: { code: string; message: string } }>;
  }>;
}

export interface FcmMulticastMessage {
  tokens: string[];
  notification: { title: string; body: string };
  data: Record<string, string>;
  android: { notification: { channelId: string } };
  apns: { payload: { aps: { category: string } } };
}

const DEAD_TOKEN_CODES = new Set(['messaging/registration-token-not-registered', 'messaging/invalid-registration-token', 'messaging/invalid-argument']);
const TRANSIENT_CODES = new Set(['messaging/unavailable', 'messaging/internal-error', 'messaging/server-unavailable', 'messaging/quota-exceeded']);
const FCM_MULTICAST_LIMIT = 500;

export class FcmPushSender implements PushSender {
  readonly name = 'fcm';

  constructor(private readonly client: MulticastClient) {}

  async send(tokens: string[], notification: PushNotification): Promise<PushResult> {
    const result: PushResult = { successCount: 0, failureCount: 0, deadTokens: [] };
    let transient = 0;
    for (let i = 0; i < tokens.length; i += FCM_MULTICAST_LIMIT) {
      const batch = tokens.slice(i, i + FCM_MULTICAST_LIMIT);
      const response = await this.client.sendEachForMulticast(toFcmMessage(batch, notification));
      result.successCount += response.successCount;
      result.failureCount += response.failureCount;
      response.responses.forEach((r, index) => {
        if (r.success || !r.error) return;
        if (DEAD_TOKEN_CODES.has(r.error.code)) result.deadTokens.push(batch[index]);
        else if (TRANSIENT_CODES.has(r.error.code)) transient++;
      });
    }
    // Retry only when nothing got through: a retry after a partial success would notify twice.
    if (result.successCount === 0 && transient > 0) throw new TransientDeliveryError(`FCM unavailable for ${transient} token(s)`);
    return result;
  }
}

function toFcmMessage(tokens: string[], n: PushNotification): FcmMulticastMessage {
  return {
    tokens,
    notification: { title: n.title, body: n.body },
    data: n.data,
    android: { notification: { channelId: n.category } },
    apns: { payload: { aps: { category: n.category } } },
  };
}

/** Stands in when no Firebase credentials are configured: logs what it would send. */
export class LoggingPushSender implements PushSender {
  readonly name = 'log';

  constructor(private readonly logger: Logger) {}

  async send(tokens: string[], notification: PushNotification): Promise<PushResult> {
    this.logger.info({ devices: tokens.length, title: notification.title, category: notification.category }, 'Push not sent (no Firebase credentials): would notify');
    return { successCount: tokens.length, failureCount: 0, deadTokens: [] };
  }
}
