// The jest worker's own Node `require` (test/setup/environment.js hands it to every file), for what
// a worker loads once for all its files, outside their per-file module registries: a stack's
// services (@acct/test-stack/services) and the HTTP client's transport (http-client.ts). Outside
// jest (the global setup, which starts the run's shared stack in jest's own process) this module's
// own, which is Node's there.
export const workerRequire: NodeJS.Require = (globalThis as { __ACCT_WORKER_REQUIRE__?: NodeJS.Require }).__ACCT_WORKER_REQUIRE__ ?? require;
