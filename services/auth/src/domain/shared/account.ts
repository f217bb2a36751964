// An account as the use cases see it, and what a client may see of it.
import type { AccountKind } from '@acct/shared';
import { AuthErrors } from '../../errors';

export interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
  role: string;
  disabled: boolean;
  twoFactorEnabled: boolean;
  /** Whether the address was proven by a mailed link; undefined: never asked (before verification was on, or an admin). */
  emailVerified?: boolean;
  /**
   * When its mailbox first answered a link (a verification or a reset), whatever EMAIL_VERIFICATION
   * says: the ways in added before it are shared/mailbox.ts's to judge. Undefined: never yet. Never shown.
   */
  addressProvenAt?: Date;
  /** The language its owner chose for the pages and the mails (`de`); undefined: never chosen (a request's own then decides). */
  language?: string;
  avatar: { fileId: string; contentType: string; size: number; updatedAt: Date } | null;
  /**
   * Moves on with every change that must end the account's sessions (a password reset or set, a
   * disable): a session opened under an older epoch is refused, however it raced the change.
   */
  credentialEpoch: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewAccount {
  email: string;
  name: string;
  passwordHash: string | null;
  role: string;
  twoFactorEnabled?: boolean;
  emailVerified?: boolean;
  addressProvenAt?: Date;
}

export type AccountChanges = Partial<Pick<Account, 'email' | 'name' | 'passwordHash' | 'disabled' | 'avatar' | 'emailVerified' | 'addressProvenAt' | 'language'>> & {
  /** Move the credential epoch on, in the same write as the change. */
  endSessions?: true;
};

/** What a client may see of an account. */
export interface AccountRecord {
  id: string;
  name: string;
  email: string;
  role: string;
  disabled: boolean;
  twoFactorEnabled?: boolean;
  /** Only on accounts whose address was asked to be proven (EMAIL_VERIFICATION soft or required). */
  emailVerified?: boolean;
  /** The language its owner chose (users), where they chose one. */
  language?: string;
  avatar?: { contentType: string; size: number; updatedAt: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function toAccountRecord(kind: AccountKind, account: Account): AccountRecord {
  const record: AccountRecord = {
    id: account.id,
    name: account.name,
    email: account.email,
    role: account.role,
    disabled: account.disabled,
    createdAt: account.createdAt.toISOString(),
    updatedAt: account.updatedAt.toISOString(),
  };
  if (kind === 'admin') record.twoFactorEnabled = account.twoFactorEnabled;
  if (account.emailVerified !== undefined) record.emailVerified = account.emailVerified;
  if (account.language) record.language = account.language;
  if (account.avatar) {
    record.avatar = { contentType: account.avatar.contentType, size: account.avatar.size, updatedAt: account.avatar.updatedAt.toISOString() };
  }
  return record;
}

/** An account id as the stores make them: 24 hexadecimal digits. */
/** A new account's name when none was typed (an identity provider's sign-up, a sign-up by email): the given name, else the address's local part, as the contract's 2-20 characters. */
export function displayName(name: string | undefined, email: string): string {
  const candidate = [name?.trim(), email.split('@')[0]].find((n) => n && [...n].length >= 2) ?? 'User';
  return [...candidate].slice(0, 20).join('').trim();
}

export const isAccountId = (id: string) => /^[0-9a-fA-F]{24}$/.test(id);

/** A session id as the session store makes them: 128 random bits, base64url. */
export const isSessionId = (id: string) => /^[A-Za-z0-9_-]{22}$/.test(id);

/** A user id of a route: malformed is a 400 naming it, before any store is asked. */
export function assertUserId(id: string): void {
  if (!isAccountId(id)) throw AuthErrors.badUserId();
}
