// A real OpenID Connect provider for the tests: oidc-provider (certified) on a loopback port, with
// its development login and consent forms, the accounts the test registers, and the signing key the
// test gave it (so a test can sign an ID token that is wrong in one claim only, which the provider
// then hands out once in place of its own). Started by oidc-provider.ts; never shipped.
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.IDP_CONFIG ?? '{}');
// People who may sign in from the start (scripts/dev-idp.mjs); a test adds its own through /__test/accounts.
const accounts = new Map((config.accounts ?? []).map(({ sub, ...claims }) => [sub, claims]));
let nextIdToken;

const server = http.createServer();
await new Promise((resolve) => server.listen(config.port ?? 0, '127.0.0.1', resolve));
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: config.clients,
  jwks: { keys: [config.signingKey] },
  cookies: { keys: ['test-identity-provider-cookie-key'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // Claims of the granted scopes in the ID token itself, as Google, Microsoft and Keycloak do; a
  // `stock` provider keeps oidc-provider's default (only through userinfo).
  conformIdTokenClaims: config.stock === true,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, sub) {
    const account = accounts.get(sub);
    if (!account) return undefined;
    return { accountId: sub, claims: async () => ({ sub, ...account }) };
  },
});
// The development forms warn at every start; the tests know.
provider.on('server_error', (_ctx, err) => console.error('idp server_error', err));

// The next token answer carries the test's ID token instead of the provider's own.
provider.use(async (ctx, next) => {
  await next();
  if (ctx.path === '/token' && nextIdToken && ctx.body && typeof ctx.body === 'object' && ctx.body.id_token) {
    ctx.body = { ...ctx.body, id_token: nextIdToken };
    nextIdToken = undefined;
  }
});

const handle = provider.callback();
server.on('request', (req, res) => {
  if (!req.url.startsWith('/__test/')) return handle(req, res);
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const input = body ? JSON.parse(body) : {};
    if (req.url === '/__test/accounts') accounts.set(input.sub, { email: input.email, email_verified: input.email_verified, name: input.name });
    else if (req.url === '/__test/next-id-token') nextIdToken = input.idToken;
    else {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(204).end();
  });
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.stdout.write(`IDP_READY ${port} ${issuer}\n`);
