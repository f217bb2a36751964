#!/usr/bin/env node
// `npm run bench`: starts the stack the way `npm start` does (or uses GATEWAY_URL), seeds accounts,
// and runs each scenario for a bounded time with autocannon from this separate process. Prints a
// progress line per scenario and a final table; records the machine and every number in
// bench/results/<date>-<host>.json and a row in bench/RESULTS.md. Exits 1 if a scenario failed.
// This file is the run's order; the stack and what it prepares are lib/stack.mjs, the settings
// lib/context.mjs, and each scenario (or family of them) is a module of scenarios/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure, DURATION_S } from './lib/load.mjs';
import { spawnLines, startBare } from './lib/processes.mjs';
import { ACCOUNTS, BCRYPT_COST, CONNECTIONS, ROUNDS, only, ratio, root, say, started, wants } from './lib/context.mjs';
import { publishRelease, rssMb, seed, stackCpu, startStack } from './lib/stack.mjs';
import { appendSummary, printTable } from './lib/summary.mjs';
import { againstBare } from './scenarios/against-bare.mjs';
import { comparedRuns } from './scenarios/compared.mjs';
import { againstPeer } from './scenarios/peer.mjs';
import { bcryptCeiling, loginScenario } from './scenarios/login.mjs';
import { refreshScenario, steadyRefreshScenario } from './scenarios/refresh.mjs';
import { tracingCost } from './scenarios/tracing.mjs';
import { verifyOtpScenario } from './scenarios/verify-otp.mjs';

async function main() {
  say(`node ${process.version} (${process.execPath}), ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'cpu unknown'}`);
  const stack = await startStack();
  const results = {};
  let failed = false;
  const scenario = async (name, work) => {
    if (!wants(name)) return {};
    say(`${name}…`);
    const result = await work();
    results[name] = result;
    if (result.failed) failed = true;
    say(`${name}: ${JSON.stringify(result)}`);
    return result;
  };
  try {
    say(`seeding ${ACCOUNTS} accounts…`);
    const accounts = await seed(stack.gatewayUrl);
    const ceiling = await scenario('bcrypt ceiling', bcryptCeiling);
    const login = await scenario('login', () => loginScenario(stack.gatewayUrl, accounts));
    // The ceiling again after the login run: the ratio is taken against the mean of the two, so a
    // drift of this VM's speed during the run moves both sides alike.
    const after = await scenario('bcrypt ceiling, again', bcryptCeiling);
    if (ceiling.comparesPerSecond && after.comparesPerSecond) {
      login.bcryptCeiling = Math.round(((ceiling.comparesPerSecond + after.comparesPerSecond) / 2) * 10) / 10;
      login.ratioToBcryptCeiling = ratio(login.requestsPerSecond, login.bcryptCeiling);
    }
    const refresh = await scenario('refresh', () => refreshScenario(stack.gatewayUrl, accounts, stackCpu(stack)));
    if (refresh.requestsPerSecond) refresh.perCore = Math.round(refresh.requestsPerSecond / os.availableParallelism());
    // The latency target is set at half the throughput target (2,000/s): a steady 1,000/s.
    await scenario('refresh at 1000/s', () => steadyRefreshScenario(stack.gatewayUrl, accounts, 1000, stackCpu(stack)));
    const cheap = { method: 'POST', path: '/api/auth/user/register', headers: { 'content-type': 'application/json' }, body: '{}' };
    const viaGateway = await scenario('proxy: through the gateway', () => measure({ url: stack.gatewayUrl, connections: CONNECTIONS, requests: [cheap] }, { expectStatus: 400 }));
    if (stack.authUrl) {
      const direct = await scenario('proxy: straight to auth', () => measure({ url: stack.authUrl, connections: CONNECTIONS, requests: [cheap] }, { expectStatus: 400 }));
      viaGateway.ratioToDirect = ratio(viaGateway.requestsPerSecond, direct.requestsPerSecond);
    }
    const notFound = await scenario('404: gateway', () => measure({ url: `${stack.gatewayUrl}/no/such/route`, connections: CONNECTIONS }, { expectStatus: 404 }));
    const bareResult = await scenario('404: bare node:http', async () => {
      const bare = await startBare();
      try {
        return await measure({ url: `${bare.url}/no/such/route`, connections: CONNECTIONS }, { expectStatus: 404 });
      } finally {
        bare.stop();
      }
    });
    notFound.ratioToBare = ratio(notFound.requestsPerSecond, bareResult.requestsPerSecond);

    if (wants('desktop latest-version') || wants('against bare') || wants('compared version check')) await publishRelease(stack);
    await scenario('verify-otp: authenticator code', () => verifyOtpScenario(stack));
    await scenario('desktop latest-version', () => measure({ url: `${stack.gatewayUrl}/api/desktop/latest-version?platform=linux`, connections: CONNECTIONS }, { expectStatus: 200 }));
    await scenario('against bare: 404 and the version check', () => againstBare(stack, { connections: CONNECTIONS, rounds: ROUNDS, say }));

    if (['compare', 'control'].includes(process.env.BENCH_TRACING)) await tracingCost(stack, accounts, scenario, process.env.BENCH_TRACING === 'control');

    // The routes that take an access token, and the gateway's cheapest paths; with BENCH_BEFORE, in
    // turns with an earlier checkout's stack (scenarios/compared.mjs).
    await comparedRuns(stack, accounts, scenario);

    // Against the peer (Better Auth): only when asked for, as it installs the peer and needs PostgreSQL.
    if (process.env.BENCH_PEER === '1' || only?.some((word) => word.startsWith('peer'))) {
      say('peer: Better Auth beside this stack…');
      const peerResults = await againstPeer(stack, accounts, { rounds: ROUNDS, say, wants });
      Object.assign(results, peerResults);
      if (Object.values(peerResults).some((r) => r.failed)) failed = true;
    }

    if (stack.services.auth?.pid && !only) {
      results.rssMb = Object.fromEntries(Object.entries(stack.services).map(([name, s]) => [name, rssMb(s.pid)]));
      say(`RSS (MB) after the HTTP scenarios: ${JSON.stringify(results.rssMb)}`);
    }

    if (stack.amqpUrl) {
      await scenario('notifier', async () => {
        // The notifier runs inside this process, with the heap budget the services run with.
        const run = spawnLines(process.execPath, ['--max-old-space-size=256', path.join(root, 'bench', 'notifier-throughput.mjs')], {
          AMQP_URL: stack.amqpUrl,
          REDIS_URL: stack.redisUrl,
          MONGO_URL: stack.mongoUrl,
        });
        const result = JSON.parse(await run.firstLine);
        return { ...result, failed: !(result.eventsPerSecond > 0) };
      });
    }
  } finally {
    await stack.stop();
  }

  const record = {
    date: new Date().toISOString(),
    host: os.hostname(),
    machine: { cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    bcryptCost: BCRYPT_COST,
    durationSeconds: DURATION_S,
    connections: CONNECTIONS,
    wallSeconds: Math.round((Date.now() - started) / 1000),
    results,
  };
  if (only) {
    // A partial run (for profiling or one scenario) is printed, not recorded beside full runs.
    printTable(results);
    say('BENCH_ONLY run: nothing written to bench/results or bench/RESULTS.md');
    return failed ? 1 : 0;
  }
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  const file = path.join(root, 'bench', 'results', `${record.date.slice(0, 10)}-${record.host}.json`);
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  appendSummary(record);
  printTable(results);
  say(`written ${path.relative(root, file)} and bench/RESULTS.md in ${record.wallSeconds} s`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
