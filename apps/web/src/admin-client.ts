// The admin console's part of the typed client: the admin routes of the public API, as results.
// Acts that cannot be undone answer `step_up_required` until the admin proves themselves again
// (`reauthenticate`), as the account console's factor changes do.
import { AccountClient, type Account, type ActivityEntry, type ClientOptions, type Result, type Session } from './client';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface UserFactors {
  totp: boolean;
  passkeys: number;
  /** The names the user gave their passkeys, with when each was added and last used. */
  passkeyList: Array<{ name: string; createdAt: string; lastUsedAt: string | null }>;
  recoveryCodesLeft: number;
}

export type Platform = 'win32' | 'darwin' | 'linux';

export interface DesktopRelease {
  platform: Platform;
  version: string;
  url: string;
  sha256: string;
  notes: string;
  mandatory: boolean;
  publishedAt: string;
  withdrawnAt: string | null;
}

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

const query = (params: Record<string, string | undefined>) => {
  const search = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => Boolean(e[1])));
  const text = search.toString();
  return text ? `?${text}` : '';
};

export class AdminClient extends AccountClient {
  constructor(options: Omit<ClientOptions, 'kind'> = {}) {
    super({ ...options, kind: 'admin' });
  }

  async users(params: UserFilter & { cursor?: string; limit?: number }): Promise<Result<Page<Account>>> {
    const flag = (value?: boolean) => (value === undefined ? undefined : String(value));
    const answer = await this.authorized(
      'GET',
      `/api/admin/users${query({ query: params.query, cursor: params.cursor, limit: params.limit ? String(params.limit) : undefined, emailVerified: flag(params.emailVerified), disabled: flag(params.disabled) })}`,
    );
    return answer.ok ? { ...answer, data: { items: answer.data.users as Account[], nextCursor: answer.data.nextCursor as string | null } } : answer;
  }

  async user(id: string): Promise<Result<Account>> {
    const answer = await this.authorized('GET', `/api/admin/users/${encodeURIComponent(id)}`);
    return answer.ok ? { ...answer, data: answer.data.user as Account } : answer;
  }

  async updateUser(id: string, changes: { name?: string; email?: string; disabled?: boolean; password?: string }): Promise<Result<Account>> {
    const answer = await this.authorized('PUT', `/api/admin/users/${encodeURIComponent(id)}`, changes);
    return answer.ok ? { ...answer, data: answer.data.user as Account } : answer;
  }

  deleteUser(id: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/admin/users/${encodeURIComponent(id)}`);
  }

  async userFactors(id: string): Promise<Result<UserFactors>> {
    const answer = await this.authorized('GET', `/api/admin/users/${encodeURIComponent(id)}/factors`);
    return answer.ok ? { ...answer, data: answer.data.factors as UserFactors } : answer;
  }

  resetFactors(id: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/admin/users/${encodeURIComponent(id)}/factors`);
  }

  async userSessions(id: string): Promise<Result<Session[]>> {
    const answer = await this.authorized('GET', `/api/admin/users/${encodeURIComponent(id)}/sessions`);
    return answer.ok ? { ...answer, data: answer.data.sessions as Session[] } : answer;
  }

  endUserSession(id: string, sessionId: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/admin/users/${encodeURIComponent(id)}/sessions/${encodeURIComponent(sessionId)}`);
  }

  endUserSessions(id: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/admin/users/${encodeURIComponent(id)}/sessions`);
  }

  async userIdentities(id: string): Promise<Result<Array<{ provider: string; name: string; email: string | null; linkedAt: string }>>> {
    const answer = await this.authorized('GET', `/api/admin/users/${encodeURIComponent(id)}/identities`);
    return answer.ok ? { ...answer, data: answer.data.identities as Array<{ provider: string; name: string; email: string | null; linkedAt: string }> } : answer;
  }

  unlinkUserIdentity(id: string, provider: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/admin/users/${encodeURIComponent(id)}/identities/${encodeURIComponent(provider)}`);
  }

  /** A user's activity, or (without `userId`) the deployment's log, filtered. */
  async activityLog(filter: ActivityFilter & { userId?: string }, cursor?: string): Promise<Result<Page<ActivityEntry>>> {
    const path = filter.userId ? `/api/admin/users/${encodeURIComponent(filter.userId)}/activity` : '/api/admin/activity';
    const answer = await this.authorized(
      'GET',
      `${path}${query({ kind: filter.userId ? undefined : filter.kind, accountId: filter.userId ? undefined : filter.accountId, type: filter.type, actorId: filter.actorId, cursor, limit: '20' })}`,
    );
    return answer.ok ? { ...answer, data: { items: answer.data.activity as ActivityEntry[], nextCursor: answer.data.nextCursor as string | null } } : answer;
  }

  async admins(cursor?: string): Promise<Result<Page<Account>>> {
    const answer = await this.authorized('GET', `/api/admin/admins${query({ cursor })}`);
    return answer.ok ? { ...answer, data: { items: answer.data.admins as Account[], nextCursor: answer.data.nextCursor as string | null } } : answer;
  }

  async releases(): Promise<Result<DesktopRelease[]>> {
    const answer = await this.authorized('GET', '/api/admin/desktop/releases');
    return answer.ok ? { ...answer, data: answer.data.releases as DesktopRelease[] } : answer;
  }

  /** Needs a recent proof: `step_up_required` until the admin confirms it is them. */
  async publishRelease(release: Omit<DesktopRelease, 'publishedAt' | 'withdrawnAt'>): Promise<Result<DesktopRelease>> {
    const answer = await this.authorized('POST', '/api/admin/desktop/releases', release);
    return answer.ok ? { ...answer, data: answer.data.release as DesktopRelease } : answer;
  }

  /** Needs a recent proof, as publishing does. */
  withdrawRelease(platform: Platform, version: string): Promise<Result<unknown>> {
    return this.authorized('DELETE', `/api/admin/desktop/releases/${encodeURIComponent(platform)}/${encodeURIComponent(version)}`);
  }

  /** Creates another admin account (an admin's session grants it). */
  async inviteAdmin(fields: { name: string; email: string; password: string }): Promise<Result<Account>> {
    const answer = await this.authorized('POST', '/api/auth/admin/register', fields);
    return answer.ok ? { ...answer, data: answer.data.admin as Account } : answer;
  }
}
