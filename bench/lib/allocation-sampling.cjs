// Preloaded into each stack service by `BENCH_ALLOC_PROFILE=<dir> npm run bench` (node --require):
// V8's sampling heap profiler, told to keep the objects that collections freed, so the profile is
// where the service allocates (what its garbage collector has to clear), not only what stays alive.
// Writes <dir>/<service>-<pid>.heapprofile when the service exits (the bench stops the stack with
// SIGINT, and each service drains and exits); summarise one with `node bench/profile-summary.mjs <file>`.
// Sampling slows a service: read where it allocates from such a run, not its throughput.
'use strict';
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.ALLOC_PROFILE_DIR;
const service = /services\/([^/]+)\//.exec(process.argv[1] ?? '')?.[1];
if (dir && service) {
  const file = path.join(dir, `${service}-${process.pid}.heapprofile`);
  const session = new inspector.Session();
  session.connect();
  // One sample every 16 KiB allocated on average (the protocol's default is 32 KiB): ~60 a MB.
  session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  fs.mkdirSync(dir, { recursive: true });
  // An in-process session answers synchronously, so this works in an 'exit' listener.
  process.on('exit', () =>
    session.post('HeapProfiler.getSamplingProfile', (err, result) => {
      if (!err) fs.writeFileSync(file, JSON.stringify(result.profile));
    }),
  );
}
