// A real identity provider for the tests: oidc-provider in a child process on a loopback port
// (oidc-idp.mjs), with an RSA signing key made here so that a test can also sign ID tokens of
// its own with the provider's key, each wrong in one claim only, and have the provider hand one out.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { stopChild } from './processes';

export interface TestClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'none';
}

export interface TestIdentityProvider {
  issuer: string;
  port: number;
  /** `email_verified` as the provider is to say it: left out when undefined, any JSON value otherwise. */
  addAccount(account: { sub: string; email?: string; email_verified?: unknown; name?: string }): Promise<void>;
  /** The next token answer carries this ID token instead of the provider's own. */
  replaceNextIdToken(idToken: string): Promise<void>;
  /** An ID token signed with the provider's own key (or `otherKey`), with exactly the claims given. */
  signIdToken(claims: Record<string, unknown>, options?: { otherKey?: boolean }): string;
  stop(): Promise<void>;
}

/**
 * `stock`: oidc-provider's own defaults for claims, where the ID token carries only `sub` and the
 * profile and email claims come from userinfo; otherwise they are in the ID token too (Google's way).
 */
export async function startIdentityProvider(options: { clients: TestClient[]; port?: number; stock?: boolean }): Promise<TestIdentityProvider> {
  const kid = randomUUID();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // A key of nobody's, made when a test first signs with it: an RSA key took 130 to 340 ms of CPU here.
  let other: ReturnType<typeof generateKeyPairSync>['privateKey'] | undefined;
  const otherKey = () => (other ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const clients = options.clients.map((c) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: c.client_secret ? 'client_secret_basic' : 'none',
    ...c,
  }));
  const child = spawn(process.execPath, [path.join(__dirname, 'oidc-idp.mjs')], {
    env: { ...process.env, NODE_ENV: 'development', DEBUG: '', IDP_CONFIG: JSON.stringify({ clients, signingKey, port: options.port, stock: options.stock === true }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { port, issuer } = await ready(child);
  const control = async (what: string, body: unknown) => {
    const res = await fetch(`${issuer}/__test/${what}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`identity provider control ${what}: ${res.status}`);
  };
  return {
    issuer,
    port,
    addAccount: (account) => control('accounts', account),
    replaceNextIdToken: (idToken) => control('next-id-token', { idToken }),
    signIdToken: (claims, signOptions = {}) =>
      jwt.sign(claims, (signOptions.otherKey ? otherKey() : privateKey).export({ format: 'pem', type: 'pkcs8' }), { algorithm: 'RS256', keyid: kid }),
    stop: () => stopChild(child),
  };
}

function ready(child: ChildProcess): Promise<{ port: number; issuer: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`identity provider did not start in 15 s: ${err}`)), 15_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /IDP_READY (\d+) (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), issuer: match[2] });
      }
    });
    child.once('exit', (code) => fail(new Error(`identity provider exited (${code}): ${err}`)));
  });
}
