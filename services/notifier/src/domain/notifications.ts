// What each event becomes: a push to every device of the user, a stored device token, or a mail.
import type { EventPayload, EventType, Logger } from '@acct/shared';
import type { DeviceTokenRepository } from '../data-access/device-token-repository';
import type { Mailer } from './mailer';
import type { PushNotification, PushSender } from './push-sender';
import type { TemplateName, Templates } from './templates';

export interface NotifierDomain {
  devices: DeviceTokenRepository;
  push: PushSender;
  mailer: Mailer;
  templates: Templates;
  productName: string;
  logger: Logger;
}

export type Outcome = 'sent' | 'no_devices' | 'stored';

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

export async function handleEvent<T extends EventType>(domain: NotifierDomain, type: T, payload: EventPayload<T>): Promise<Outcome> {
  switch (type) {
    case 'user.login.succeeded':
      return pushLogin(domain, payload as EventPayload<'user.login.succeeded'>);
    case 'device.registered': {
      const p = payload as EventPayload<'device.registered'>;
      await domain.devices.register(p.userId, p.deviceId, p.platform, p.pushToken);
      return 'stored';
    }
    case 'admin.otp.requested': {
      const p = payload as EventPayload<'admin.otp.requested'>;
      return mail(domain, 'admin-otp', p.email, p.eventId, { name: p.name, code: p.code, minutes: minutesUntil(p.expiresAt) });
    }
    case 'account.password_reset.requested': {
      const p = payload as EventPayload<'account.password_reset.requested'>;
      return mail(domain, 'password-reset-requested', p.email, p.eventId, { name: p.name, resetUrl: p.resetUrl, minutes: minutesUntil(p.expiresAt) });
    }
    case 'account.password_reset.completed': {
      const p = payload as EventPayload<'account.password_reset.completed'>;
      return mail(domain, 'password-reset-completed', p.email, p.eventId, { name: p.name });
    }
    default:
      throw new Error(`no handler for ${type}`);
  }
}

async function pushLogin(domain: NotifierDomain, payload: EventPayload<'user.login.succeeded'>): Promise<Outcome> {
  const tokens = await domain.devices.tokensOf(payload.userId);
  if (tokens.length === 0) return 'no_devices';
  const result = await domain.push.send(tokens, LOGIN_PUSH);
  if (result.deadTokens.length) {
    const removed = await domain.devices.remove(result.deadTokens);
    domain.logger.info({ user_id: payload.userId, removed }, 'Removed push tokens FCM reported invalid');
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
