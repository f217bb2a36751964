// Desktop's part of a user's export, asked of desktop's internal route with the user's own access
// token (desktop checks it as it checks any): no trust between the services beyond what a client has.
// A desktop that does not answer in time makes the export a 503, never a partial one.
import { InternalHeaders, errors } from '@acct/shared';
import type { DesktopData, DesktopExport } from '../domain/ports';

export class DesktopExportClient implements DesktopData {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async exportOf(authorization: string, requestId?: string): Promise<DesktopExport> {
    let res: Response;
    try {
      res = await fetch(new URL('/internal/users/me/export', this.baseUrl), {
        headers: { authorization, ...(requestId ? { [InternalHeaders.requestId]: requestId } : {}) },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw errors.unavailable(err);
    }
    if (res.status !== 200) throw errors.unavailable(new Error(`desktop answered ${res.status}`));
    return ((await res.json()) as { data: DesktopExport }).data;
  }
}
