// The account event contracts: routing keys and payload schemas, validated by publisher and consumer alike.
import { z } from 'zod';
import { isDeliverableEmail } from './email-address';

const envelope = {
  eventId: z.string().min(1),
  occurredAt: z.string().datetime(),
  requestId: z.string().optional(),
  /** The language the mail or push speaks (the account's choice, else the request's): a tag such as `de`; absent, English. */
  language: z.string().max(35).optional(),
};
const kind = z.enum(['admin', 'user']);
// The same rule the routes apply, so an address an account was created with is one its mail can go to.
const email = z.string().refine(isDeliverableEmail, 'not a deliverable email address');

/** The changes to how an account signs in that its owner is told of by mail. */
export const SECURITY_CHANGES = [
  'totp_added',
  'totp_removed',
  'passkey_added',
  'passkey_removed',
  'recovery_codes_regenerated',
  'recovery_code_used',
  'factors_reset',
  'password_changed',
  'password_removed',
  'email_change_undone',
  'identity_linked',
  'identity_unlinked',
  /** Kept for notices recorded before mailbox recoveries waited: no change records it now. */
  'recent_ways_in_removed',
  'factor_recovery_scheduled',
  'factor_recovery_reminder',
  'factor_recovery_cancelled',
  'factor_recovery_completed',
  'unproven_ways_in_removed',
] as const;

export const eventSchemas = {
  'user.login.succeeded': z.object({ ...envelope, userId: z.string().min(1), ip: z.string() }),
  'account.password_reset.requested': z.object({
    ...envelope,
    kind,
    accountId: z.string().min(1),
    email,
    name: z.string(),
    resetUrl: z.string().url(),
    expiresAt: z.string().datetime(),
  }),
  'account.password_reset.completed': z.object({ ...envelope, kind, accountId: z.string().min(1), email, name: z.string() }),
  /** A link that proves the address: mailed to `email`. */
  'account.email_verification.requested': z.object({ ...envelope, kind, accountId: z.string().min(1), email, name: z.string(), linkUrl: z.string().url(), expiresAt: z.string().datetime() }),
  /** A removal of the second factors asked for from a sign-in's second step: the link that confirms it, mailed to the account's address. */
  'account.factor_recovery.requested': z.object({ ...envelope, kind, accountId: z.string().min(1), email, name: z.string(), linkUrl: z.string().url(), expiresAt: z.string().datetime() }),
  /**
   * A sign-in without a password asked for: a link for the browser that asked and a code for another
   * device, mailed to `email`; `signUp`, the address has no account yet and the link makes one.
   */
  'account.email_sign_in.requested': z.object({
    ...envelope,
    kind,
    accountId: z.string().min(1).optional(),
    email,
    name: z.string(),
    linkUrl: z.string().url(),
    code: z.string().regex(/^\d{6}$/),
    expiresAt: z.string().datetime(),
    signUp: z.boolean(),
  }),
  /** A change of address asked for: the confirmation link, mailed to the new address (`email`). */
  'account.email_change.requested': z.object({ ...envelope, kind, accountId: z.string().min(1), email, name: z.string(), linkUrl: z.string().url(), expiresAt: z.string().datetime() }),
  /** A change of address made: the notice to the old address (`email`), with its undo link. */
  'account.email_change.completed': z.object({
    ...envelope,
    kind,
    accountId: z.string().min(1),
    email,
    newEmail: email,
    name: z.string(),
    linkUrl: z.string().url(),
    expiresAt: z.string().datetime(),
  }),
  'admin.otp.requested': z.object({
    ...envelope,
    adminId: z.string().min(1),
    email,
    name: z.string(),
    code: z.string().regex(/^\d{6}$/),
    expiresAt: z.string().datetime(),
  }),
  'device.registered': z.object({
    ...envelope,
    userId: z.string().min(1),
    deviceId: z.string().min(1),
    platform: z.string().min(1),
    pushToken: z.string().min(1),
    /** The session that registered it: the token lives as long as that session (absent in events from before). */
    sessionId: z.string().min(1).optional(),
  }),
  /** Sessions of an account ended (logout, sign-out, reuse, the session cap) or, with `all`, every one (reset, disable). */
  'account.sessions.ended': z
    .object({
      ...envelope,
      kind,
      accountId: z.string().min(1),
      sessionIds: z.array(z.string().min(1)).max(1_000).optional(),
      all: z.literal(true).optional(),
    })
    .refine((p) => p.all === true || (p.sessionIds?.length ?? 0) > 0, 'either sessionIds or all'),
  /** The account is gone: every service drops what it holds of it (idempotently), and the notifier mails `email` a notice. */
  'account.deleted': z.object({ ...envelope, kind, accountId: z.string().min(1), email, name: z.string() }),
  /** How the account signs in changed (a second factor added or removed, recovery codes used or replaced): the owner gets a notice. */
  'account.security.changed': z.object({
    ...envelope,
    kind,
    accountId: z.string().min(1),
    email,
    name: z.string(),
    change: z.enum(SECURITY_CHANGES),
    /** Lines listed under the change: what a recovery removed and kept (names and dates, never a secret). */
    details: z.array(z.string().max(200)).max(100).optional(),
  }),
} as const;

export type SecurityChange = (typeof SECURITY_CHANGES)[number];

export type EventType = keyof typeof eventSchemas;

/** An event as its producer gives it: the outbox adds the id and the time. */
export type EventInput<T extends EventType> = Omit<EventPayload<T>, 'eventId' | 'occurredAt'>;

/** Where a use case records an event, in the same request that causes it. */
export interface EventOutbox {
  /** Validates and stores the event; answers its id. */
  add<T extends EventType>(type: T, input: EventInput<T>): Promise<string>;
}

/** Where the outbox hands events to (the broker, in production). */
export interface Publisher {
  /** Resolves once the broker confirmed the message. */
  publish(type: EventType, eventId: string, payload: Record<string, unknown>): Promise<void>;
}

export type EventPayload<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;

export function isEventType(value: string): value is EventType {
  return value in eventSchemas;
}

/** Validates a payload against its event's schema; throws a readable error naming the first bad field. */
export function parseEvent<T extends EventType>(type: T, payload: unknown): EventPayload<T> {
  const parsed = eventSchemas[type].safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${type} payload: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data as EventPayload<T>;
}
