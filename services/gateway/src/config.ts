// Gateway configuration: the public port, where the services are, and how much to trust proxies.
import { z } from 'zod';
import { accessTokenVerifyEnv, configFragments, env, isLocalUrl, isProduction, loadConfig, readSecrets, splitList, type ConfigRule } from '@acct/shared';

export const gatewaySchema = z.object({
  ...configFragments.service({ host: '0.0.0.0', healthPort: 9080 }),
  PORT: env.port(8080),
  /** Which proxies' X-Forwarded-For to believe, as express's `trust proxy` setting reads it: false (default: ignored), a hop count, or a list of addresses. */
  TRUST_PROXY: env.trustProxy(),
  AUTH_URL: env.url('http://127.0.0.1:3001'),
  DESKTOP_URL: env.url('http://127.0.0.1:3002'),
  UPSTREAM_TIMEOUT_MS: env.int(10_000, 100),
  /**
   * The longest the gateway answers a public, cacheable answer (the version check) from memory
   * instead of asking the service again; never past the answer's own max-age. 0: never.
   */
  PUBLIC_CACHE_MS: env.int(1_000, 0),
  /** How long a client may take to send a request body (408 past it); node's own bound is 300 s. */
  BODY_TIMEOUT_MS: env.int(20_000, 100),
  ...configFragments.body(),
  /**
   * Browser origins allowed to call the API with credentials, comma-separated, each exactly
   * scheme://host[:port] (no path, no wildcard). Empty: no CORS answer at all.
   */
  CORS_ORIGINS: env.list([], { test: (o) => /^https?:\/\/[^/\s*]+$/.test(o), expected: 'origins such as https://admin.example.com' }),
  /** The URL browsers reach the API at (optional): at start, production then warns of cookies that browsers would drop. */
  PUBLIC_URL: z.string().url().optional(),
  /** Who a person turns to, shown by the hosted pages where they cannot help themselves (a disabled account): an address or a URL. */
  SUPPORT_CONTACT: z.string().max(200).optional(),
  /** The product's name on the hosted pages (the notifier's mails read the same variable). Unset: "Account". */
  PRODUCT_NAME: z.string().trim().min(1).max(60).optional(),
  /** The pages' accent colour (buttons, links), `#rrggbb`; white text on it must read (a contrast of 4.5:1 or more). */
  BRAND_COLOR: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'expected a colour as #rrggbb')
    .refine((c) => contrastWithWhite(c) >= 4.5, (c) => ({ message: `white text on ${c} reads at ${contrastWithWhite(c).toFixed(2)}:1; choose a darker colour (4.5:1 at least)` }))
    .optional(),
  /** A folder of the pages' brand: `logo.svg` or `logo.png` (shown in every page's header) and `brand.css` (added after the pages' own styles). */
  BRAND_DIR: z.string().min(1).optional(),
  /** A folder of the deployment's language files (`<code>.json`, as libs/shared/locales/en.json): each adds a language to the pages and the mails, or rewords a shipped one; the notifier and auth read the same folder. */
  LANGUAGES_DIR: z.string().min(1).optional(),
  /** Auth's bot check (BOT_CHECK, read here too): with a third-party widget (turnstile, hcaptcha) the pages' policy lets its script and frames in. */
  BOT_CHECK: z.enum(['off', 'altcha', 'turnstile', 'hcaptcha']).default('off'),
  /** The widget's script when another address serves it (BOT_CHECK_SCRIPT_URL, read by auth too): the policy lets in its origin instead of the vendor's. */
  BOT_CHECK_SCRIPT_URL: z.string().url().optional(),
  /** The hosted pages (sign-in, the mailed links' pages, the account console): on, or off for an API alone. */
  PAGES: z.enum(['on', 'off']).default('on'),
  /** Where the pages' build is (npm run build makes apps/web/dist, the default; the gateway image has it there too). */
  PAGES_DIR: z.string().min(1).optional(),
  /** Largest avatar upload body (the file itself is capped at 2 MiB by auth). */
  UPLOAD_LIMIT_BYTES: env.int(3 * 1024 * 1024, 1024),
  ...configFragments.revocations(),
  /**
   * Credentials of other back ends that follow the revocation feed at GET /api/revocations
   * (libs/verifier), comma-separated, each at least 32 characters (openssl rand -hex 32). Empty: the
   * route answers 404.
   */
  REVOCATION_FEED_TOKENS: env.list([], { test: (t) => /^[\x21-\x7e]{32,}$/.test(t) && !t.includes(','), expected: 'random tokens of at least 32 printable characters (openssl rand -hex 32)' }),
  ...accessTokenVerifyEnv,
});

const gatewayConfig = gatewaySchema.transform(readSecrets('JWT_PUBLIC_KEY'));

/**
 * Production refuses trusting every proxy (any client could then pick the address its limits are
 * counted by) and browser origins that are plain http or this machine.
 */
const productionRules: ConfigRule = (given) => {
  if (!isProduction(given)) return [];
  const refused: Array<[string, string]> = [];
  if (given.TRUST_PROXY?.trim() === 'true') refused.push(['TRUST_PROXY', 'true trusts every X-Forwarded-For, so any client picks its own address; in production name the hop count or the proxies\' addresses']);
  const unsafe = splitList(given.CORS_ORIGINS ?? '').filter((o) => !/^https:\/\//i.test(o) || isLocalUrl(o));
  if (unsafe.length) refused.push(['CORS_ORIGINS', `in production every origin must be https and public (refused: ${unsafe.join(', ')})`]);
  return refused;
};

/**
 * What production would get wrong with browsers, said at start: refresh cookies are Secure, so over
 * plain http to a host other than this machine a browser never stores them; and a listed origin on
 * another site than the API makes the cookie third-party, which browsers that block those never send.
 * Sites are compared by their last two labels (no public-suffix list).
 */
export function browserCookieWarnings(config: { NODE_ENV: string; PUBLIC_URL?: string; CORS_ORIGINS: string[]; TRUST_PROXY?: unknown }): string[] {
  if (config.NODE_ENV !== 'production') return [];
  if (!config.PUBLIC_URL) {
    // The cookie routes compare the page's whole origin with the API's (cross-site.ts): behind a TLS proxy the gateway must learn the scheme.
    return config.TRUST_PROXY === false || config.TRUST_PROXY === undefined
      ? ['Neither PUBLIC_URL nor TRUST_PROXY is set: behind a proxy that ends TLS, the hosted pages\' refresh and logout are refused as cross-site (the page is https, the connection http); set PUBLIC_URL to the https URL browsers use']
      : [];
  }
  const api = new URL(config.PUBLIC_URL);
  const warnings: string[] = [];
  if (api.protocol === 'http:' && !isLocalUrl(config.PUBLIC_URL)) {
    warnings.push(`PUBLIC_URL ${api.origin} is plain http: production refresh cookies are Secure, and browsers will not store them; serve the API over HTTPS`);
  }
  const site = (host: string) => host.split('.').slice(-2).join('.');
  for (const origin of config.CORS_ORIGINS) {
    if (site(new URL(origin).hostname) !== site(api.hostname)) {
      warnings.push(`CORS_ORIGINS ${origin} is not on the API's site (${site(api.hostname)}): the refresh cookie is third-party there, and browsers that block those will not send it; serve app and API on one site`);
    }
  }
  return warnings;
}

export type GatewayConfig = z.infer<typeof gatewayConfig>;

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(gatewayConfig, source, [productionRules]);

/** WCAG's contrast ratio of white text on a `#rrggbb` colour. */
export function contrastWithWhite(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return 1.05 / (luminance + 0.05);
}
