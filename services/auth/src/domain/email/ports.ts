// The mailed links' ports: reset tokens, the verification and address-change links, and the queue of
// forgot-password requests answered by mail.
import type { AccountKind } from '@acct/shared';
import type { SharedDeps } from '../shared/ports';

export type * from '../shared/ports';

export type { FactorRecoveries, PendingRecovery } from '../shared/stores';

export interface ResetTokens {
  store(token: string, kind: AccountKind, accountId: string, expiresAt: Date, credentialEpoch: number): Promise<void>;
  find(token: string, kind: AccountKind): Promise<string | undefined>;
  /** Uses the token up: whose it was, and the credential epoch it was issued under (undefined: issued before epochs were kept). */
  consume(token: string, kind: AccountKind): Promise<{ accountId: string; credentialEpoch?: number } | undefined>;
  retireAll(kind: AccountKind, accountId: string): Promise<void>;
}

export type LinkPurpose = 'verify_email' | 'change_email' | 'undo_email_change' | 'recover_factors';

/** A used link: whose, the address it was issued for, when, and under which credential epoch. */
export interface UsedLink {
  kind: AccountKind;
  accountId: string;
  email?: string;
  createdAt: Date;
  credentialEpoch?: number;
}

export interface NewLink {
  purpose: LinkPurpose;
  kind: AccountKind;
  accountId: string;
  email?: string;
  expiresAt: Date;
  credentialEpoch?: number;
}

/**
 * Mailed links that prove an address: hashed, single use, expiring; one live per account and
 * purpose, except the undo links of address changes, each of which lives its whole week.
 */
export interface AccountLinks {
  /** Stores a link; a new verify or change link retires the older one of its purpose. */
  store(token: string, link: NewLink): Promise<void>;
  /** Uses the link up; undefined when it is unknown, used, replaced by a newer one, or expired. */
  consume(purpose: LinkPurpose, token: string): Promise<UsedLink | undefined>;
  /** Retires the account's unused links of the purpose; with `after`, only those issued after that moment. */
  retireAll(purpose: LinkPurpose | 'all', kind: AccountKind, accountId: string, options?: { after?: Date }): Promise<void>;
  /** The account whose live undo link would bring it back to `email`: the address is held for it meanwhile. */
  heldFor(kind: AccountKind, email: string): Promise<string | undefined>;
}

export interface ResetRequest {
  /** What the queued request asks for: a reset link (the default), a new verification link, or an email sign-in's link and code. */
  purpose?: 'reset' | 'verify' | 'sign_in';
  /** An email sign-in's flow (its id), which the mail arms. */
  flowId?: string;
  kind: AccountKind;
  /** Normalised. */
  email: string;
  ip: string;
  requestId?: string;
  /** The language of the request that asked (the gateway's choice): the mail speaks it unless the account chose one. */
  language?: string;
  /** False when the address's mail budget was spent: the request is answered alike and sends nothing. */
  mail: boolean;
}

export type ClaimedResetRequest = ResetRequest & { id: string; attempts: number };

export interface ResetRequests {
  enqueue(request: ResetRequest): Promise<void>;
  claim(): Promise<ClaimedResetRequest | undefined>;
  remove(id: string): Promise<void>;
}

export interface EmailDeps {
  resets: ResetTokens;
  links: AccountLinks;
  resetRequests: ResetRequests;
}

/** Every port this folder's use cases may name: shared's, its own and those of the features it calls. */
type Ports = SharedDeps & EmailDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
