// The services a stack starts, as they run in production: their built output (`tsc -b`, which the
// global setup brings up to date before any file runs), loaded once per jest worker by the worker's
// own Node `require`, not into each test file's module registry.
//
// jest runs a test file's modules in a `vm` context of their own, loading every one of them again
// for each file. Code there reads a global (Math, Buffer, Promise...) through the context's
// interceptors, which V8 cannot cache: on Node 20 a loop that calls `Math.abs` took 1,239 ms in a
// context and 17 ms outside it (2026-11-30). The services, mongoose and the driver, express and pino
// served every request of a file's stack so, and each file loaded them again (mongoose alone 270
// modules). Loaded here they run as in their images, in the worker's own realm, once per worker: the
// stack's objects (its loggers' records, its running services) are plain objects to a test, and a
// test reaches inside a stack only through its API and logs, or stackRequire below.
import path from 'node:path';
import type * as Auth from '@acct/auth';
import type * as Desktop from '@acct/desktop';
import type * as Gateway from '@acct/gateway';
import type * as Shared from '@acct/shared';
import { workerRequire } from '@acct/test-harness/worker-require';

export const shared = workerRequire('@acct/shared') as typeof Shared;
export const auth = workerRequire('@acct/auth') as typeof Auth;
export const desktop = workerRequire('@acct/desktop') as typeof Desktop;
export const gateway = workerRequire('@acct/gateway') as typeof Gateway;

/**
 * A package as auth's built service loads it (the same module object its code calls), for a test
 * that watches a library call inside the stack: `jest.spyOn(stackRequire('bcrypt'), 'hash')`. The
 * package a test file imports itself is another copy, which the stack never calls.
 */
export function stackRequire<T = any>(name: string): T {
  const authDir = path.dirname(workerRequire.resolve('@acct/auth/package.json'));
  return workerRequire(workerRequire.resolve(name, { paths: [authDir] })) as T;
}
