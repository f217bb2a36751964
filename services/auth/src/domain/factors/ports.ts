// The second factors' ports: the factor store, the one budget of wrong codes, an open second-step
// challenge as a proof sees it, and the TOTP, QR and WebAuthn libraries (adapters in security/).
import type { AccountKind } from '@acct/shared';
import type { SharedDeps } from '../shared/ports';

export type * from '../shared/ports';

export type { Factor, FactorEntry, FactorMethods, FactorRef, Factors, NewFactor, OpenChallenge, ProofVerdict, SecondFactor } from '../shared/stores';

/** A passkey as the WebAuthn ceremonies read it: its credential id (the factor's id) and its details. */
export interface PasskeyCredential {
  /** The credential id, base64url. */
  id: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
}

/** Wrong second-factor codes per account, across challenges and routes: one budget and one backoff wherever a code is checked. */
export interface CodeGuesses {
  /** How long the account must wait before its next guess (0: none). */
  waitBeforeGuess(kind: AccountKind, accountId: string): Promise<number>;
  /** How many guesses a new challenge of the account gets, after its recent wrong ones. */
  guessesPerChallenge(kind: AccountKind, accountId: string): Promise<number>;
  failed(kind: AccountKind, accountId: string): Promise<void>;
  succeeded(kind: AccountKind, accountId: string): Promise<void>;
}

/** Authenticator-app codes (RFC 6238: 6 digits, 30 s, SHA-1, a step of skew either way), a library's work kept outside the domain. */
/** An authenticator code's time step, in seconds (RFC 6238's default, which every app reads): step N began at N × this. */
export const TOTP_PERIOD_SECONDS = 30;

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
  registrationOptions(rp: RelyingParty, user: { name: string; displayName: string; handle: string }, exclude: Array<Pick<PasskeyCredential, 'id' | 'transports'>>): Promise<PasskeyOptions>;
  /** The new credential when the browser's answer verifies against `challenge` (user verified); undefined otherwise. */
  verifyRegistration(rp: RelyingParty, answer: unknown, challenge: string): Promise<PasskeyCredential | undefined>;
  /** Options asking for a passkey: any of the relying party's, or only `allow`; with `challenge` (base64url) when the caller chose it. */
  authenticationOptions(rp: RelyingParty, options: { challenge?: string; allow?: Array<Pick<PasskeyCredential, 'id' | 'transports'>> }): Promise<PasskeyOptions>;
  /** The passkey's new counter when the answer verifies against `challenge` and its stored key; undefined otherwise (a counter that went back included). */
  verifyAuthentication(rp: RelyingParty, answer: unknown, challenge: string, passkey: PasskeyCredential): Promise<{ counter: number } | undefined>;
}

export interface FactorDeps {
  totp: TotpCodes;
  qrCodes: QrCodes;
  passkeys: PasskeyCeremonies;
  codeGuesses: CodeGuesses;
}

/** Every port this folder's use cases may name: shared's, its own and those of the features it calls. */
type Ports = SharedDeps & FactorDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
