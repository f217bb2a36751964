#!/usr/bin/env node
// A desktop app signing in through the browser (OpenID Connect, RFC 8252), then syncing: the way the
// product's desktop client signs in, in one file with no dependencies (Node 20.19+).
//
//   node examples/desktop-sign-in.mjs --issuer http://localhost:8080 --client-id desktop
//
// It reads the provider's discovery document, listens on a loopback port of its own (any port: the
// app is registered with http://127.0.0.1/callback and the provider ignores the port of a loopback
// address), opens the system browser at the authorization endpoint with PKCE (S256), a `state` and a
// `nonce`, and waits. The person signs in on the hosted page (any way in, any second step; a browser
// already signed in is not asked again) and the browser comes back to the loopback address with a
// code. The app checks `state` and `iss` (RFC 9207), exchanges the code, and calls the product API
// with the access token at once. A real app keeps the refresh token in the system's keychain.
//
// Options: --open <command> opens the browser with another program ("none": only print the address);
// --timeout <seconds> (300). Exit status 0 when signed in and synced.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({
  options: { issuer: { type: 'string', default: 'http://localhost:8080' }, 'client-id': { type: 'string', default: 'desktop' }, open: { type: 'string' }, timeout: { type: 'string', default: '300' } },
});
const issuer = options.issuer.replace(/\/+$/, '');
const base64url = (bytes) => Buffer.from(bytes).toString('base64url');

async function main() {
  const discovery = await json(await fetch(`${issuer}/.well-known/openid-configuration`));
  if (discovery.issuer !== issuer) throw new Error(`the discovery document names another issuer: ${discovery.issuer}`);

  // PKCE (RFC 7636, S256), state and nonce: new for every sign-in.
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash('sha256').update(verifier).digest());
  const state = base64url(randomBytes(16));
  const nonce = base64url(randomBytes(16));

  // A loopback listener on a port of the system's choice, on 127.0.0.1 only (RFC 8252 §7.3, §8.3).
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${server.address().port}/callback`;

  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: options['client-id'],
    redirect_uri: redirectUri,
    scope: 'openid profile email offline_access',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    nonce,
  }).toString();
  console.log(`Sign in in your browser. If none opened, open:\n${authorize.href}`);
  openBrowser(authorize.href);

  const callback = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from the browser in time')), Number(options.timeout) * 1000);
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', redirectUri);
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><title>Signed in</title><p>You are signed in. You can close this window and go back to the app.</p>');
      clearTimeout(timer);
      resolve(url.searchParams);
    });
  });
  server.close();

  if (callback.get('state') !== state) throw new Error('the answer is not for this sign-in (state)');
  if (callback.get('iss') !== issuer) throw new Error('the answer is from another issuer (iss)');
  if (callback.get('error')) throw new Error(`the sign-in did not finish: ${callback.get('error')} ${callback.get('error_description') ?? ''}`);

  const tokens = await json(
    await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.get('code') ?? '', redirect_uri: redirectUri, client_id: options['client-id'], code_verifier: verifier }),
    }),
  );
  const idToken = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString('utf8'));
  if (idToken.nonce !== nonce) throw new Error('the ID token is not for this sign-in (nonce)');
  console.log(`Signed in as ${idToken.sub}${tokens.refresh_token ? ' (kept signed in)' : ''}`);

  // The access token is the product API's own: sync at once.
  const synced = await json(
    await fetch(`${issuer}/api/desktop/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: JSON.stringify({ device: { id: 'example-desktop', platform: process.platform === 'win32' ? 'win32' : process.platform === 'darwin' ? 'darwin' : 'linux', appVersion: '1.0.0' }, changes: [] }),
    }),
  );
  console.log(`Synced: cursor ${synced.data.cursor}, ${synced.data.items.length} items`);
}

/** The system browser, or the program --open names; --open none only prints the address. */
function openBrowser(url) {
  if (options.open === 'none') return;
  const [command, ...args] = options.open ? [options.open] : process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['cmd', '/c', 'start', '""'] : ['xdg-open'];
  spawn(command, [...args, url], { stdio: 'ignore', detached: true }).on('error', () => undefined).unref();
}

async function json(res) {
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${body.error ?? body.code ?? ''} ${body.error_description ?? body.message ?? ''}`);
  return body;
}

main().catch((err) => {
  console.error(`Sign-in failed: ${err.message}`);
  process.exit(1);
});
