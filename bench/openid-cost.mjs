#!/usr/bin/env node
// What this service as an OpenID provider costs, against the product's own refresh in the same run:
// starts the stack as `npm start` does with OPENID_PROVIDER on and one first-party app, signs a user
// in to it over and over (the authorization request, the page's approval, the provider's answer),
// then measures, each for a bounded time with the same concurrency, a code exchange, a provider
// refresh (rotating), the product's refresh (rotating), and discovery and the key set (from memory).
// Each line: requests a second, latency p50/p99, and requests per CPU-second of the stack's processes.
//
//   npm run build && node bench/openid-cost.mjs        (BENCH_CONNECTIONS, BENCH_OPENID_SECONDS, BCRYPT_COST)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS, root, say } from './lib/context.mjs';
import { cookieOf, post, stackCpu, startStack } from './lib/stack.mjs';

const SECONDS = Number(process.env.BENCH_OPENID_SECONDS ?? 10);
const APP = { id: 'bench', name: 'Bench', firstParty: true, native: true, redirectUris: ['http://127.0.0.1/callback'] };
const REDIRECT = 'http://127.0.0.1:5555/callback';

/** A browser's provider cookies, by name. */
class Jar {
  cookies = new Map();
  header() {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
  keep(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  }
}

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
async function pkce() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

/** One sign-in to the app through the provider, as the page does it: answers the code and its verifier. */
async function signIn(gatewayUrl, discovery, accessToken) {
  const jar = new Jar();
  const { verifier, challenge } = await pkce();
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({ response_type: 'code', client_id: APP.id, redirect_uri: REDIRECT, scope: 'openid offline_access', code_challenge: challenge, code_challenge_method: 'S256', state: 's', prompt: 'consent' });
  const toInteraction = jar.keep(await fetch(url, { redirect: 'manual' }));
  const uid = /\/oidc\/interaction\/([\w-]+)$/.exec(toInteraction.headers.get('location') ?? '')?.[1];
  if (!uid) throw new Error(`the authorization request answered ${toInteraction.status}`);
  const approved = jar.keep(
    await fetch(`${gatewayUrl}/oidc/interaction/${uid}/login`, { method: 'POST', headers: { cookie: jar.header(), authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: '{}' }),
  );
  const { data } = await approved.json();
  const back = await fetch(data.redirectTo.replace(discovery.issuer, gatewayUrl), { redirect: 'manual', headers: { cookie: jar.header() } });
  const code = new URL(back.headers.get('location')).searchParams.get('code');
  if (!code) throw new Error(`the provider answered ${back.status} without a code`);
  return { code, verifier };
}

const form = (fields) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

/**
 * Runs `step` from `CONNECTIONS` loops for `seconds` (or until `supply` runs dry): requests a second,
 * latency percentiles, and requests per CPU-second of the stack's processes over the same time.
 */
async function timed(name, cpu, step, seconds = SECONDS) {
  const latencies = [];
  let failures = 0;
  const before = cpu();
  const startedAt = performance.now();
  const stopAt = startedAt + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, lane) => {
      while (performance.now() < stopAt) {
        const t = performance.now();
        const outcome = await step(lane).catch((err) => err);
        if (outcome === 'done') return;
        if (outcome instanceof Error || outcome === false) failures++;
        else latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - startedAt) / 1000;
  const after = cpu();
  const cpuSeconds = Object.keys(after).reduce((sum, k) => sum + (after[k] - (before[k] ?? 0)), 0);
  latencies.sort((a, b) => a - b);
  const pct = (p) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0) * 10) / 10;
  const result = {
    requests: latencies.length,
    failures,
    requestsPerSecond: Math.round(latencies.length / elapsed),
    p50Ms: pct(50),
    p99Ms: pct(99),
    perCpuSecond: cpuSeconds > 0 ? Math.round(latencies.length / cpuSeconds) : null,
  };
  say(`${name}: ${JSON.stringify(result)}`);
  return result;
}

async function main() {
  say(`node ${process.version}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'cpu unknown'}; ${CONNECTIONS} connections, ${SECONDS} s a scenario`);
  // Every sign-in below is a session: the cap per account (10 by default) would end the earlier ones
  // as the later ones open, and each run would measure the evictions.
  // Every sign-in comes from this one address: its limit on starting them (60 a minute) is lifted, as
  // the sessions' cap per account is, so the run measures the provider and not the limits.
  const stack = await startStack(root, 'openid', { OPENID_PROVIDER: 'true', OPENID_CLIENTS: JSON.stringify([APP]), SESSION_MAX_PER_ACCOUNT: '1000000', RATE_OPENID_START_IP_PER_MINUTE: '1000000' });
  const gatewayUrl = stack.gatewayUrl;
  const cpu = stackCpu(stack);
  const results = {};
  try {
    const discovery = await (await fetch(`${gatewayUrl}/.well-known/openid-configuration`)).json();
    const token = discovery.token_endpoint.replace(discovery.issuer, gatewayUrl);
    // One account a lane, each signed in once to the pages (the page's access token approves).
    const accounts = Array.from({ length: CONNECTIONS }, (_, i) => ({ name: 'Bench', email: `bench-openid-${Date.now()}-${i}@example.com`, password: 'bench password 1' }));
    const accessTokens = [];
    for (const account of accounts) {
      await post(`${gatewayUrl}/api/auth/user/register`, account);
      accessTokens.push((await post(`${gatewayUrl}/api/auth/user/login`, { email: account.email, password: account.password })).body.data.accessToken);
    }

    // A sign-in through the provider (request, approval, answer): what each code below cost to get.
    const codes = [];
    results.signIn = await timed('sign-in through the provider (3 requests)', cpu, async (lane) => {
      codes.push(await signIn(gatewayUrl, discovery, accessTokens[lane]));
    });
    const refreshTokens = [];
    let next = 0;
    results.codeExchange = await timed('code exchange', cpu, async () => {
      const held = codes[next++];
      if (!held) return 'done';
      const res = await fetch(token, form({ grant_type: 'authorization_code', code: held.code, code_verifier: held.verifier, redirect_uri: REDIRECT, client_id: APP.id }));
      const body = await res.json();
      if (res.status !== 200) return false;
      refreshTokens.push(body.refresh_token);
    });
    // One rotating chain per lane, as an app refreshes its own.
    const chains = refreshTokens.slice(0, CONNECTIONS);
    results.providerRefresh = await timed('provider refresh (rotating)', cpu, async (lane) => {
      const res = await fetch(token, form({ grant_type: 'refresh_token', refresh_token: chains[lane], client_id: APP.id }));
      const body = await res.json();
      if (res.status !== 200) return false;
      chains[lane] = body.refresh_token;
    });
    // The product's own refresh, same lanes, same run.
    const cookies = [];
    for (const account of accounts) cookies.push(cookieOf((await post(`${gatewayUrl}/api/auth/user/login`, { email: account.email, password: account.password })).cookies));
    results.productRefresh = await timed('product refresh (rotating)', cpu, async (lane) => {
      const res = await fetch(`${gatewayUrl}/api/auth/user/refresh`, { method: 'POST', headers: { cookie: cookies[lane] } });
      await res.arrayBuffer();
      if (res.status !== 200) return false;
      cookies[lane] = cookieOf(res.headers.getSetCookie());
    });
    results.discovery = await timed('discovery', cpu, async () => {
      const res = await fetch(`${gatewayUrl}/.well-known/openid-configuration`);
      await res.arrayBuffer();
      return res.status === 200;
    });
    results.keySet = await timed('key set', cpu, async () => {
      const res = await fetch(`${gatewayUrl}/.well-known/jwks.json`);
      await res.arrayBuffer();
      return res.status === 200;
    });
    // A scenario that failed requests measured something else (a limit, an outage): the run says so and fails.
    const failed = Object.entries(results).filter(([, r]) => r.failures > 0);
    if (failed.length) throw new Error(`requests failed in ${failed.map(([name, r]) => `${name} (${r.failures})`).join(', ')}: these figures are not the provider's`);
    results.exchangeToProductRefresh = Math.round((results.codeExchange.perCpuSecond / results.productRefresh.perCpuSecond) * 100) / 100;
    results.providerToProductRefresh = Math.round((results.providerRefresh.perCpuSecond / results.productRefresh.perCpuSecond) * 100) / 100;
    const file = path.join(root, 'bench', 'results', `openid-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, connections: CONNECTIONS, seconds: SECONDS, results }, null, 2)}\n`);
    say(`per CPU-second, a code exchange is ${results.exchangeToProductRefresh}× and a provider refresh ${results.providerToProductRefresh}× the product's refresh; written to ${path.relative(root, file)}`);
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
