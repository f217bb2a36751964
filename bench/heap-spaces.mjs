#!/usr/bin/env node
// Where the gateway's and auth's memory is: RSS and each V8 heap space (size and used, MB, from their
// /metrics), after the bench's seeding and again after BENCH_DURATION_S of /me then of refresh at
// 100 a second, the peer bench's load. `node bench/heap-spaces.mjs`; HEAP_CHECKOUT=<a built
// checkout> measures that one's stack.
import path from 'node:path';
import { measurePaced } from './lib/paced.mjs';
import { say } from './lib/context.mjs';
import { accessTokens, rssMb, seed, startStack } from './lib/stack.mjs';
import { steadyRefreshScenario } from './scenarios/refresh.mjs';

const stack = await startStack(process.env.HEAP_CHECKOUT ? path.resolve(process.env.HEAP_CHECKOUT) : undefined, 'heap-spaces');
const mb = (bytes) => Math.round((Number(bytes) / 1048576) * 10) / 10;

async function show(label) {
  for (const name of ['gateway', 'auth']) {
    const text = await (await fetch(`http://127.0.0.1:${stack.services[name].healthPort}/metrics`)).text();
    const spaces = (metric) => Object.fromEntries([...text.matchAll(new RegExp(`^${metric}\\{[^}]*space="(\\w+)"[^}]*\\} (\\S+)`, 'gm'))].map((m) => [m[1], mb(m[2])]).filter(([, v]) => v > 0));
    const external = /^nodejs_external_memory_bytes\{[^}]*\} (\S+)/m.exec(text)?.[1];
    say(JSON.stringify({ at: label, service: name, rssMb: rssMb(stack.services[name].pid), heapSizeMb: spaces('nodejs_heap_space_size_total_bytes'), heapUsedMb: spaces('nodejs_heap_space_size_used_bytes'), externalMb: mb(external ?? 0) }));
  }
}

try {
  const accounts = await seed(stack.gatewayUrl);
  const tokens = await accessTokens(stack.gatewayUrl, accounts);
  await show('seeded');
  let i = 0;
  await measurePaced({ url: stack.gatewayUrl, rate: 100, connections: 16, next: () => ({ method: 'GET', path: '/api/auth/user/me', headers: { authorization: `Bearer ${tokens[i++ % tokens.length]}` } }) }, 200);
  await steadyRefreshScenario(stack.gatewayUrl, accounts, 100);
  await show('after /me and refresh at 100/s');
} finally {
  await stack.stop();
}
