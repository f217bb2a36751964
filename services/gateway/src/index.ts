export { createGatewayHandler, readCookie } from './gateway-handler';
export { gatewaySchema, loadGatewayConfig } from './config';
export { gatewayErrorCatalogue } from './errors';
export { startGateway } from './server';
export { UpstreamClient } from './upstream';
export { ROUTES } from './routes';
