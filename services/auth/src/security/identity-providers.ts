// The OpenID Connect relying party, on openid-client (certified): discovery of each configured
// provider at start, retried with backoff in the background, so a provider that cannot be reached
// makes only its own routes answer 503; the authorization URL with PKCE (S256), state and nonce;
// and the code exchange, which checks what OpenID Connect Core asks of the answer and its ID token
// (issuer, audience, nonce, state, expiry, the `iss` of the redirect) and, with non-repudiation
// checks on, the ID token's signature against the provider's published keys.
import * as oidc from 'openid-client';
import { isLocalUrl, type AccountKind, type Logger } from '@acct/shared';
import { IdentityRefused } from '../domain/identity/sign-in';
import type { IdentityClaims, IdentityProviders, ProviderSummary } from '../domain/identity/ports';

export interface ProviderSettings {
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes: string;
  /** The callback of each kind, registered at the provider. */
  redirectUris: Record<AccountKind, string>;
}

interface ProviderState {
  settings: ProviderSettings;
  config?: oidc.Configuration;
  attempts: number;
  timer?: NodeJS.Timeout;
}

export interface DiscoveryOptions {
  /** First wait after a failed discovery; it doubles up to `maxRetryMs`, with ±25 % jitter. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** Each request to a provider (discovery, keys, token). */
  timeoutMs: number;
}

const DEFAULTS: DiscoveryOptions = { firstRetryMs: 1_000, maxRetryMs: 60_000, timeoutMs: 10_000 };

export class OidcIdentityProviders implements IdentityProviders {
  private readonly providers = new Map<string, ProviderState>();
  private stopped = false;

  constructor(
    settings: ProviderSettings[],
    private readonly logger: Logger,
    private readonly options: DiscoveryOptions = DEFAULTS,
  ) {
    for (const s of settings) this.providers.set(s.id, { settings: s, attempts: 0 });
  }

  /** Starts discovering every provider; never waits for one and never fails. */
  start(): void {
    for (const state of this.providers.values()) void this.discover(state);
  }

  stop(): void {
    this.stopped = true;
    for (const state of this.providers.values()) clearTimeout(state.timer);
  }

  list(): ProviderSummary[] {
    return [...this.providers.values()].map((p) => ({ id: p.settings.id, name: p.settings.name, available: p.config !== undefined }));
  }

  has(id: string): boolean {
    return this.providers.has(id);
  }

  async authorizationUrl(id: string, kind: AccountKind, checks: { state: string; nonce: string; codeVerifier: string }): Promise<{ url: string } | { refused: 'unknown' | 'unavailable' }> {
    const ready = this.ready(id);
    if ('refused' in ready) return ready;
    const { config, settings } = ready;
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: settings.redirectUris[kind],
      scope: settings.scopes,
      response_type: 'code',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href };
  }

  async exchange(id: string, kind: AccountKind, query: URLSearchParams, checks: { state: string; nonce: string; codeVerifier: string }): Promise<IdentityClaims> {
    const ready = this.ready(id);
    // A flow started with this provider: gone from the configuration since, or not discovered again yet.
    if ('refused' in ready) throw ready.refused === 'unavailable' ? new IdentityRefused('identity_provider_unavailable', 'not discovered yet') : new IdentityRefused('service_unavailable', 'no longer configured');
    const { config, settings } = ready;
    const current = new URL(settings.redirectUris[kind]);
    current.search = query.toString();
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
      // OpenID Connect Core 5.4: the profile and email claims may come from userinfo only (oidc-provider's
      // default, and many others'). Asked only when the ID token lacks them; the subject must match (5.3.2).
      if (claims?.sub && (claims.email === undefined || claims.email_verified === undefined) && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub as string);
        claims = { ...userinfo, ...claims };
      }
    } catch (err) {
      throw this.refusal(id, err);
    }
    if (typeof claims?.sub !== 'string' || !claims.sub) throw new IdentityRefused('identity_token_invalid', 'no subject in the ID token');
    const email = typeof claims.email === 'string' ? claims.email : undefined;
    return {
      subject: claims.sub,
      email,
      // Only a literal true: some providers send "true" strings or leave it out for unproven addresses.
      emailVerified: email !== undefined && claims.email_verified === true,
      unverified: unverifiedReason(email, claims.email_verified),
      name: typeof claims.name === 'string' ? claims.name : undefined,
    };
  }

  private ready(id: string): { config: oidc.Configuration; settings: ProviderSettings } | { refused: 'unknown' | 'unavailable' } {
    const state = this.providers.get(id);
    if (!state) return { refused: 'unknown' };
    if (!state.config) return { refused: 'unavailable' };
    return { config: state.config, settings: state.settings };
  }

  private async discover(state: ProviderState): Promise<void> {
    if (this.stopped) return;
    const { settings } = state;
    // Plain http only for a provider on this machine (a local Keycloak, the tests' provider).
    const insecure = isLocalUrl(settings.issuer) && settings.issuer.startsWith('http:');
    try {
      const config = await oidc.discovery(
        new URL(settings.issuer),
        settings.clientId,
        { redirect_uris: Object.values(settings.redirectUris), response_types: ['code'] },
        settings.clientSecret ? oidc.ClientSecretBasic(settings.clientSecret) : oidc.None(),
        { execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])], timeout: this.options.timeoutMs / 1000 },
      );
      config.timeout = this.options.timeoutMs / 1000;
      state.config = config;
      state.attempts = 0;
      this.logger.info({ provider: settings.id, issuer: settings.issuer }, 'Identity provider discovered');
    } catch (err) {
      state.attempts += 1;
      const base = Math.min(this.options.maxRetryMs, this.options.firstRetryMs * 2 ** (state.attempts - 1));
      const delay = Math.round(base * (0.75 + Math.random() * 0.5));
      this.logger.warn(
        { provider: settings.id, issuer: settings.issuer, reason: (err as Error).message, attempt: state.attempts, retry_in_ms: delay },
        'Identity provider discovery failed: its sign-in answers 503 until it succeeds',
      );
      if (this.stopped) return;
      state.timer = setTimeout(() => void this.discover(state), delay);
      state.timer.unref();
    }
  }

  /** What a failed exchange is to the user: the provider away (retry later), or an answer that did not hold. */
  private refusal(id: string, err: unknown): IdentityRefused {
    // oauth4webapi's errors say which check failed in `code` and, for a claim, in `cause`.
    // openid-client wraps them (`cause`): the inner message names the claim or check.
    const detail = err as { message?: string; code?: string; cause?: { message?: string } };
    const reason = [detail.message ?? String(err), detail.code, detail.cause?.message].filter(Boolean).join('; ');
    if (err instanceof oidc.AuthorizationResponseError) return new IdentityRefused('identity_provider_refused', `${err.error}: ${err.error_description ?? ''}`.trim());
    const cause = (err as { cause?: { code?: string } }).cause;
    const network = err instanceof TypeError || (err as { name?: string }).name === 'TimeoutError' || (err as { name?: string }).name === 'AbortError' || cause?.code === 'ECONNREFUSED';
    if (network) return new IdentityRefused('identity_provider_unavailable', reason);
    this.logger.debug({ provider: id, reason }, 'Identity provider answer refused');
    return new IdentityRefused('identity_token_invalid', reason);
  }
}

/** Why the provider's address is not taken as proven, naming the claim; undefined when it is. */
function unverifiedReason(email: string | undefined, verified: unknown): string | undefined {
  if (email === undefined) return 'the provider gave no email claim (in the ID token or from userinfo)';
  if (verified === true) return undefined;
  if (verified === undefined) return 'the provider gave no email_verified claim (in the ID token or from userinfo)';
  return `the provider's email_verified claim is ${JSON.stringify(verified)}, not true`;
}
