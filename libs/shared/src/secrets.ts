// The one table of secrets: every field that grants access, with the media it may appear in. The
// logger's redaction, the logged path's query keys, the outbox's secret event fields and the
// config's secret-variable pattern all derive from it, so a new secret is one row here.
import type { EventType } from './events';

interface SecretField {
  /** Redacted wherever it appears as a key of a log record (at the depths the logger redacts). */
  log?: boolean;
  /** Blanked when it is a query-string key of a logged or traced URL (matched in lower case). */
  query?: boolean;
  /**
   * Events that carry it: the outbox keeps it only until the broker confirms the event, and drops it
   * from an event that can no longer be delivered.
   */
  events?: readonly EventType[];
}

const SECRET_FIELDS: Record<string, SecretField> = {
  password: { log: true, query: true },
  newPassword: { log: true, query: true },
  currentPassword: { log: true, query: true },
  token: { log: true, query: true },
  accessToken: { log: true, query: true },
  access_token: { query: true },
  refreshToken: { log: true, query: true },
  challenge_token: { log: true, query: true },
  // Second factors: a recovery code, an enrolment's secret and URI (the secret is in it), a WebAuthn answer.
  recovery_code: { log: true, query: true },
  recoveryCodes: { log: true },
  secret: { log: true, query: true },
  otpauthUrl: { log: true },
  qrCode: { log: true },
  passkey_token: { log: true, query: true },
  // An identity provider's redirect back: `code` (above) and the `state` that takes the flow.
  state: { query: true },
  // Also an error's code in records; the logger keeps snake_case error codes readable.
  code: { log: true, query: true, events: ['admin.otp.requested', 'account.email_sign_in.requested'] },
  // An email sign-in's link, as the page that takes it is addressed (`?email_sign_in=…`).
  email_sign_in: { query: true },
  // This service as an OpenID provider: an app's logout names the person's ID token, an authorization
  // may name their address, and a client may (wrongly) put its secret in the query.
  id_token_hint: { query: true },
  login_hint: { query: true },
  client_secret: { query: true },
  cookie: { log: true },
  authorization: { log: true },
  // A device's push token belongs to the notifier: desktop hands it over and forgets it.
  pushToken: { log: true, events: ['device.registered'] },
  // The link carries the reset token.
  resetUrl: { log: true, events: ['account.password_reset.requested'] },
  // The links that prove an address carry their token.
  linkUrl: {
    log: true,
    events: ['account.email_verification.requested', 'account.email_change.requested', 'account.email_change.completed', 'account.factor_recovery.requested', 'account.email_sign_in.requested'],
  },
};

/** Words that make a configuration variable a secret: an error names it but never shows its value. */
const SECRET_VARIABLE = /SECRET|PASSWORD|PRIVATE|CREDENTIALS|TOKEN|_KEY$/;

const fields = Object.entries(SECRET_FIELDS);

/** Record keys the logger redacts. */
export const secretLogKeys: readonly string[] = fields.filter(([, f]) => f.log).map(([name]) => name);

/** Query-string keys (lower case) whose values never leave the process. */
export const secretQueryKeys: ReadonlySet<string> = new Set(fields.filter(([, f]) => f.query).map(([name]) => name.toLowerCase()));

/** Payload fields of each event that the outbox drops once the broker has it. */
export const secretEventFields: Partial<Record<EventType, readonly string[]>> = fields.reduce<Partial<Record<EventType, string[]>>>((byEvent, [name, f]) => {
  for (const type of f.events ?? []) (byEvent[type] ??= []).push(name);
  return byEvent;
}, {});

export const isSecretVariable = (name: string): boolean => SECRET_VARIABLE.test(name);
