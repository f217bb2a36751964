// Test data: unique, valid accounts, and an account registered and signed in through a stack's gateway.
import { Secret, TOTP } from 'otpauth';
import { call, cookieValue } from './http-client';

let counter = 0;
/** Unique, valid registration input; override any field. */
export function buildAccount(overrides: Partial<{ name: string; email: string; password: string }> = {}) {
  counter++;
  return {
    name: `Tester ${counter}`,
    email: `t${counter}.${Math.random().toString(36).slice(2, 8)}@example.com`,
    password: 'correct horse battery',
    ...overrides,
  };
}

/** Registers a user and logs in; answers the account input, access token and refresh cookie value. */
export async function registerAndLogin(stack: { url: string }, kind: 'user' | 'admin' = 'user', headers: Record<string, string> = {}) {
  const account = buildAccount();
  const registered = await call(stack.url, 'POST', `/api/auth/${kind}/register`, { body: account, headers });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${registered.text}`);
  const login = await call(stack.url, 'POST', `/api/auth/${kind}/login`, { body: { email: account.email, password: account.password } });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  const cookieName = kind === 'admin' ? 'adminRefreshToken' : 'userRefreshToken';
  return {
    account,
    id: login.body.data?.[kind]?.id as string,
    accessToken: login.body.data?.accessToken as string,
    refresh: cookieValue(login.setCookies, cookieName) as string,
    login,
  };
}

/**
 * Sets up an authenticator app on a signed-in account through the API, and answers its code at a
 * moment (offsetMs from now). No wait for a step's edge: the service accepts a code one step either
 * side of its own, and the step the confirmation used is never newer than `code(30_000)`'s.
 */
export async function enableAuthenticatorApp(stack: { url: string }, accessToken: string, kind: 'user' | 'admin' = 'user'): Promise<(offsetMs?: number) => string> {
  const headers = { authorization: `Bearer ${accessToken}` };
  const started = await call(stack.url, 'POST', `/api/auth/${kind}/factors/totp`, { headers });
  if (started.status !== 200) throw new Error(`factors/totp answered ${started.status}: ${started.text}`);
  const secret = Secret.fromBase32(started.body.data.secret);
  const code = (offsetMs = 0) => new TOTP({ secret }).generate({ timestamp: Date.now() + offsetMs });
  const confirmed = await call(stack.url, 'POST', `/api/auth/${kind}/factors/totp/confirm`, { headers, body: { code: code() } });
  if (confirmed.status !== 200) throw new Error(`factors/totp/confirm answered ${confirmed.status}: ${confirmed.text}`);
  return code;
}
