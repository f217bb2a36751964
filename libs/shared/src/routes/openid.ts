// Where this service as an OpenID provider answers, for the gateway (which forwards these paths to
// auth as they are) and for auth (which routes them to the provider): one list for both.
export const OPENID_PATHS = {
  /** Everything the provider and its interaction answer is under this prefix. */
  prefix: '/oidc',
  /** The discovery document, at the issuer's root (the issuer is the gateway's origin). */
  discovery: '/.well-known/openid-configuration',
  /** The page a CLI or a TV sends its person to, to type the code it shows (RFC 8628): short to type. */
  device: '/device',
} as const;

/** The provider's cookies are named so: the gateway passes these both ways and no other (never a refresh cookie). */
export const OPENID_COOKIE_PREFIX = 'oidc_';

/** Whether the gateway forwards a path to the provider. */
export const isOpenIdPath = (path: string): boolean =>
  path.startsWith(`${OPENID_PATHS.prefix}/`) || path === OPENID_PATHS.discovery || path === OPENID_PATHS.device || path.startsWith(`${OPENID_PATHS.device}/`);
