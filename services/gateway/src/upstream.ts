// Forwarding to a service over a keep-alive pool, with a deadline: refused → 503, slow → 504.
import http from 'node:http';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { AppError } from '@acct/shared';

export interface UpstreamAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: http.IncomingMessage;
}

export class UpstreamClient {
  private readonly agent: http.Agent;
  private readonly target: URL;

  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.target = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 512, maxFreeSockets: 64 });
  }

  /** Sends one request; `body` is a buffer or a stream to pipe. */
  request(method: string, path: string, headers: http.OutgoingHttpHeaders, body?: Buffer | Readable): Promise<UpstreamAnswer> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        protocol: this.target.protocol,
        hostname: this.target.hostname,
        port: this.target.port,
        method,
        path,
        headers,
        agent: this.agent,
      });
      const timer = setTimeout(() => {
        req.destroy(new AppError('upstream_timeout', 504, 'Upstream service timed out'));
      }, this.timeoutMs);
      req.once('response', (res) => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: res });
      });
      req.once('error', (err) => {
        clearTimeout(timer);
        if (err instanceof AppError) return reject(err);
        reject(new AppError('service_unavailable', 503, 'Service temporarily unavailable', { cause: err }));
      });
      if (body === undefined) req.end();
      else if (Buffer.isBuffer(body)) req.end(body);
      else {
        // A failing body (the byte cap's 413) destroys the upstream request with its error.
        body.once('error', (err) => req.destroy(err));
        body.pipe(req);
      }
    });
  }

  /** Whether the service accepts connections (the gateway's readiness). */
  reachable(timeoutMs = 500): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = net.connect({ host: this.target.hostname, port: Number(this.target.port || 80) });
      const done = (ok: boolean) => (socket.destroy(), resolve(ok));
      socket.setTimeout(timeoutMs, () => done(false));
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
