export { createApp } from './create-app';
export { authSchema, loadAuthConfig, type AuthConfig } from './config';
export { startAuth } from './server';
export { buildDomain } from './domain-factory';
export { FORGOT_PASSWORD_MESSAGE } from './entry-points/http/account-router';
