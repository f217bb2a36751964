// The test environment: jest's Node environment, plus what a worker makes once for all its files: bson and the OpenAPI check.
//
// bson allocates a 17 MB serialisation buffer when it loads (`MAXSIZE` in bson.cjs). Loaded into
// each test file's module registry, as jest does with every module, each file that touched MongoDB
// added one such buffer to its worker, and the workers held them across files: about 18 MB of
// `arrayBuffers` a file, most of a worker's 1 GB by the end of a run. Loaded here, by the worker's
// own `require`, bson (its buffer and its classes) is one per worker and handed to every file through
// test/setup/bson-once.js; it keeps no state between calls that a file could see from another.
const fs = require('node:fs');
const v8 = require('node:v8');
const vm = require('node:vm');
const { TestEnvironment } = require('jest-environment-node');
const bson = require('bson');
const openApiOnce = require('../../libs/test-harness/src/openapi-document.js');

// ACCT_MEMORY_PROBE=<file>: after each test file, one line appended to the file: the worker's
// resident size as the run left it, then, after a full collection, the heap and buffers it still
// holds (what a worker keeps across files).
const probe = process.env.ACCT_MEMORY_PROBE;
let collect;
if (probe) {
  v8.setFlagsFromString('--expose-gc');
  collect = vm.runInNewContext('gc');
}

// ACCT_CPU_PROBE=<file>: after each test file, one line appended to the file: the CPU the worker's
// own thread spent on it (its in-process stack, the test code, module loading) and the CPU of the
// processes it started and waited for (Chromium, a spawned service), with when it started and its
// wall time. Which files cost a run its CPU, where jest reports only their wall time, and which ran
// beside which.
const cpuProbe = process.env.ACCT_CPU_PROBE;
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const childrenCpuMs = () => {
  // What the processes this worker started used, counted once it reaped them: Linux's /proc only (0 elsewhere).
  const stat = fs.existsSync('/proc/self/stat') ? fs.readFileSync('/proc/self/stat', 'utf8') : '';
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime: fields 16 and 17 of /proc/<pid>/stat, in clock ticks (100 a second on Linux).
  return fields.length > 15 ? (Number(fields[13]) + Number(fields[14])) * 10 : 0;
};

// ACCT_CPU_PROFILE=<dir>: a V8 CPU profile of each test file, from its environment's start to its
// teardown (module loading, the tests, an in-process stack), written as <dir>/<file>.cpuprofile for
// `node bench/profile-summary.mjs` or DevTools. `node --cpu-prof` cannot give them: jest ends its
// workers before V8 writes theirs.
const profileDir = process.env.ACCT_CPU_PROFILE;
let profiler;
async function startProfile() {
  if (!profiler) {
    const { Session } = require('node:inspector/promises');
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 1000 });
  }
  await profiler.post('Profiler.start');
}
async function writeProfile(testPath) {
  const { profile } = await profiler.post('Profiler.stop');
  fs.mkdirSync(profileDir, { recursive: true });
  const name = testPath.replace(`${process.cwd()}/`, '').replace(/[/\\]/g, '__');
  fs.writeFileSync(`${profileDir}/${name}.cpuprofile`, JSON.stringify(profile));
}

class AccountStackEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__ACCT_WORKER_BSON__ = bson;
    // What a stack runs (its services' built output) is loaded by the worker's own require, once per
    // worker and outside the files' contexts (test/stack/src/services.ts says why).
    this.global.__ACCT_WORKER_REQUIRE__ = require;
    // The OpenAPI document and its validators, made once per worker (openapi-document.js says why).
    this.global.__ACCT_WORKER_OPENAPI__ = openApiOnce;
    // The dates bson reads from a document are made by the worker's Date, as the Buffers of a test
    // file are the worker's (jest hands every file the worker's Buffer): so is the files' Date, or a
    // stored date would not be `instanceof Date` in the code under test. Fake timers still replace it.
    this.global.Date = Date;
    this.testPath = context.testPath;
    if (cpuProbe) this.started = { wall: Date.now(), own: ownCpuMs(), children: childrenCpuMs() };
  }

  async setup() {
    if (profileDir) await startProfile();
    await super.setup();
  }

  async teardown() {
    await super.teardown();
    if (profileDir) await writeProfile(this.testPath);
    if (cpuProbe) {
      const line = {
        pid: process.pid,
        file: this.testPath.replace(`${process.cwd()}/`, ''),
        startedAt: this.started.wall,
        wallMs: Date.now() - this.started.wall,
        ownCpuMs: Math.round(ownCpuMs() - this.started.own),
        childrenCpuMs: childrenCpuMs() - this.started.children,
      };
      fs.appendFileSync(cpuProbe, `${JSON.stringify(line)}\n`);
    }
    if (!probe) return;
    const asLeft = process.memoryUsage.rss();
    collect();
    const { heapUsed, external, arrayBuffers } = process.memoryUsage();
    const mb = (n) => Math.round(n / 1048576);
    const line = { pid: process.pid, file: this.testPath.replace(`${process.cwd()}/`, ''), rssMb: mb(asLeft), heapMb: mb(heapUsed), externalMb: mb(external), arrayBuffersMb: mb(arrayBuffers) };
    fs.appendFileSync(probe, `${JSON.stringify(line)}\n`);
  }
}

module.exports = AccountStackEnvironment;
