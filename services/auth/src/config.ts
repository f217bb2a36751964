// Auth configuration: the values every service shares (environment, address, stores, the event bus,
// token issuer and audience) under their one variable name each, and one section per feature, each
// read in one file of settings/ (its variables, section, development default, production refusals and
// weakened-setting warnings). A feature's value is read from its section only.
import { z } from 'zod';
import { accessTokenVerifyEnv, configFragments, env, isProduction, loadConfig, readSecrets, type ConfigRule } from '@acct/shared';
import { activitySettings } from './settings/activity';
import { adminSettings } from './settings/admins';
import { identityProviderSettings } from './settings/identity-providers';
import { mailedLinkSettings } from './settings/mailed-links';
import { otpSettings } from './settings/otp';
import { passwordSettings } from './settings/passwords';
import { rateLimitSettings } from './settings/rate-limits';
import { secondFactorSettings } from './settings/second-factors';
import { sessionSettings } from './settings/sessions';

/** What auth shares with the other services: each read under its variable's name. */
const sharedVariables = {
  ...configFragments.service({ host: '127.0.0.1', healthPort: 9081 }),
  PORT: env.port(3001),
  ...configFragments.mongo('auth'),
  ...configFragments.redis('auth:'),
  ...configFragments.revocations(),
  ...configFragments.events(),
  ...configFragments.outbox(),
  ...configFragments.body(),
  ...env.secret('JWT_PRIVATE_KEY'),
  JWT_ISSUER: accessTokenVerifyEnv.JWT_ISSUER,
  JWT_AUDIENCE: accessTokenVerifyEnv.JWT_AUDIENCE,
  /** Desktop's internal address: a user's export asks it for their devices and sync data. */
  DESKTOP_URL: env.url('http://127.0.0.1:3002'),
};

/** Auth's features, each a section of the config named as here; refusals and warnings are listed in this order. */
const features = {
  admins: adminSettings,
  passwords: passwordSettings,
  otp: otpSettings,
  mfa: secondFactorSettings,
  sessions: sessionSettings,
  links: mailedLinkSettings,
  rateLimits: rateLimitSettings,
  identity: identityProviderSettings,
  activity: activitySettings,
};

export const authSchema = z.object({
  ...sharedVariables,
  ...featureVariables(),
});

// Spread one by one, so the schema's type names every variable.
function featureVariables() {
  return {
    ...features.admins.variables,
    ...features.passwords.variables,
    ...features.otp.variables,
    ...features.mfa.variables,
    ...features.sessions.variables,
    ...features.links.variables,
    ...features.rateLimits.variables,
    ...features.identity.variables,
    ...features.activity.variables,
  };
}

type Resolved = Omit<z.infer<typeof authSchema>, `${string}_FILE`>;

/** The shared values under their names, each feature's values as its section, and the domain's policy drawn from the sections. */
function sections(values: Resolved, ctx: z.RefinementCtx) {
  const shared = Object.fromEntries(Object.keys(sharedVariables).filter((name) => !name.endsWith('_FILE')).map((name) => [name, values[name as keyof Resolved]])) as Pick<
    Resolved,
    Exclude<keyof typeof sharedVariables, `${string}_FILE`>
  >;
  const admins = features.admins.section(values, ctx);
  const passwords = features.passwords.section(values, ctx);
  const mfa = features.mfa.section(values, ctx);
  const sessions = features.sessions.section(values, ctx);
  const otp = features.otp.section(values, ctx);
  const links = features.links.section(values, ctx);
  const rateLimits = features.rateLimits.section(values, ctx);
  const identity = features.identity.section(values, ctx);
  const activity = features.activity.section(values, ctx);
  return {
    ...shared,
    admins,
    passwords,
    mfa,
    sessions,
    otp,
    links,
    rateLimits,
    identity,
    activity,
    /** What the use cases apply (domain/ports.ts AuthPolicy), from the sections above. */
    policy: {
      accessTokenTtlSeconds: sessions.accessTokenTtlSeconds,
      otpTtlSeconds: otp.ttlSeconds,
      resetTokenTtlSeconds: links.resetTokenTtlSeconds,
      resetUrlBase: links.resetUrlBase,
      adminRegistrationOpen: admins.registrationOpen,
      adminTwoFactor: admins.twoFactor,
      mfa: { totpIssuer: mfa.totpIssuer, webauthn: mfa.webauthn },
      emailVerification: links.emailVerification,
      identity: { appUrls: identity.appUrls, flowTtlMs: identity.flowTtlMs, adminProviders: identity.adminProviders },
      emailLinks: links.emailLinks,
      recovery: { delaySeconds: links.recovery.delaySeconds, reminderSeconds: links.recovery.reminderSeconds },
    },
  };
}

const authConfig = authSchema.transform(readSecrets('JWT_PRIVATE_KEY', 'MFA_ENCRYPTION_KEY', 'OIDC_CLIENT_SECRETS')).transform(sections);

export type AuthConfig = z.infer<typeof authConfig>;

const featureList = Object.values(features) as Array<{ rules?: ConfigRule; production?: ConfigRule }>;

/** Production refuses what is only fit for a laptop: each feature's refusals, on the values as given. */
const productionRules: ConfigRule = (given) => (isProduction(given) ? featureList.flatMap((f) => f.production?.(given) ?? []) : []);

/** Settings production accepts but that weaken it: said at start, one warning each. */
export function weakenedSettings(config: AuthConfig): string[] {
  if (config.NODE_ENV !== 'production') return [];
  return (Object.keys(features) as Array<keyof typeof features>).flatMap((name) => (features[name].weakened as ((section: unknown) => string[]) | undefined)?.(config[name]) ?? []);
}

/** Parses auth's config, every refusal (of any environment, and of production) listed at once. */
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(authConfig, source, [productionRules, ...featureList.flatMap((f) => (f.rules ? [f.rules] : []))]);
}
