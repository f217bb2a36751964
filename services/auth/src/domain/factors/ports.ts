// The second factors' ports: the factor store, the one budget of wrong codes, an open second-step
// challenge as a proof sees it, and the TOTP, QR and WebAuthn libraries (adapters in security/).
import type { AccountKind } from '@acct/shared';

/** An open second-step challenge, as the proof presented against it sees it (its attempt already counted). */
export interface OpenChallenge {
  kind: AccountKind;
  accountId: string;
  /** Whether `code` is the one mailed for this challenge (false when none was mailed). */
  isMailedCode(code: string): boolean;
  /** The WebAuthn challenge handed out for this second step, if one was. */
  webauthnChallenge?: string;
}

/** What a presented second-factor proof is: correct, wrong (a guess), or a correct one already used (a copy, not a guess). */
export type ProofVerdict = boolean | 'used';

/** Wrong second-factor codes per account, across challenges and routes: one budget and one backoff wherever a code is checked. */
export interface CodeGuesses {
  /** How long the account must wait before its next guess (0: none). */
  waitBeforeGuess(kind: AccountKind, accountId: string): Promise<number>;
  /** How many guesses a new challenge of the account gets, after its recent wrong ones. */
  guessesPerChallenge(kind: AccountKind, accountId: string): Promise<number>;
  failed(kind: AccountKind, accountId: string): Promise<void>;
  succeeded(kind: AccountKind, accountId: string): Promise<void>;
}

export interface Passkey {
  /** The credential id, base64url. */
  id: string;
  name: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  /**
   * Added while the account's address was unproven, whose first proof has come since: it no longer
   * signs in by itself, and still answers a second step (shared/mailbox.ts); used as one, it is kept.
   */
  suspended?: boolean;
}

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt' | 'suspended'>;

export interface FactorSet {
  /** The authenticator, confirmed or still pending its first code; its seed in the clear. */
  totp: { secret: string; confirmed: boolean; lastStep: number; createdAt: Date } | null;
  passkeys: Passkey[];
  recoveryCodesLeft: number;
  /** When the current set of recovery codes was made (null: none). */
  recoveryCodesMadeAt: Date | null;
}

/** Authenticator-app codes (RFC 6238: 6 digits, 30 s, SHA-1, a step of skew either way), a library's work kept outside the domain. */
export interface TotpCodes {
  /** A new random secret (160 bits), base32. */
  newSecret(): string;
  /** The time step `code` belongs to when it is a code of `secret` within the accepted skew of `now`. */
  stepOf(secret: string, code: string, now?: number): number | undefined;
  /** The otpauth:// URI an authenticator app reads. */
  uri(secret: string, issuer: string, label: string): string;
}

/** Images of text to scan (the otpauth URI), as a PNG data URL. */
export interface QrCodes {
  dataUrl(text: string): Promise<string>;
}

/** What the browser is given for a WebAuthn ceremony (JSON, passed through as it is). */
export type PasskeyOptions = { readonly challenge: string } & Readonly<Record<string, unknown>>;

/** The relying party a ceremony is checked against. */
export interface RelyingParty {
  rpId: string;
  rpName: string;
  /** The pages that may run a ceremony, exactly. */
  origins: string[];
  /** Outside production with no WEBAUTHN_ORIGINS: any `http://localhost:<port>` page (the gateway on whatever PORT it was given). */
  anyLocalhostPort?: boolean;
}

/** The WebAuthn ceremonies (registration and authentication), a library's work kept outside the domain. */
export interface PasskeyCeremonies {
  /** The origin of the page a browser's answer was made on (its client data); undefined when the answer has none. */
  originOf(answer: unknown): string | undefined;
  registrationOptions(rp: RelyingParty, user: { name: string; displayName: string; handle: string }, exclude: Array<Pick<Passkey, 'id' | 'transports'>>): Promise<PasskeyOptions>;
  /** The new credential when the browser's answer verifies against `challenge` (user verified); undefined otherwise. */
  verifyRegistration(rp: RelyingParty, answer: unknown, challenge: string): Promise<Omit<NewPasskey, 'name'> | undefined>;
  /** Options asking for a passkey: any of the relying party's, or only `allow`; with `challenge` (base64url) when the caller chose it. */
  authenticationOptions(rp: RelyingParty, options: { challenge?: string; allow?: Array<Pick<Passkey, 'id' | 'transports'>> }): Promise<PasskeyOptions>;
  /** The passkey's new counter when the answer verifies against `challenge` and its stored key; undefined otherwise (a counter that went back included). */
  verifyAuthentication(rp: RelyingParty, answer: unknown, challenge: string, passkey: Pick<Passkey, 'id' | 'publicKey' | 'counter' | 'transports'>): Promise<{ counter: number } | undefined>;
}

/** Second factors at rest: seeds sealed, recovery codes hashed, by the store. */
export interface Factors {
  of(kind: AccountKind, accountId: string): Promise<FactorSet>;
  /** Starts (or restarts) an authenticator enrolment; `exists` when a confirmed one is live. */
  startTotp(kind: AccountKind, accountId: string, secret: string): Promise<'started' | 'exists'>;
  /** Makes the pending authenticator live, its first code's step used; false when none is pending. */
  confirmTotp(kind: AccountKind, accountId: string, step: number): Promise<boolean>;
  /** Uses a time step of the live authenticator; false when it (or a later one) was used already. */
  useTotpStep(kind: AccountKind, accountId: string, step: number): Promise<boolean>;
  removeTotp(kind: AccountKind, accountId: string): Promise<boolean>;
  addPasskey(kind: AccountKind, accountId: string, passkey: NewPasskey): Promise<'added' | 'exists'>;
  findPasskey(credentialId: string): Promise<(Passkey & { kind: AccountKind; accountId: string }) | null>;
  /** Moves the counter on; `keep` lifts a suspension (the passkey answered a second step after the password). */
  usePasskey(credentialId: string, counter: number, options?: { keep?: boolean }): Promise<void>;
  /** Suspends every passkey of the account (it signs in by itself no more); answers those it suspended. */
  suspendPasskeys(kind: AccountKind, accountId: string): Promise<Passkey[]>;
  removePasskey(kind: AccountKind, accountId: string, credentialId: string): Promise<boolean>;
  /** Replaces the account's recovery codes (the old set ends). */
  replaceRecoveryCodes(kind: AccountKind, accountId: string, codes: string[]): Promise<void>;
  /** Uses one recovery code: the count left, `used` when it is one of the set already used, undefined when it is none of the set. */
  useRecoveryCode(kind: AccountKind, accountId: string, code: string): Promise<number | 'used' | undefined>;
  removeRecoveryCodes(kind: AccountKind, accountId: string): Promise<void>;
  /** Removes every factor and the recovery codes; answers how many factors went. */
  removeAll(kind: AccountKind, accountId: string): Promise<number>;
}

export interface FactorDeps {
  factors: Factors;
  totp: TotpCodes;
  qrCodes: QrCodes;
  passkeys: PasskeyCeremonies;
  codeGuesses: CodeGuesses;
}
