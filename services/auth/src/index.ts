export { authSchema, loadAuthConfig, weakenedSettings, type AuthConfig } from './config';
export { authErrorCatalogue } from './errors';
export { startAuth } from './server';
