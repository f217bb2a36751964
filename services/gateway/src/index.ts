export { createApp, type GatewayDeps } from './create-app';
export { gatewaySchema, loadGatewayConfig, type GatewayConfig } from './config';
export { requestLog, loggablePath, levelFor, type Actor } from './request-log';
export { startGateway } from './server';
export { UpstreamClient } from './upstream';
export { ROUTES } from './routes';
