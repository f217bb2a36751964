// Starts the gateway: its public HTTP port and its health port (ready when the services are).
import { AccessTokenVerifier, createLogger, startService, type Logger, type RunningService } from '@acct/shared';
import type { GatewayConfig } from './config';
import { createGatewayHandler } from './gateway-handler';
import { UpstreamClient } from './upstream';

export async function startGateway(config: GatewayConfig, logger: Logger, requestLogger?: Logger): Promise<RunningService> {
  const verifier = AccessTokenVerifier.fromConfig(config);
  const upstreams = {
    auth: new UpstreamClient(config.AUTH_URL, config.UPSTREAM_TIMEOUT_MS),
    desktop: new UpstreamClient(config.DESKTOP_URL, config.UPSTREAM_TIMEOUT_MS),
  };
  const app = createGatewayHandler({ config, logger, requestLogger: requestLogger ?? createLogger({ level: config.LOG_LEVEL, redact: false }), verifier, upstreams });
  return startService({
    name: 'gateway',
    logger,
    host: config.HOST,
    port: config.PORT,
    healthPort: config.HEALTH_PORT,
    app,
    checks: { auth: () => upstreams.auth.reachable(), desktop: () => upstreams.desktop.reachable() },
    closers: [{ name: 'upstreams', close: () => Promise.all(Object.values(upstreams).map((u) => u.close())) }],
  });
}
