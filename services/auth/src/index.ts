export { authSchema, loadAuthConfig, weakenedSettings, type AuthConfig } from './config';
export { authErrorCatalogue, identityRedirectErrorTable, identityRedirectErrors } from './errors';
export { startAuth } from './server';
