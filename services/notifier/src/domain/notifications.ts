// What each event becomes, as one table: every event type has a handler and the queue it is
// consumed from (the queue bindings are derived from it, topology.ts). A new event type is a
// schema in @acct/shared/events plus a row here.
import type { EventPayload, EventType, Logger } from '@acct/shared';
import type { DeviceTokens, Mailer, PushNotification, PushSender } from './ports';
import type { TemplateName, Templates } from './templates';

export interface NotifierDomain {
  devices: DeviceTokens;
  push: PushSender;
  mailer: Mailer;
  templates: Templates;
  productName: string;
  logger: Logger;
}

export type Outcome = 'sent' | 'no_devices' | 'stored';

/** The queues events are consumed from: pushes and device records apart from mail, so a slow mail server holds no push back. */
export type QueueName = 'push' | 'email';

interface Handler<T extends EventType> {
  queue: QueueName;
  handle(domain: NotifierDomain, payload: EventPayload<T>): Promise<Outcome>;
}

export const LOGIN_PUSH: PushNotification = {
  title: 'Login Successful',
  body: 'You have logged in successfully.',
  category: 'GENERAL',
  data: { event: 'login' },
};

const SUBJECTS: Record<TemplateName, (product: string) => string> = {
  'admin-otp': (p) => `Your ${p} sign-in code`,
  'password-reset-requested': (p) => `Reset your ${p} password`,
  'password-reset-completed': (p) => `Your ${p} password was changed`,
};

export const handlers: { [T in EventType]: Handler<T> } = {
  'user.login.succeeded': { queue: 'push', handle: pushLogin },
  'device.registered': {
    queue: 'push',
    handle: async (domain, p) => {
      await domain.devices.register(p.userId, p.deviceId, p.platform, p.pushToken);
      return 'stored';
    },
  },
  'admin.otp.requested': {
    queue: 'email',
    handle: (domain, p) => mail(domain, 'admin-otp', p.email, p.eventId, { name: p.name, code: p.code, minutes: minutesUntil(p.expiresAt) }),
  },
  'account.password_reset.requested': {
    queue: 'email',
    handle: (domain, p) => mail(domain, 'password-reset-requested', p.email, p.eventId, { name: p.name, resetUrl: p.resetUrl, minutes: minutesUntil(p.expiresAt) }),
  },
  'account.password_reset.completed': {
    queue: 'email',
    handle: (domain, p) => mail(domain, 'password-reset-completed', p.email, p.eventId, { name: p.name }),
  },
};

export function handleEvent<T extends EventType>(domain: NotifierDomain, type: T, payload: EventPayload<T>): Promise<Outcome> {
  return (handlers[type] as Handler<T>).handle(domain, payload);
}

/** The event types consumed from each queue. */
export function eventsOfQueue(queue: QueueName): EventType[] {
  return (Object.keys(handlers) as EventType[]).filter((type) => handlers[type].queue === queue);
}

async function pushLogin(domain: NotifierDomain, payload: EventPayload<'user.login.succeeded'>): Promise<Outcome> {
  const tokens = await domain.devices.tokensOf(payload.userId);
  if (tokens.length === 0) return 'no_devices';
  const result = await domain.push.send(tokens, LOGIN_PUSH);
  if (result.deadTokens.length) {
    const removed = await domain.devices.remove(result.deadTokens);
    domain.logger.info({ user_id: payload.userId, removed, request_id: payload.requestId }, 'Removed push tokens FCM reported invalid');
  }
  return 'sent';
}

async function mail(domain: NotifierDomain, template: TemplateName, to: string, eventId: string, values: Record<string, string>): Promise<Outcome> {
  const body = domain.templates.render(template, { ...values, productName: domain.productName });
  await domain.mailer.send({ to, subject: SUBJECTS[template](domain.productName), id: eventId, ...body });
  return 'sent';
}

function minutesUntil(iso: string): string {
  return String(Math.max(1, Math.round((Date.parse(iso) - Date.now()) / 60_000)));
}
