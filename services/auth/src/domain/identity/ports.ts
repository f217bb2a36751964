// The identity providers' ports: the configured providers and the linked identities (a flow between
// a start and its callback is a sign-in flow, sign-in/flow.ts).
import type { AccountKind } from '@acct/shared';
import type { SharedDeps } from '../shared/ports';
import type { FactorDeps } from '../factors';
import type { EmailDeps } from '../email';

export type * from '../shared/ports';

export type { Identities, LinkedIdentity } from '../shared/stores';

/** What a provider's verified ID token says of the person. */
export interface IdentityClaims {
  subject: string;
  email?: string;
  /** True only when the provider says the address is verified. */
  emailVerified: boolean;
  /** Why it is not, naming the claim that was missing or not `true` (for the audit record). */
  unverified?: string;
  name?: string;
}

export interface ProviderSummary {
  id: string;
  name: string;
  /** False while its discovery has not succeeded: its routes answer 503. */
  available: boolean;
}

/** The configured OpenID Connect providers (security/identity-providers.ts). */
export interface IdentityProviders {
  list(): ProviderSummary[];
  has(id: string): boolean;
  /** Where to send the browser, to come back to the kind's callback; refused for a provider not configured (`unknown`) or not discovered yet (`unavailable`). */
  authorizationUrl(id: string, kind: AccountKind, checks: { state: string; nonce: string; codeVerifier: string }): Promise<{ url: string } | { refused: 'unknown' | 'unavailable' }>;
  /** The redirect's parameters (at the kind's callback) exchanged for the verified claims; throws `IdentityRefused` when they do not hold. */
  exchange(id: string, kind: AccountKind, query: URLSearchParams, checks: { state: string; nonce: string; codeVerifier: string }): Promise<IdentityClaims>;
}

export interface IdentityDeps {
  identityProviders: IdentityProviders;
}

/** Every port this folder's use cases may name: shared's, its own and those of the features it calls. */
type Ports = SharedDeps & IdentityDeps & FactorDeps & EmailDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
