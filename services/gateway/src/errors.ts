// The gateway's error catalogue: the base codes alone. The gateway answers only what it decides
// itself (404, 408, 413, 503, 504); every other answer is the service's, passed through.
import { errorCatalogue } from '@acct/shared';

export const gatewayErrorCatalogue = errorCatalogue({});
