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

const SUBJECTS: Record<TemplateName, (product: string) => string> = {
  'admin-otp': (p) => `Your ${p} sign-in code`,
  'password-reset-requested': (p) => `Reset your ${p} password`,
  'password-reset-completed': (p) => `Your ${p} password was changed`,
  'security-notice': (p) => `Security notice for your ${p} account`,
  'email-verification': (p) => `Confirm your email address for ${p}`,
  'factor-recovery-requested': (p) => `Confirm the removal of your ${p} second factors`,
  'email-sign-in': (p) => `Sign in to ${p}`,
  'email-sign-up': (p) => `Create your ${p} account`,
  'email-change-confirm': (p) => `Confirm your new email address for ${p}`,
  'email-change-notice': (p) => `The email address of your ${p} account was changed`,
  'account-deleted': (p) => `Your ${p} account was deleted`,
};

/** What each change to how an account signs in is called in its notice. */
export const SECURITY_CHANGE_WORDS: Record<SecurityChange, string> = {
  totp_added: 'An authenticator app was added as a second factor.',
  totp_removed: 'The authenticator app was removed from your second factors, and your other sessions were signed out.',
  passkey_added: 'A passkey was added.',
  passkey_removed: 'A passkey was removed, and your other sessions were signed out.',
  recovery_codes_regenerated: 'New recovery codes were made; the old ones no longer work.',
  recovery_code_used: 'A recovery code was used to sign in.',
  factors_reset: 'An administrator removed every second factor of your account, and every session was signed out.',
  password_changed: 'Your password was changed, and your other sessions were signed out.',
  password_removed: 'Your password was turned off: you now sign in without one (a passkey, a sign-in provider or your email), and your other sessions were signed out.',
  email_change_undone:
    'The change of your email address was undone: every session was signed out and the password removed. Choose a new password with the link we sent to this address just now.',
  identity_linked: 'A sign-in with an identity provider (such as Google) was linked to your account.',
  identity_unlinked: 'A sign-in with an identity provider was unlinked from your account.',
  recent_ways_in_removed:
    'Your account was taken back through your mailbox, so the passkeys, authenticator app and identity-provider sign-ins added in the last 7 days were removed (add back the ones that were yours):',
  factor_recovery_scheduled:
    'Someone who knows your password and reads this mailbox asked to remove the second factors of your account because they cannot use any of them. Nothing is removed yet. If it was not you, sign in with one of your second factors, or cancel it on your account page, and change your password.',
  factor_recovery_reminder: 'Reminder: the second factors of your account will be removed soon, as asked through this mailbox. If it was not you, sign in with one of them or cancel it on your account page now.',
  factor_recovery_cancelled: 'The pending removal of your second factors was cancelled.',
  factor_recovery_completed: 'As asked through this mailbox, the second factors of your account were removed and every session was signed out. Add a new one when you sign in.',
  unproven_ways_in_removed:
    'This mailbox proved for the first time that the address of your account is yours. Ways in added to the account before then could have been added by someone else who registered your address first, so:',
};

/** The changes a user's devices are told of as well as the address (the mail stays the record): a removal of the second factors coming. */
export const DEVICE_ALERTS: Partial<Record<SecurityChange, PushNotification>> = {
  factor_recovery_scheduled: {
    title: 'Security alert',
    body: 'Someone asked through your email to remove your second steps. If it was not you, sign in with one of them or cancel it on your account page.',
    category: 'SECURITY',
    data: { event: 'factor_recovery_scheduled' },
  },
  factor_recovery_reminder: {
    title: 'Security alert',
    body: 'Your second steps will be removed soon, as asked through your email. If it was not you, sign in with one of them or cancel it now.',
    category: 'SECURITY',
    data: { event: 'factor_recovery_reminder' },
  },
};

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
    handle: (deps, p) => mail(deps, 'admin-otp', p.email, p.eventId, { name: p.name, code: p.code, minutes: minutesUntil(p.expiresAt) }),
  },
  'account.password_reset.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'password-reset-requested', p.email, p.eventId, { name: p.name, resetUrl: p.resetUrl, minutes: minutesUntil(p.expiresAt) }),
  },
  'account.password_reset.completed': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'password-reset-completed', p.email, p.eventId, { name: p.name }),
  },
  'account.email_verification.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'email-verification', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, hours: hoursUntil(p.expiresAt) }),
  },
  'account.factor_recovery.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'factor-recovery-requested', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, minutes: minutesUntil(p.expiresAt) }),
  },
  'account.email_sign_in.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, p.signUp ? 'email-sign-up' : 'email-sign-in', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, code: p.code, minutes: minutesUntil(p.expiresAt) }),
  },
  'account.email_change.requested': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'email-change-confirm', p.email, p.eventId, { name: p.name, linkUrl: p.linkUrl, hours: hoursUntil(p.expiresAt) }),
  },
  'account.email_change.completed': {
    queue: 'email',
    handle: (deps, p) => mail(deps, 'email-change-notice', p.email, p.eventId, { name: p.name, newEmail: p.newEmail, linkUrl: p.linkUrl, days: String(Math.max(1, Math.round(Number(hoursUntil(p.expiresAt)) / 24))) }),
  },
  // On the mail queue with its notice: the device tokens go first, then the mail (a retry repeats both, harmlessly).
  'account.deleted': {
    queue: 'email',
    handle: async (deps, p) => {
      if (p.kind === 'user') await deps.devices.removeOfSessions(p.accountId, 'all');
      return mail(deps, 'account-deleted', p.email, p.eventId, { name: p.name });
    },
  },
  'account.security.changed': {
    queue: 'email',
    handle: async (deps, p) => {
      // Whoever holds a factor is told too, on the user's devices: a pending removal is theirs to stop.
      const alert = DEVICE_ALERTS[p.change];
      if (alert && p.kind === 'user') await pushTo(deps, p.accountId, alert).catch((err) => deps.logger.warn({ reason: (err as Error).message, user_id: p.accountId }, 'Could not push the security alert; the mail goes on'));
      return mail(deps, 'security-notice', p.email, p.eventId, { name: p.name, change: [SECURITY_CHANGE_WORDS[p.change], ...(p.details ?? []).map((line) => `- ${line}`)].join('\n') });
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

async function mail(deps: Needs<'templates' | 'mailer' | 'productName' | 'supportContact'>, template: TemplateName, to: string, eventId: string, values: Record<string, string>): Promise<Outcome> {
  await deps.mailer.send({ to, id: eventId, ...composeMail(deps, template, values) });
  return 'sent';
}

/** A mail as it goes out: its subject and both bodies, filled with the event's values, the product's name and who to turn to. */
export function composeMail(deps: Needs<'templates' | 'productName' | 'supportContact'>, template: TemplateName, values: Record<string, string>): { subject: string; text: string; html: string } {
  return { subject: SUBJECTS[template](deps.productName), ...deps.templates.render(template, { ...values, productName: deps.productName, support: supportLine(deps.supportContact) }) };
}

/** The last line of every mail: who to turn to, where the deployment names someone. */
export const supportLine = (contact: string | undefined): string => (contact ? `Questions? Contact ${contact}.` : '');

function hoursUntil(iso: string): string {
  return String(Math.max(1, Math.round((Date.parse(iso) - Date.now()) / 3_600_000)));
}

function minutesUntil(iso: string): string {
  return String(Math.max(1, Math.round((Date.parse(iso) - Date.now()) / 60_000)));
}
