export { createGatewayHandler, readCookie, parseBytes, type GatewayDeps } from './gateway-handler';
export { gatewaySchema, loadGatewayConfig, type GatewayConfig } from './config';
export { logRequest, loggablePath, levelFor, type Actor } from './request-log';
export { startGateway } from './server';
export { UpstreamClient } from './upstream';
export { ROUTES } from './routes';
