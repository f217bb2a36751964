// The internal health endpoint: live while the process runs, ready only when every dependency answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export type ReadinessCheck = () => boolean | Promise<boolean>;

export interface HealthServer {
  server: http.Server;
  port: number;
  /** From now on readiness answers 503 `draining` (liveness stays 200): load balancers stop sending. */
  drain(): void;
  close(): Promise<void>;
}

async function checkReadiness(checks: Record<string, ReadinessCheck>): Promise<Record<string, boolean>> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        return [name, Boolean(await check())] as const;
      } catch {
        return [name, false] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

/** Serves `GET /health/live`, `GET /health/ready` and, with a registry, `GET /metrics` on its own port (0 picks a free one). */
export async function startHealthServer(
  port: number,
  checks: Record<string, ReadinessCheck>,
  host = '127.0.0.1',
  metrics?: Registry,
): Promise<HealthServer> {
  let draining = false;
  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(404, { status: 'not_found' });
    if (req.url === '/health/live') return send(200, { status: 'live' });
    if (req.url === '/metrics' && metrics) {
      try {
        const text = await metrics.metrics();
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(text);
      } catch {
        send(500, { status: 'metrics_failed' });
      }
      return;
    }
    if (req.url === '/health/ready') {
      if (draining) return send(503, { status: 'draining' });
      const results = await checkReadiness(checks);
      const ready = Object.values(results).every(Boolean);
      return send(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks: results });
    }
    return send(404, { status: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    drain: () => void (draining = true),
    close: () => closeServer(server),
  };
}

/** Starts an HTTP server and answers its bound port. */
export async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Stops accepting and lets in-flight requests end; keep-alive sockets are dropped as soon as they
 * are idle, including those whose request was still running when the close began.
 */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
