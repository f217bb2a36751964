// The gateway's error catalogue: the base codes plus what the gateway alone decides. The gateway
// answers only what it decides itself (404, 403 cross-site, 408, 413, 503, 504); every other answer
// is the service's, passed through.
import { errorCatalogue } from '@acct/shared';

export const gatewayErrorCatalogue = errorCatalogue({
  cross_site_request: {
    status: 403,
    meaning: 'A request that uses the refresh cookie (refresh, logout) came from a page of another site, neither the API\'s own origin nor one in `CORS_ORIGINS`: refused, so no other site can sign a user out or spend their session.',
  },
});

export const GatewayErrors = {
  crossSite: () => gatewayErrorCatalogue.error('cross_site_request', 'Cross-site request refused'),
};
