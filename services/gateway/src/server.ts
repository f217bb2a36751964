// The gateway's composition root: the token verifier, a connection pool per service, the request
// listener; its public HTTP port and its health port. Readiness is the process's own: an outage of
// auth or desktop answers 503 per request, and never takes every gateway replica out of rotation.
import { AccessTokenVerifier, composeService, isWidgetKind, createLogger, createRegistry, httpMetrics, type Logger, type RunningService } from '@acct/shared';
import { openRevocationFeed } from '@acct/shared/redis';
import { loadLanguages, type Languages } from '@acct/shared/languages';
import { browserCookieWarnings, type GatewayConfig } from './config';
import { createGatewayHandler } from './gateway-handler';
import { upstreamMetrics } from './metrics';
import { defaultPagesDir, Pages } from './pages';
import { RevocationEvents } from './revocation-events';
import { helmetHeaders } from './security-headers';
import { UpstreamClient } from './upstream';

export async function startGateway(config: GatewayConfig, logger: Logger, requestLogger?: Logger): Promise<RunningService> {
  const verifier = AccessTokenVerifier.fromConfig(config);
  for (const warning of browserCookieWarnings(config)) logger.warn(warning);
  const languages = openLanguages(config, logger);
  const pages = openPages(config, languages, logger);
  return composeService('gateway', logger, async (open) => {
    const registry = createRegistry('gateway');
    // Loaded before the gateway answers; past its bound without news, a request with an access
    // token on a route that uses one is checked against the stream, and answered 503 while Redis is away.
    // Its entries are kept too when other back ends follow them through the gateway.
    const revocations = await open('revocations', openRevocationFeed(config, logger, { keepEntries: config.REVOCATION_FEED_TOKENS.length > 0 }), (feed) => feed.close());
    revocations.registerMetrics(registry);
    const observe = upstreamMetrics(registry);
    const upstreams = await open(
      'upstreams',
      {
        auth: new UpstreamClient(config.AUTH_URL, config.UPSTREAM_TIMEOUT_MS, observe('auth')),
        desktop: new UpstreamClient(config.DESKTOP_URL, config.UPSTREAM_TIMEOUT_MS, observe('desktop')),
      },
      (all) => Promise.all(Object.values(all).map((u) => u.close())),
    );
    const revocationEvents = new RevocationEvents(revocations, config.REVOCATION_FEED_TOKENS);
    return {
      host: config.HOST,
      port: config.PORT,
      healthPort: config.HEALTH_PORT,
      app: createGatewayHandler({ config, logger, requestLogger: requestLogger ?? createLogger({ level: config.LOG_LEVEL, redact: false, requestId: false }), verifier, revocations, upstreams, pages, languages, revocationEvents, http: httpMetrics(registry) }),
      endLongAnswers: () => revocationEvents.endAll(),
      checks: {},
      metrics: registry,
    };
  });
}

/** The hosted pages, when on; a missing build is said once at start (the API works without it). */
function openPages(config: GatewayConfig, languages: Languages, logger: Logger): Pages | undefined {
  if (config.PAGES === 'off') return undefined;
  const dir = config.PAGES_DIR ?? defaultPagesDir();
  const pages = new Pages(dir, { returnOrigins: config.CORS_ORIGINS, securityHeaders: helmetHeaders().flat(), production: config.NODE_ENV === 'production', supportContact: config.SUPPORT_CONTACT, languages, widget: isWidgetKind(config.BOT_CHECK) ? { kind: config.BOT_CHECK, scriptUrl: config.BOT_CHECK_SCRIPT_URL } : undefined, brand: { productName: config.PRODUCT_NAME, color: config.BRAND_COLOR, dir: config.BRAND_DIR } });
  if (pages.enabled) logger.info({ dir }, 'serving the hosted pages');
  else logger.warn({ dir }, 'the hosted pages are not built there (npm run build makes them; PAGES=off to serve the API alone): /login and /account answer 404');
  return pages.enabled ? pages : undefined;
}

/**
 * The languages the pages speak and a request's is chosen among (LANGUAGES_DIR adds to those shipped).
 * A file that cannot be used stops the start, as any bad setting does; keys a language leaves to
 * English are only said.
 */
export function openLanguages(config: Pick<GatewayConfig, 'LANGUAGES_DIR'>, logger: Logger): Languages {
  const languages = loadLanguages(config.LANGUAGES_DIR);
  for (const code of languages.codes) {
    const missing = languages.missing(code);
    if (missing.length) logger.warn({ language: code, missing: missing.length, first: missing.slice(0, 5) }, 'a language leaves texts to English');
  }
  return languages;
}
