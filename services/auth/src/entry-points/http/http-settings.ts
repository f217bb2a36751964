// What the HTTP entry points take besides the use cases' deps: token verification, body limit, cookie lifetime, metrics.
import type { AccessTokenVerifier, HttpMetrics } from '@acct/shared';
import type { Provider } from '../../security/openid-provider';
import type { OpenIdResourceEntry } from '../../settings/openid-provider';

export interface HttpSettings {
  verifier: AccessTokenVerifier;
  /** The largest JSON body, in bytes. */
  bodyLimit: number;
  /** How long the gateway keeps a refresh cookie: the session's idle lifetime. */
  refreshCookieMaxAgeSeconds: number;
  http: HttpMetrics;
  /** How long a password or code proof lets a session change its factors. */
  stepUpSeconds: number;
  /** This service as an OpenID provider, when on: the provider, its issuer, how long a grant is kept, and the other resource servers. */
  openid?: { provider: Provider; issuer: string; grantTtlMs: number; resources: OpenIdResourceEntry[] };
}
