// The desktop service's internal routes, asked with the caller's own access token (desktop checks it
// as it checks any): no trust between the services beyond what a client has. A user's part of their
// export, and the releases admins manage from the console. Desktop's refusals (a 4xx: a bad release,
// one published before) come back to the caller as desktop said them; a desktop that does not answer
// in time, or fails, is a 503, never a partial answer.
import { AppError, InternalHeaders, errors } from '@acct/shared';
import type { DesktopData, DesktopExport, DesktopRelease } from '../domain/account/ports';

export class DesktopClient implements DesktopData {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async exportOf(authorization: string, requestId?: string): Promise<DesktopExport> {
    return (await this.ask('GET', '/internal/users/me/export', authorization, requestId)) as DesktopExport;
  }

  async releases(authorization: string, platform: string | undefined, requestId?: string): Promise<DesktopRelease[]> {
    const query = platform ? `?platform=${encodeURIComponent(platform)}` : '';
    return ((await this.ask('GET', `/internal/admin/releases${query}`, authorization, requestId)) as { releases: DesktopRelease[] }).releases;
  }

  async publishRelease(authorization: string, release: unknown, requestId?: string): Promise<DesktopRelease> {
    return ((await this.ask('POST', '/internal/admin/releases', authorization, requestId, release)) as { release: DesktopRelease }).release;
  }

  async withdrawRelease(authorization: string, platform: string, version: string, requestId?: string): Promise<void> {
    await this.ask('DELETE', `/internal/admin/releases/${encodeURIComponent(platform)}/${encodeURIComponent(version)}`, authorization, requestId);
  }

  private async ask(method: string, path: string, authorization: string, requestId: string | undefined, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          authorization,
          ...(requestId ? { [InternalHeaders.requestId]: requestId } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw errors.unavailable(err);
    }
    const answer = (await res.json().catch(() => undefined)) as { data?: unknown; message?: unknown; code?: unknown; errors?: Record<string, string> } | undefined;
    if (res.status >= 400 && res.status < 500 && typeof answer?.message === 'string' && typeof answer.code === 'string') {
      throw new AppError(answer.code, res.status, answer.message, { errors: answer.errors });
    }
    if (!res.ok || answer === undefined) throw errors.unavailable(new Error(`desktop answered ${res.status}`));
    return answer.data;
  }
}
