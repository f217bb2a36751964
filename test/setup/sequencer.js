// The order jest hands test files to its workers: its own (a file that failed last time first, then
// the longest by the last run's times, or the largest when there are none), with the files that
// mostly wait spread among the others instead of left to the end.
//
// A run on 2 cores is bound by CPU while its long end-to-end files run (the machine 92 to 99 %
// busy for the first 90 s of a 150 s run, 2026-11-30), and jest's order then left the files that
// mostly wait (a queue's redelivery, a Redis failover, a child process's exit: 2 to 30 % of a core
// each) to run three at a time at the end, the machine 53 to 67 % busy for 30 s. Spread among the
// others, each runs beside files that use what it leaves; the short unit files, busy all their
// time, end the run. Which files wait is read off their layer's suffix (README, "Tests come in
// layers"): a store's or a broker's adapter test, and the tests of processes.
'use strict';
const Sequencer = require('@jest/test-sequencer').default;

const WAITS = /\.(state|message-queue|secrets)\.test\.ts$|\/test\/process\//;

class SpreadWaiting extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const waiting = ordered.filter((test) => WAITS.test(test.path));
    const busy = ordered.filter((test) => !WAITS.test(test.path));
    // One waiting file after every two others, from the start, until none is left.
    const mixed = [];
    while (busy.length || waiting.length) {
      mixed.push(...busy.splice(0, 2));
      if (waiting.length) mixed.push(waiting.shift());
    }
    return mixed;
  }
}

module.exports = SpreadWaiting;
