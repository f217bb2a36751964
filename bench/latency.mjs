#!/usr/bin/env node
// Median (and p90) time of one login and one refresh through the gateway, sequential, one client.
// Usage: GATEWAY_URL=http://127.0.0.1:8080 node bench/latency.mjs [count]
// The stack must allow `count` logins a minute from this address (RATE_LOGIN_IP_PER_MINUTE).
const base = process.env.GATEWAY_URL;
if (!base) {
  process.stderr.write('set GATEWAY_URL to a running stack (npm start)\n');
  process.exit(2);
}
const count = Number(process.argv[2] ?? 200);

async function post(path, body, cookie) {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status, cookie: res.headers.getSetCookie()[0]?.split(';')[0] };
}

const stats = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1);
  return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, min ${sorted[0].toFixed(1)} ms (${list.length} requests)`;
};

const account = { name: 'Latency', email: `latency-${Date.now()}@example.com`, password: 'latency password 1' };
const registered = await post('/api/auth/user/register', account);
if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);

const logins = [];
let cookie;
for (let i = 0; i < count; i++) {
  const r = await post('/api/auth/user/login', { email: account.email, password: account.password });
  if (r.status !== 200) throw new Error(`login answered ${r.status} (raise RATE_LOGIN_IP_PER_MINUTE?)`);
  logins.push(r.ms);
  cookie = r.cookie;
}
const refreshes = [];
for (let i = 0; i < count; i++) {
  const r = await post('/api/auth/user/refresh', undefined, cookie);
  if (r.status !== 200) throw new Error(`refresh answered ${r.status}`);
  refreshes.push(r.ms);
  cookie = r.cookie;
}
console.log(`login:   ${stats(logins)}`);
console.log(`refresh: ${stats(refreshes)}`);
