// Headers between the gateway and the services: the gateway always overwrites the inbound ones and
// strips the outbound ones, so a client can neither send nor see them.
export const InternalHeaders = {
  /** Client address as the gateway resolved it. */
  clientIp: 'x-client-ip',
  requestId: 'x-request-id',
  /**
   * Inbound: how long (ms) the gateway waits for this answer from the moment it sent the request;
   * past it the gateway has answered 504, and the service commits nothing more for the request.
   */
  requestBudget: 'x-request-budget-ms',
  /** Inbound: the refresh token the gateway read from the kind's cookie. */
  refreshToken: 'x-refresh-token',
  /** Outbound: a new refresh token for the gateway to put in the kind's cookie. */
  setRefreshToken: 'x-set-refresh-token',
  /** Outbound, with the token: how long the cookie lives (seconds), the session policy's idle lifetime. */
  refreshTokenMaxAge: 'x-refresh-token-max-age',
  /** Outbound, with the token, on a route whose answer decides it (verify-otp): the kind whose cookie it goes in. */
  refreshTokenKind: 'x-refresh-token-kind',
  /** Outbound: the gateway must clear the kind's cookie. */
  clearRefreshToken: 'x-clear-refresh-token',
  /** Inbound, on a route that ends a browser-bound flow (a provider's callback, an email sign-in's link): the browser's flow cookie. */
  browserFlow: 'x-browser-flow',
  /** Outbound, on a route that starts one (a sign-in with a provider, or by email): the flow cookie's value, and its lifetime (seconds). */
  setBrowserFlow: 'x-set-browser-flow',
  browserFlowMaxAge: 'x-browser-flow-max-age',
  /** Outbound, on its end: the flow cookie is spent. */
  clearBrowserFlow: 'x-clear-browser-flow',
  /** Inbound, on a login: the kind's trusted-browser cookie. */
  trustedBrowser: 'x-trusted-browser',
  /** Outbound, on a second step the person asked to trust this browser at: the cookie's value, and its lifetime (seconds). */
  setTrustedBrowser: 'x-set-trusted-browser',
  trustedBrowserMaxAge: 'x-trusted-browser-max-age',
  /** Inbound: the language the gateway chose for the request (its switch's cookie, else Accept-Language, among those offered). */
  language: 'x-language',
} as const;
