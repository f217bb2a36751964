// What a second AsyncLocalStorage costs every promise of a process, whether or not the work that
// makes the promise uses it: the question behind tracing's context manager (libs/shared/src/tracing,
// requestScopeContextManager). A "request" is a chain of 30 awaited async calls (about 60 promises)
// in the request scope; it runs three ways:
//   one      only the request scope's storage, as a service without tracing;
//   enabled  plus a second storage that some earlier work ran once, as the SDK's own after the first
//            sampled request, while this request is not sampled;
//   both     plus the second storage run for this request too, as a sampled one.
// Usage: node bench/async-storage.mjs [requests per round, default 20000]
import { AsyncLocalStorage } from 'node:async_hooks';

const REQUESTS = Number(process.argv[2] ?? 20_000);
const ROUNDS = 5;

async function step(n) {
  if (n === 0) return 0;
  await null;
  return 1 + (await step(n - 1));
}

function mode(name) {
  const scope = new AsyncLocalStorage();
  const second = new AsyncLocalStorage();
  if (name !== 'one') second.run({}, () => undefined);
  const request = () => scope.run({ requestId: 'r' }, () => (name === 'both' ? second.run({ trace: 1 }, () => step(30)) : step(30)));
  return async () => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < REQUESTS; i++) await request();
    return Number(process.hrtime.bigint() - started) / REQUESTS / 1000;
  };
}

// Each mode in its own process: a storage, once enabled, stays in the process's hook for good.
if (process.env.ASYNC_STORAGE_MODE) {
  const run = mode(process.env.ASYNC_STORAGE_MODE);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await run());
  // The first round warms up; the median of the rest.
  const rest = rounds.slice(1).sort((a, b) => a - b);
  process.stdout.write(String(rest[Math.floor(rest.length / 2)]));
} else {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const results = {};
  for (const name of ['one', 'enabled', 'both']) {
    results[name] = Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), String(REQUESTS)], { env: { ...process.env, ASYNC_STORAGE_MODE: name } }));
  }
  console.log(`node ${process.version}, ${REQUESTS} requests of ~60 promises per round, median of ${ROUNDS - 1} rounds`);
  for (const [name, micros] of Object.entries(results)) {
    console.log(`${name.padEnd(8)} ${micros.toFixed(2)} µs per request  (${(((micros / results.one) - 1) * 100).toFixed(0).padStart(3)} % against one)`);
  }
}
