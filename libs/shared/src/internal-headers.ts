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
  /** Inbound, on an identity provider's callback: the secret of the browser's flow cookie. */
  identityFlow: 'x-identity-flow',
  /** Outbound, on starting a sign-in with a provider: a flow cookie secret, and its lifetime (seconds). */
  setIdentityFlow: 'x-set-identity-flow',
  identityFlowMaxAge: 'x-identity-flow-max-age',
  /** Outbound, on the callback: the flow cookie is spent. */
  clearIdentityFlow: 'x-clear-identity-flow',
} as const;
