// The apps' ports: the grants a person gave an app through this service as an OpenID provider, each
// with the session it became (security/openid-provider.ts speaks the protocol; these are the rules).
import type { AccountKind } from '@acct/shared';
import type { AppDefinition, AppScope, SharedDeps } from '../shared/ports';

export type * from '../shared/ports';

/** An app that signs people in here, as the rules read it. */
export interface App {
  id: string;
  name: string;
  /** Whose accounts sign in to it. */
  kind: AccountKind;
  /** The product's own app: no consent asked, and its access tokens are the product API's. */
  firstParty: boolean;
}

/**
 * A person's grant to an app, from the sign-in that gave it until its session ends: who, to which app,
 * from where, and the session its first token opened (with that session's current refresh token,
 * held here and never given out: the app holds the provider's own).
 */
export interface AppGrant {
  kind: AccountKind;
  accountId: string;
  appId: string;
  appName: string;
  ip?: string;
  userAgent?: string;
  sessionId?: string;
  sessionToken?: string;
}

export interface AppGrants {
  /** Keeps a new grant for `ttlMs`. */
  save(grantId: string, grant: AppGrant, ttlMs: number): Promise<void>;
  find(grantId: string): Promise<AppGrant | undefined>;
  /** Records the session its first token opened; false when one was recorded already (then the caller's is ended). */
  attachSession(grantId: string, sessionId: string, sessionToken: string): Promise<boolean>;
  /** The session's refresh token after a rotation. */
  updateSessionToken(grantId: string, sessionToken: string): Promise<void>;
  /** Forgets the grant; answers what it was. */
  remove(grantId: string): Promise<AppGrant | undefined>;
  /** The grants of an app still kept (its deletion ends each). */
  ofApp(appId: string): Promise<string[]>;
}

/** The scopes an app may ask for. */
export const APP_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const satisfies readonly AppScope[];

/** A secret of an app, as kept: its SHA-256 alone (it is 256 random bits: no password hash is needed). */
export interface AppSecretRecord {
  hash: string;
  createdAt: Date;
  /** Set when a newer secret replaced it: accepted until then (the overlap), refused after. */
  expiresAt?: Date;
}

/** An app an admin registered. */
export interface ManagedApp extends AppDefinition {
  id: string;
  secrets: AppSecretRecord[];
  createdAt: Date;
  updatedAt: Date;
}

/** The apps admins register (the console, the admin API); those of configuration are not among them. */
export interface ManagedApps {
  /** Stores a new app; false when its id is taken. */
  create(app: ManagedApp): Promise<boolean>;
  find(id: string): Promise<ManagedApp | undefined>;
  /** Every app, oldest first (at most `limit`). */
  list(limit: number): Promise<ManagedApp[]>;
  /** Replaces what may change; undefined when there is no such app. */
  update(id: string, changes: Partial<Omit<AppDefinition, 'kind' | 'confidential' | 'native'>> & { secrets?: AppSecretRecord[] }): Promise<ManagedApp | undefined>;
  /** Removes it; false when there was none. */
  remove(id: string): Promise<boolean>;
}

export interface AppDeps {
  appGrants: AppGrants;
  managedApps: ManagedApps;
}

type Ports = SharedDeps & AppDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
