#!/usr/bin/env node
// `npm run dev:idp`: an OpenID Connect provider on this machine, to try sign-in with a provider
// against `npm start` without registering anywhere. It is oidc-provider (the tests' provider,
// libs/test-harness/src/oidc-idp.mjs) with its development login form, one client for the local
// gateway and one person, `dev-user`, whose address it says is verified. Ctrl-C stops it.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.IDP_PORT ?? 9400);
const gateway = (process.env.GATEWAY_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const client = { client_id: 'account-service-dev', client_secret: 'dev-provider-secret' };
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

const config = {
  port,
  signingKey: { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' },
  clients: [
    {
      ...client,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [`${gateway}/api/auth/user/oidc/dev/callback`, `${gateway}/api/auth/admin/oidc/dev/callback`],
    },
  ],
  accounts: [{ sub: 'dev-user', email: 'dev.user@example.com', email_verified: true, name: 'Dev User' }],
};

const child = spawn(process.execPath, [path.join(root, 'libs/test-harness/src/oidc-idp.mjs')], {
  env: { ...process.env, NODE_ENV: 'development', IDP_CONFIG: JSON.stringify(config) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (chunk) => {
  out += chunk;
  const ready = /IDP_READY \d+ (\S+)/.exec(out);
  if (!ready) return;
  out = '';
  const issuer = ready[1];
  const providers = JSON.stringify([{ id: 'dev', name: 'Dev provider', issuer, clientId: client.client_id }]);
  process.stdout.write(
    [
      `[dev-idp] an OpenID Connect provider at ${issuer} (discovery: ${issuer}/.well-known/openid-configuration)`,
      '[dev-idp] start the stack with it, in another terminal:',
      `  OIDC_PROVIDERS='${providers}' OIDC_CLIENT_SECRETS='{"dev":"${client.client_secret}"}' OIDC_REDIRECT_URL_BASE=${gateway} npm start`,
      `[dev-idp] then open ${gateway}/api/auth/user/oidc/dev/start in a browser and sign in as dev-user (any password):`,
      '[dev-idp] you land on the first OIDC_APP_URLS page (http://localhost:3000/ by default) signed in, with the refresh cookie set',
      '[dev-idp] Ctrl-C stops it',
      '',
    ].join('\n'),
  );
});
child.on('exit', (code) => process.exit(code ?? 0));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill('SIGTERM'));
