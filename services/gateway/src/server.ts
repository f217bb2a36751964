// The gateway's composition root: the token verifier, a connection pool per service, the request
// listener; its public HTTP port and its health port (ready when the services are).
import { AccessTokenVerifier, composeService, createLogger, type Logger, type RunningService } from '@acct/shared';
import type { GatewayConfig } from './config';
import { createGatewayHandler } from './gateway-handler';
import { UpstreamClient } from './upstream';

export async function startGateway(config: GatewayConfig, logger: Logger, requestLogger?: Logger): Promise<RunningService> {
  const verifier = AccessTokenVerifier.fromConfig(config);
  return composeService('gateway', logger, async (open) => {
    const upstreams = await open(
      'upstreams',
      { auth: new UpstreamClient(config.AUTH_URL, config.UPSTREAM_TIMEOUT_MS), desktop: new UpstreamClient(config.DESKTOP_URL, config.UPSTREAM_TIMEOUT_MS) },
      (all) => Promise.all(Object.values(all).map((u) => u.close())),
    );
    return {
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createGatewayHandler({ config, logger, requestLogger: requestLogger ?? createLogger({ level: config.LOG_LEVEL, redact: false }), verifier, upstreams }),
      checks: { auth: () => upstreams.auth.reachable(), desktop: () => upstreams.desktop.reachable() },
    };
  });
}
