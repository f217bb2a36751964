export { createApp, type AuthDeps } from './create-app';
export { authSchema, loadAuthConfig, type AuthConfig } from './config';
export { startAuth } from './server';
