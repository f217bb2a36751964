// Refresh with rotating tokens: through the gateway (the cookie), straight to auth as the gateway
// sends it (for tracing's cost to auth alone), and evenly paced at a fixed rate for its latency.
import { randomBytes, randomUUID } from 'node:crypto';
import { measure } from '../lib/load.mjs';
import { measurePaced } from '../lib/paced.mjs';
import { CONNECTIONS } from '../lib/context.mjs';
import { cookieOf, loginSessions } from '../lib/stack.mjs';

/**
 * Refresh under load from a pool of sessions, one per connection, fresh every run (a stopped run
 * drops the tokens of its in-flight requests): `present(token)` gives a request's headers,
 * `rotated(headers)` reads the next token from an answer, which replaces the one it rotated out.
 */
function rotatingRefresh(url, sessions, present, rotated, cpu, align) {
  const prepare = async () => {
    const pool = await sessions();
    return {
      requests: [
        {
          method: 'POST',
          path: '/api/auth/user/refresh',
          setupRequest: (req, context) => {
            context.token = pool.pop();
            return { ...req, headers: { ...req.headers, ...present(context.token) } };
          },
          onResponse: (status, _body, context, headers) => {
            pool.push((status === 200 && rotated(headers)) || context.token);
          },
        },
      ],
    };
  };
  return measure({ url, connections: CONNECTIONS }, { expectStatus: 200, prepare, cpu, align });
}

const headerOf = (headers, name) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

/** Refresh through the gateway, with the refresh cookie. */
export function refreshScenario(gatewayUrl, accounts, cpu, align) {
  return rotatingRefresh(gatewayUrl, () => loginSessions(gatewayUrl, accounts), (cookie) => ({ cookie }), (headers) => cookieOf(headerOf(headers, 'set-cookie')), cpu, align);
}

/**
 * Refresh sent straight to auth the way the gateway sends it: the token in `x-refresh-token`, the
 * next one read from `x-set-refresh-token`, and, for a traced stack, a `traceparent` on every
 * request with 1 in 100 sampled (the gateway's default share). Sessions are opened through the
 * gateway; the measured load leaves it idle. Tracing's cost to auth alone.
 */
export function authRefreshScenario(s, cpu, align) {
  const traceparent = () => `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-${Math.random() < 0.01 ? '01' : '00'}`;
  const sessions = async () => (await loginSessions(s.gatewayUrl, s.accounts)).map((cookie) => cookie.slice(cookie.indexOf('=') + 1));
  const present = (token) => ({
    'x-refresh-token': token,
    'x-client-ip': '127.0.0.1',
    'x-request-id': randomUUID(),
    ...(s.traced ? { traceparent: traceparent() } : {}),
  });
  return rotatingRefresh(s.authUrl, sessions, present, (headers) => headerOf(headers, 'x-set-refresh-token'), cpu, align);
}

/**
 * Refresh at a fixed rate. `prepared`, when given, is called once the sessions of a run are logged in
 * (before the warm-up, then before the measured run), as measurePaced's `prepare` is.
 */
export async function steadyRefreshScenario(gatewayUrl, accounts, rate, cpu, prepared) {
  // Evenly paced (bench/lib/paced.mjs), with the same rotation: a session is lent to one request
  // at a time and comes back with the cookie of the answer.
  let pool = [];
  return measurePaced(
    {
      url: gatewayUrl,
      rate,
      connections: CONNECTIONS,
      cpu,
      prepare: async () => {
        pool = await loginSessions(gatewayUrl, accounts);
        await prepared?.();
      },
      next: () => {
        const cookie = pool.pop();
        return cookie && { method: 'POST', path: '/api/auth/user/refresh', headers: { cookie }, context: cookie };
      },
      onResponse: (status, headers, cookie) => pool.push((status === 200 && cookieOf(headers['set-cookie'])) || cookie),
    },
    200,
  );
}
