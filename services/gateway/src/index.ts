export { createGatewayHandler } from './gateway-handler';
export { readCookie } from './refresh-cookie-bridge';
export { browserCookieWarnings, gatewaySchema, loadGatewayConfig } from './config';
export { gatewayErrorCatalogue } from './errors';
export { startGateway } from './server';
export { UpstreamClient } from './upstream';
export { ROUTES } from '@acct/shared/routes';
export { Pages, pagesPolicy } from './pages';
export { helmetHeaders } from './security-headers';
