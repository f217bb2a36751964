// The admin console's part of the client: the admin routes of the contract, as results. Acts that
// cannot be undone answer `step_up_required` until the admin proves themselves again
// (`reauthenticate`), as the account console's factor changes do.
import { AccountClient, type Account, type ActivityEntry, type ClientOptions, type DataOf, type Result, type Session } from './account-client';
import type { components, paths } from './openapi';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? DataOf<B> : never;

export type UserFactors = Ok<'/api/admin/users/{userId}/factors', 'get'>['factors'];
export type DesktopRelease = components['schemas']['ManagedRelease'];
export type Platform = DesktopRelease['platform'];
export type OpenIdApp = components['schemas']['OpenIdApp'];
export type OpenIdAppRequest = components['schemas']['OpenIdAppRequest'];
export type LinkedIdentity = Ok<'/api/admin/users/{userId}/identities', 'get'>['identities'][number];

export interface UserFilter {
  query?: string;
  emailVerified?: boolean;
  disabled?: boolean;
}

export interface ActivityFilter {
  kind?: 'user' | 'admin';
  accountId?: string;
  type?: string;
  actorId?: string;
}

const flag = (value?: boolean) => (value === undefined ? undefined : value ? ('true' as const) : ('false' as const));
/** Query parameters without the ones left empty (the contract's validation refuses an empty value). */
const defined = <T extends Record<string, unknown>>(params: T): T => Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== '')) as T;

export class AdminClient extends AccountClient {
  constructor(options: Omit<ClientOptions, 'kind'> = {}) {
    super({ ...options, kind: 'admin' });
  }

  async users(params: UserFilter & { cursor?: string; limit?: number }): Promise<Result<Page<Account>>> {
    const query = defined({ query: params.query, cursor: params.cursor, limit: params.limit, emailVerified: flag(params.emailVerified), disabled: flag(params.disabled) });
    return this.pick(await this.settle(this.api.GET('/api/admin/users', { params: { query } })), (data) => ({ items: data.users, nextCursor: data.nextCursor }));
  }

  async user(id: string): Promise<Result<Account>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/users/{userId}', { params: { path: { userId: id } } })), (data) => data.user);
  }

  async updateUser(id: string, changes: { name?: string; email?: string; disabled?: boolean; password?: string }): Promise<Result<Account>> {
    const answer = await this.settle(this.api.PUT('/api/admin/users/{userId}', { params: { path: { userId: id } }, body: changes }));
    return this.pick(answer, (data) => data.user);
  }

  deleteUser(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/users/{userId}', { params: { path: { userId: id } } }));
  }

  async userFactors(id: string): Promise<Result<UserFactors>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/users/{userId}/factors', { params: { path: { userId: id } } })), (data) => data.factors);
  }

  resetFactors(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/users/{userId}/factors', { params: { path: { userId: id } } }));
  }

  async userSessions(id: string): Promise<Result<Session[]>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/users/{userId}/sessions', { params: { path: { userId: id } } })), (data) => data.sessions);
  }

  endUserSession(id: string, sessionId: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/users/{userId}/sessions/{sessionId}', { params: { path: { userId: id, sessionId } } }));
  }

  endUserSessions(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/users/{userId}/sessions', { params: { path: { userId: id } } }));
  }

  async userIdentities(id: string): Promise<Result<LinkedIdentity[]>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/users/{userId}/identities', { params: { path: { userId: id } } })), (data) => data.identities);
  }

  unlinkUserIdentity(id: string, provider: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/users/{userId}/identities/{provider}', { params: { path: { userId: id, provider } } }));
  }

  /** A user's activity, or (without `userId`) the deployment's log, filtered. */
  async activityLog(filter: ActivityFilter & { userId?: string }, cursor?: string): Promise<Result<Page<ActivityEntry>>> {
    const page = (data: { activity: ActivityEntry[]; nextCursor: string | null }) => ({ items: data.activity, nextCursor: data.nextCursor });
    if (filter.userId) {
      const query = defined({ type: filter.type, actorId: filter.actorId, cursor, limit: 20 });
      return this.pick(await this.settle(this.api.GET('/api/admin/users/{userId}/activity', { params: { path: { userId: filter.userId }, query } })), page);
    }
    const query = defined({ kind: filter.kind, accountId: filter.accountId, type: filter.type, actorId: filter.actorId, cursor, limit: 20 });
    return this.pick(await this.settle(this.api.GET('/api/admin/activity', { params: { query } })), page);
  }

  async admins(cursor?: string): Promise<Result<Page<Account>>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/admins', { params: { query: defined({ cursor }) } })), (data) => ({ items: data.admins, nextCursor: data.nextCursor }));
  }

  async releases(): Promise<Result<DesktopRelease[]>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/desktop/releases')), (data) => data.releases);
  }

  /** Needs a recent proof: `step_up_required` until the admin confirms it is them. */
  async publishRelease(release: Omit<DesktopRelease, 'publishedAt' | 'withdrawnAt'>): Promise<Result<DesktopRelease>> {
    return this.pick(await this.settle(this.api.POST('/api/admin/desktop/releases', { body: release })), (data) => data.release);
  }

  /** Needs a recent proof, as publishing does. */
  withdrawRelease(platform: Platform, version: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/desktop/releases/{platform}/{version}', { params: { path: { platform, version } } }));
  }

  /** The apps that sign people in through this service (OpenID provider): the deployment's and the console's. */
  async apps(): Promise<Result<OpenIdApp[]>> {
    return this.pick(await this.settle(this.api.GET('/api/admin/apps')), (data) => data.apps);
  }

  /** Needs a recent proof. A confidential app's `secret` is in this answer alone. */
  async registerApp(app: OpenIdAppRequest): Promise<Result<{ app: OpenIdApp; secret?: string }>> {
    return this.pick(await this.settle(this.api.POST('/api/admin/apps', { body: app })), (data) => data);
  }

  /** Needs a recent proof. */
  async updateApp(id: string, changes: Partial<OpenIdAppRequest>): Promise<Result<OpenIdApp>> {
    // The fields given replace the app's (the schema's defaults are a registration's, not a change's).
    return this.pick(await this.settle(this.api.PUT('/api/admin/apps/{appId}', { params: { path: { appId: id } }, body: changes as OpenIdAppRequest })), (data) => data.app);
  }

  /** Needs a recent proof. The new secret is in this answer alone; the old ones work `overlapHours` more (24 by default). */
  async rotateAppSecret(id: string, overlapHours?: number): Promise<Result<{ app: OpenIdApp; secret: string }>> {
    return this.pick(await this.settle(this.api.POST('/api/admin/apps/{appId}/secret', { params: { path: { appId: id } }, body: overlapHours === undefined ? {} : { overlapHours } })), (data) => data);
  }

  /** Needs a recent proof. Every session the app holds ends. */
  deleteApp(id: string): Promise<Result<unknown>> {
    return this.settle(this.api.DELETE('/api/admin/apps/{appId}', { params: { path: { appId: id } } }));
  }

  /** Creates another admin account (an admin's session grants it). */
  async inviteAdmin(fields: { name: string; email: string; password: string }): Promise<Result<Account>> {
    return this.pick(await this.settle(this.api.POST('/api/auth/admin/register', { body: fields })), (data) => data.admin);
  }
}
