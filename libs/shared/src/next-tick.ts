// Keeps process.nextTick off a performance cliff that V8 (Node 20's 11.3 and Node 24's 13.6) lets
// it fall from for the rest of the process's life.
//
// nextTick builds each tick object as a literal with computed (symbol) keys. For each key V8 keeps,
// in the literal's feedback, the map the object had before it, weakly; the maps after the first key
// are made at run time and are kept alive only by tick objects. A full garbage collection that keeps
// no dead maps (the memory reducer's, which runs once a process has idled for several seconds after a
// major collection: a replica waiting for traffic after its start, or one side of a bench waiting for
// the other) drops them when no tick is pending; the next tick makes new maps, and V8, seeing a map
// other than the one in its monomorphic feedback, makes those keys megamorphic for good. Each nextTick
// then defines its properties in the runtime: 60 → 300 ns on Node 20 (`node bench/next-tick-cliff.mjs`).
// A refresh through the gateway makes 20 nextTicks; the gateway that had fallen paid about 20 µs more
// a refresh, of about 100 (bench/RESULTS.md, "The nextTick cliff").
//
// One tick object kept alive keeps its maps, and so the feedback, alive. It is caught with an async
// hook switched on for the one nextTick that makes it (a hook's `resource` for a TickObject is the
// tick object itself), then switched off: no hook runs afterwards.
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/** Keeps one tick object alive, so that nextTick's maps outlive idle garbage collections. Idempotent. */
export function keepNextTickFast(): void {
  if (kept) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && !kept) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
}

function noop(): void {}
