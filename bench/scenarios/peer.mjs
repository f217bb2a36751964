// This stack against its peer, Better Auth 1.7.25 (bench/peer/), at the fixed rate the hot-path goals
// are set at (issue 50): requests per server CPU-second, in alternating rounds so the machine's drift
// falls on both sides alike. Our side's server is the gateway plus auth (the whole path a client
// sees); theirs is their one process. Neither side counts its database (their PostgreSQL, our Redis
// and MongoDB): a cookie-cached get-session reads none, and our /me and refresh read Redis or MongoDB.
//   /me          GET /api/auth/user/me with an access token, against their cookie-cached get-session;
//   refresh      our rotating refresh, against the same get-session (the issue's measure for it);
//   memory       RSS of gateway + auth against their process's, after the same load.
//   floors       what the shape allows at this rate: the gateway's own 404 (the gateway's CPU alone,
//                the least any route through it costs) and a bare node:http server's 404
//                (bench/bare-404.mjs: one Node process answering and logging, the least any Node
//                answer costs), and a refresh with no cookie (the gateway forwards it and auth answers
//                401 before any store: the least a route that crosses both costs, the hop's floor),
//                each against the same get-session. A goal above the gateway's floor cannot be met
//                by a route that crosses the gateway, nor one above the hop's by a route auth answers.
// CPU is read from the scheduler's exact clock (cpuSecondsExact): at a low rate, /proc's tick-sampled
// times misread processes that wake briefly and often.
// Runs only when asked for (BENCH_ONLY=peer, or BENCH_PEER=1 in a full run): it installs the peer
// (npm install in bench/peer, the first time) and needs PostgreSQL (PEER_DATABASE_URL, default the
// local server as postgres).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { measurePaced } from '../lib/paced.mjs';
import { exactCpuOf, spawnLines, startBare } from '../lib/processes.mjs';
import { CONNECTIONS, median, root } from '../lib/context.mjs';
import { accessTokens, post, rssMb } from '../lib/stack.mjs';
import { steadyRefreshScenario } from './refresh.mjs';

const RATE = Number(process.env.BENCH_PEER_RATE ?? 100);
const PEER_DIR = path.join(root, 'bench', 'peer');
const round = (value, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
/** Requests per CPU-second of the processes a run's `cpuMicrosPerRequest` names. */
const perCpuSecond = (result, names) => {
  const micros = names.reduce((sum, name) => sum + (result.cpuMicrosPerRequest?.[name] ?? NaN), 0);
  return micros > 0 ? round(1e6 / micros, 1) : null;
};

function installPeer(say) {
  if (fs.existsSync(path.join(PEER_DIR, 'node_modules', 'better-auth'))) return;
  say('installing the peer (npm ci in bench/peer)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PEER_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** The peer's accounts (signed up, bcrypt as ours) and, per account, the cookies of a fresh sign-in. */
async function peerSessions(url, count) {
  const cookies = [];
  for (let i = 0; i < count; i += 4) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(4, count - i) }, async (_, j) => {
        const account = { name: `Peer ${i + j}`, email: `peer-${Date.now()}-${i + j}@example.com`, password: 'bench password 1' };
        // The peer's baseURL (bench/peer/server.mjs): its CSRF check wants a request from its own origin.
        const res = await post(`${url}/api/auth/sign-up/email`, account, { origin: 'http://127.0.0.1' });
        if (res.status !== 200) throw new Error(`the peer's sign-up answered ${res.status}: ${JSON.stringify(res.body)}`);
        return res.cookies.map((c) => c.split(';')[0]).join('; ');
      }),
    );
    cookies.push(...batch);
  }
  return cookies;
}

/** One paced run of `request(i)` at RATE against `url`, with the CPU of `pids`. */
function paced(url, pids, request, expectStatus) {
  let i = 0;
  return measurePaced({ url, rate: RATE, connections: CONNECTIONS, cpu: exactCpuOf(pids), next: () => request(i++) }, expectStatus);
}

export async function againstPeer(stack, accounts, { rounds, say, wants }) {
  installPeer(say);
  const peer = spawnLines(process.execPath, [path.join(PEER_DIR, 'server.mjs')], { PEER_FRESH: '1', PORT: '0' });
  const peerUrl = `http://127.0.0.1:${Number(await peer.firstLine)}`;
  const ours = { gateway: stack.services.gateway.pid, auth: stack.services.auth.pid };
  const theirs = { peer: peer.child.pid };
  const results = {};
  let bare;
  try {
    const bareFloor = 'floor: a bare node:http 404 against their cookie-cached get-session';
    bare = wants(`peer: ${bareFloor}`) ? await startBare() : undefined;
    const [tokens, cookies] = await Promise.all([accessTokens(stack.gatewayUrl, accounts), peerSessions(peerUrl, CONNECTIONS)]);
    const getSession = () => paced(peerUrl, theirs, (i) => ({ method: 'GET', path: '/api/auth/get-session', headers: { cookie: cookies[i % cookies.length] } }), 200);
    const me = () => paced(stack.gatewayUrl, ours, (i) => ({ method: 'GET', path: '/api/auth/user/me', headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }), 200);
    // The bench's own paced refresh (a session lent to one request at a time), with the exact CPU.
    const refresh = () => steadyRefreshScenario(stack.gatewayUrl, accounts, RATE, exactCpuOf(ours));

    const notFound = (url, pids) => () => paced(url, pids, () => ({ method: 'GET', path: '/no/such/route' }), 404);
    const refreshWithoutCookie = () => paced(stack.gatewayUrl, ours, () => ({ method: 'POST', path: '/api/auth/user/refresh' }), 401);

    // Every comparison takes its turn in each round, so each reads their process at the same points
    // of its life: read one comparison's rounds after another's, their read cost up to twice as
    // much in the last comparisons as in the first (2026-11-27).
    const comparisons = [
      { name: '/me against their cookie-cached get-session', ourRun: me },
      { name: 'refresh against their cookie-cached get-session', ourRun: refresh },
      { name: "floor: the gateway's 404 against their cookie-cached get-session", ourRun: notFound(stack.gatewayUrl, { gateway: ours.gateway }), oursNames: ['gateway'] },
      bare && { name: bareFloor, ourRun: notFound(bare.url, { bare: bare.child.pid }), oursNames: ['bare'] },
      { name: 'floor: a refresh with no cookie (gateway + auth) against their cookie-cached get-session', ourRun: refreshWithoutCookie },
    ].filter((comparison) => comparison && wants(`peer: ${comparison.name}`));
    const sides = comparisons.map(() => ({ ours: [], theirs: [] }));
    for (let r = 0; r < rounds; r++) {
      for (const [k, { ourRun }] of comparisons.entries()) {
        sides[k].ours.push(await ourRun());
        sides[k].theirs.push(await getSession());
      }
      say(`peer: round ${r + 1} of ${rounds} done`);
    }
    for (const [k, { name, oursNames = Object.keys(ours) }] of comparisons.entries()) {
      const { ours: oursRuns, theirs: theirsRuns } = sides[k];
      const oursPerCpu = oursRuns.map((run) => perCpuSecond(run, oursNames));
      const theirsPerCpu = theirsRuns.map((run) => perCpuSecond(run, Object.keys(theirs)));
      results[`peer: ${name}`] = {
        rate: RATE,
        oursPerCpuSecond: median(oursPerCpu),
        theirsPerCpuSecond: median(theirsPerCpu),
        ratio: round(median(oursPerCpu) / median(theirsPerCpu)),
        roundRatios: oursPerCpu.map((value, i) => round(value / theirsPerCpu[i])),
        oursCpuMicros: oursRuns.map((run) => run.cpuMicrosPerRequest),
        theirsCpuMicros: theirsRuns.map((run) => run.cpuMicrosPerRequest),
        p99Ms: { ours: median(oursRuns.map((run) => run.p99Ms)), theirs: median(theirsRuns.map((run) => run.p99Ms)) },
        failed: [...oursRuns, ...theirsRuns].some((run) => run.failed),
      };
      say(`peer: ${name}: ${JSON.stringify(results[`peer: ${name}`])}`);
    }
    if (wants('peer: memory')) {
      const oursMb = { gateway: rssMb(ours.gateway), auth: rssMb(ours.auth) };
      const theirsMb = rssMb(theirs.peer);
      results['peer: memory'] = { oursMb, theirsMb, ratio: round((oursMb.gateway + oursMb.auth) / theirsMb), failed: false };
      say(`peer: memory: ${JSON.stringify(results['peer: memory'])}`);
    }
  } finally {
    peer.child.kill('SIGTERM');
    bare?.stop();
  }
  return results;
}
