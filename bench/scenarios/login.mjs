// Login under load (bcrypt-bound), and the machine's bcrypt ceiling it is read against.
import os from 'node:os';
import { createRequire } from 'node:module';
import { measure, DURATION_S } from '../lib/load.mjs';
import { BCRYPT_COST } from '../lib/context.mjs';

const require = createRequire(import.meta.url);
const bcrypt = require('bcrypt');

export async function bcryptCeiling() {
  const hash = await bcrypt.hash('bench password 1', BCRYPT_COST);
  const parallel = os.availableParallelism();
  const until = Date.now() + DURATION_S * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < until) {
        await bcrypt.compare('bench password 1', hash);
        // Counted as autocannon counts logins: only what completes inside the window. (Counting the
        // compares still running at the deadline overstated the ceiling by one per lane.)
        if (Date.now() <= until) done++;
      }
    }),
  );
  return { comparesPerSecond: Math.round((done / DURATION_S) * 10) / 10, parallel, cost: BCRYPT_COST };
}

export function loginScenario(gatewayUrl, accounts, cpu, align) {
  let next = 0;
  return measure(
    {
      url: gatewayUrl,
      // Enough to keep every core's bcrypt busy, few enough that requests cut off at the end stay few.
      connections: Number(process.env.BENCH_LOGIN_CONNECTIONS ?? os.availableParallelism() * 2),
      requests: [
        {
          method: 'POST',
          path: '/api/auth/user/login',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const a = accounts[next++ % accounts.length];
            return { ...req, body: JSON.stringify({ email: a.email, password: a.password }) };
          },
        },
      ],
    },
    { expectStatus: 200, cpu, align },
  );
}
