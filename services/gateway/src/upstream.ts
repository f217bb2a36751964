// Forwarding to a service over an undici connection pool (keep-alive), with bounds: refused or
// reset → 503, no answer in time → 504. undici's client costs a fraction of node:http's per request,
// which is most of what a proxy hop costs.
import type http from 'node:http';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';
import { AppError, errors } from '@acct/shared';

export interface UpstreamAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Readable;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export class UpstreamClient {
  private readonly pool: Pool;
  private readonly target: URL;

  constructor(
    baseUrl: string,
    timeoutMs: number,
    /** Told how each call ended: answered (whatever its status), timed out, or could not reach the service. */
    private readonly observe?: (outcome: 'answered' | 'timeout' | 'unavailable') => void,
  ) {
    this.target = new URL(baseUrl);
    this.pool = new Pool(this.target.origin, {
      connections: 256,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: Math.min(timeoutMs, 5_000) },
    });
  }

  /** Sends one request; `body` is a buffer or a stream to pipe. */
  async request(method: string, path: string, headers: http.OutgoingHttpHeaders, body?: Buffer | Readable): Promise<UpstreamAnswer> {
    const outgoing: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      // undici frames streamed bodies itself.
      if (value === undefined || name === 'transfer-encoding') continue;
      outgoing[name] = typeof value === 'number' ? String(value) : value;
    }
    try {
      const res = await this.pool.request({ method: method as 'GET', path, headers: outgoing, body });
      this.observe?.('answered');
      return { status: res.statusCode, headers: res.headers as http.IncomingHttpHeaders, body: res.body };
    } catch (err) {
      // A body the client did not finish (413, 408) is the client's, not the service's failure.
      if (err instanceof AppError) throw err;
      const code = (err as { code?: string }).code ?? '';
      if (TIMEOUT_CODES.has(code)) {
        this.observe?.('timeout');
        throw errors.upstreamTimeout(err);
      }
      this.observe?.('unavailable');
      throw errors.unavailable(err);
    }
  }

  /** Whether the service accepts connections (the gateway's readiness). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
