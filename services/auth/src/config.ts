// Auth configuration: the values every service shares (environment, address, stores, the event bus,
// token issuer and audience) under their one variable name each, and one section per feature of
// settings/index.ts, each read in one file of settings/ (its variables, section, development default,
// part of the use cases' policy, production refusals and weakened-setting warnings). A feature's
// value is read from its section only; this file names no feature.
import { z } from 'zod';
import { accessTokenVerifyEnv, configFragments, env, isProduction, loadConfig, readSecrets, type ConfigRule } from '@acct/shared';
import type { AuthPolicy } from './domain/shared/ports';
import { FEATURES } from './settings';

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

type Features = typeof FEATURES;
type FeatureName = keyof Features;
type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (part: infer I) => void ? I : never;
/** Every feature's variables, as one shape. */
type FeatureVariables = Intersection<Features[FeatureName]['variables']>;
/** Each feature's section, under its name in FEATURES. */
type Sections = { [K in FeatureName]: ReturnType<Features[K]['section']> };
/** What the features decide of the use cases' policy, together: the compiler checks that it is all of AuthPolicy. */
type DecidedPolicy = Intersection<{ [K in FeatureName]: Features[K] extends { policy?(section: never): infer P } ? P : never }[FeatureName]>;

const featureNames = Object.keys(FEATURES) as FeatureName[];
type AnyFeature = { variables: z.ZodRawShape; section(values: unknown, ctx: z.RefinementCtx): unknown; policy?(section: unknown): Partial<AuthPolicy>; rules?: ConfigRule; production?: ConfigRule; weakened?(section: unknown): string[] };
const featureOf = (name: FeatureName) => FEATURES[name] as unknown as AnyFeature;

/** Every feature's variables; a name two features (or a feature and the shared ones) both claim is a fault of the code, said at load. */
function featureVariables(): FeatureVariables {
  const variables: z.ZodRawShape = {};
  for (const name of featureNames) {
    for (const [variable, schema] of Object.entries(featureOf(name).variables)) {
      if (variable in variables || variable in sharedVariables) {
        throw new Error(`${variable} is claimed twice: by settings/${name} and by ${variable in sharedVariables ? "auth's shared variables" : 'an earlier settings module'}`);
      }
      variables[variable] = schema;
    }
  }
  return variables as FeatureVariables;
}

export const authSchema = z.object({
  ...sharedVariables,
  ...featureVariables(),
});

type Resolved = Omit<z.infer<typeof authSchema>, `${string}_FILE`>;

/** The shared values under their names, each feature's values as its section, and the domain's policy drawn from the sections. */
function sections(values: Resolved, ctx: z.RefinementCtx) {
  const shared = Object.fromEntries(Object.keys(sharedVariables).filter((name) => !name.endsWith('_FILE')).map((name) => [name, values[name as keyof Resolved]])) as Pick<
    Resolved,
    Exclude<keyof typeof sharedVariables, `${string}_FILE`>
  >;
  const featureSections = Object.fromEntries(featureNames.map((name) => [name, featureOf(name).section(values, ctx)])) as Sections;
  const decided = Object.assign({}, ...featureNames.map((name) => featureOf(name).policy?.(featureSections[name]) ?? {})) as DecidedPolicy;
  /** What the use cases apply (domain/shared/ports.ts AuthPolicy): each part decided by one feature's settings. */
  const policy: AuthPolicy = decided;
  return { ...shared, ...featureSections, policy };
}

const authConfig = authSchema.transform(readSecrets('JWT_PRIVATE_KEY', 'MFA_ENCRYPTION_KEY', 'OIDC_CLIENT_SECRETS')).transform(sections);

export type AuthConfig = z.infer<typeof authConfig>;

const featureList = featureNames.map(featureOf);

/** Production refuses what is only fit for a laptop: each feature's refusals, on the values as given. */
const productionRules: ConfigRule = (given) => (isProduction(given) ? featureList.flatMap((f) => f.production?.(given) ?? []) : []);

/** Settings production accepts but that weaken it: said at start, one warning each. */
export function weakenedSettings(config: AuthConfig): string[] {
  if (config.NODE_ENV !== 'production') return [];
  return featureNames.flatMap((name) => featureOf(name).weakened?.(config[name]) ?? []);
}

/** Parses auth's config, every refusal (of any environment, and of production) listed at once. */
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  return loadConfig(authConfig, source, [productionRules, ...featureList.flatMap((f) => (f.rules ? [f.rules] : []))]);
}
