// What each event becomes, as one table: every event type has a handler and the queue it is
// consumed from (the queue bindings are derived from it, topology.ts). A new event type is a
// schema in @acct/shared/events plus a row here.
import type { EventPayload, EventType, SecurityChange } from '@acct/shared';
import type { Needs, NotifierDeps, PushNotification } from './ports';
import type { TemplateName } from './templates';

export type Outcome = 'sent' | 'no_devices' | 'stored' | 'removed';

/** The queues events are consumed from: pushes and device records apart from mail, so a slow mail server holds no push back. */
export type QueueName = 'push' | 'email';

interface Handler<T extends EventType> {
  queue: QueueName;
  handle(deps: NotifierDeps, payload: EventPayload<T>): Promise<Outcome>;
}

export const LOGIN_PUSH: PushNotification = {
  title: 'Login Successful',
  body: 'You have logged in successfully.',
  category: 'GENERAL',
  data: { event: 'login' },
};

/** The changes a user's devices are told of as well as the address (the mail stays the record): a removal of the second factors coming. Their words are the language file's `mail.alerts`. */
export const DEVICE_ALERTS: Partial<Record<SecurityChange, Omit<PushNotification, 'title' | 'body'>>> = {
  factor_recovery_scheduled: { category: 'SECURITY', data: { event: 'factor_recovery_scheduled' } },
  factor_recovery_reminder: { category: 'SECURITY', data: { event: 'factor_recovery_reminder' } },
};

/** A device alert in a language (the event's, else English). */
export function deviceAlert(deps: Needs<'templates'>, change: SecurityChange, language?: string): PushNotification | undefined {
  const alert = DEVICE_ALERTS[change];
  if (!alert) return undefined;
  const lang = language ?? 'en';
  return { ...alert, title: deps.templates.text(lang, `alerts.${change}.title`), body: deps.templates.text(lang, `alerts.${change}.body`) };
}

export const handlers: { [T in EventType]: Handler<T> } = {
  'user.login.succeeded': { queue: 'push', handle: pushLogin },
  'device.registered': {
    queue: 'push',
    handle: async (deps, p) => {
      await deps.devices.register(p.userId, p.deviceId, p.platform, p.pushToken, p.sessionId);
      return 'stored';
    },
  },
  // A device belongs to the session that registered it: when that session ends, so do its pushes.
  'account.sessions.ended': {
    queue: 'push',
    handle: async (deps, p) => {
      if (p.kind !== 'user') return 'stored';
      await deps.devices.removeOfSessions(p.accountId, p.all ? 'all' : (p.sessionIds ?? []));
      return 'removed';
    },
  },
  'admin.otp.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'admin-otp', p.email, p.eventId, { name: p.name, code: p.code, minutes: minutesUntil(p.expiresAt) }, p.language),
  },
  'account.password_reset.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'password-reset-requested', p.email, p.eventId, { name: p.name, resetUrl: p.resetUrl, minutes: minutesUntil(p.expiresAt) }, p.language),
  },
  'account.password_reset.completed': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'password-reset-completed', p.email, p.eventId, { name: p.name }, p.language),
  },
  'account.email_verification.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'email-verification', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, hours: hoursUntil(p.expiresAt) }, p.language),
  },
  'account.factor_recovery.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'factor-recovery-requested', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, minutes: minutesUntil(p.expiresAt) }, p.language),
  },
  'account.email_sign_in.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, p.signUp ? 'email-sign-up' : 'email-sign-in', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, code: p.code, minutes: minutesUntil(p.expiresAt) }, p.language),
  },
  'account.email_change.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'email-change-confirm', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, hours: hoursUntil(p.expiresAt) }, p.language),
  },
  'account.email_change.completed': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'email-change-notice', p.email, p.eventId, { name: p.name, newEmail: p.newEmail, linkUrl: p.linkUrl, days: String(Math.max(1, Math.round(Number(hoursUntil(p.expiresAt)) / 24))) }, p.language),
  },
  // On the mail queue with its notice: the device tokens go first, then the mail (a retry repeats both, harmlessly).
  'account.deleted': {
    queue: 'email',
    handle: async (deps, p) => {
      if (p.kind === 'user') await deps.devices.removeOfSessions(p.accountId, 'all');
      return mail(deps, 'account-deleted', p.email, p.eventId, { name: p.name }, p.language);
    },
  },
  'account.security.changed': {
    queue: 'email',
    handle: async (deps, p) => {
      // Whoever holds a factor is told too, on the user's devices: a pending removal is theirs to stop.
      const alert = deviceAlert(deps, p.change, p.language);
      if (alert && p.kind === 'user') await pushTo(deps, p.accountId, alert).catch((err) => deps.logger.warn({ reason: (err as Error).message, user_id: p.accountId }, 'Could not push the security alert; the mail goes on'));
      const change = deps.templates.text(p.language ?? 'en', `changes.${p.change}`);
      return mail(deps, 'security-notice', p.email, p.eventId, { name: p.name, change: [change, ...(p.details ?? []).map((line) => `- ${line}`)].join('\n') }, p.language);
    },
  },
};

export function handleEvent<T extends EventType>(deps: NotifierDeps, type: T, payload: EventPayload<T>): Promise<Outcome> {
  return (handlers[type] as Handler<T>).handle(deps, payload);
}

/** The event types consumed from each queue. */
export function eventsOfQueue(queue: QueueName): EventType[] {
  return (Object.keys(handlers) as EventType[]).filter((type) => handlers[type].queue === queue);
}

function pushLogin(deps: Needs<'devices' | 'push' | 'logger'>, payload: EventPayload<'user.login.succeeded'>): Promise<Outcome> {
  return pushTo(deps, payload.userId, LOGIN_PUSH);
}

/** Pushes to every device of the user; tokens FCM reports invalid are removed. */
async function pushTo(deps: Needs<'devices' | 'push' | 'logger'>, userId: string, notification: PushNotification): Promise<Outcome> {
  const tokens = await deps.devices.tokensOf(userId);
  if (tokens.length === 0) return 'no_devices';
  const result = await deps.push.send(tokens, notification);
  if (result.deadTokens.length) {
    const removed = await deps.devices.remove(result.deadTokens);
    deps.logger.info({ user_id: userId, removed }, 'Removed push tokens FCM reported invalid');
  }
  return 'sent';
}

async function mail(deps: Needs<'templates' | 'mailer' | 'productName' | 'supportContact'>, template: TemplateName, to: string, eventId: string, values: Record<string, string>, language?: string): Promise<Outcome> {
  await deps.mailer.send({ to, id: eventId, ...composeMail(deps, template, values, language) });
  return 'sent';
}

/**
 * A mail as it goes out, in `language` (the account's choice or the request's; English without one,
 * or for a language no file gives): its subject and both bodies, filled with the event's values,
 * the product's name and who to turn to.
 */
export function composeMail(deps: Needs<'templates' | 'productName' | 'supportContact'>, template: TemplateName, values: Record<string, string>, language = 'en'): { subject: string; text: string; html: string; language: string } {
  const lang = deps.templates.languages.codes.includes(language) ? language : 'en';
  const support = deps.supportContact ? deps.templates.text(lang, 'support', { contact: deps.supportContact }) : '';
  const all = { ...values, productName: deps.productName, support };
  return { subject: deps.templates.subject(template, all, lang), ...deps.templates.render(template, all, lang), language: lang };
}

function hoursUntil(iso: string): string {
  return String(Math.max(1, Math.round((Date.parse(iso) - Date.now()) / 3_600_000)));
}

function minutesUntil(iso: string): string {
  return String(Math.max(1, Math.round((Date.parse(iso) - Date.now()) / 60_000)));
}
