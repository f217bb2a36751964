// One scale for every deadline in the tests (jest's per-test timeout, `until`'s waits, the bounds a
// test puts on elapsed time): TEST_TIME_SCALE when set, else from how busy the machine is when the
// run starts (the 1-minute load average per core: a machine with as many busy processes as cores
// waits three times as long). Written back to TEST_TIME_SCALE so that every jest worker reads the
// same one (libs/test-harness/src/time-scale.ts). Plain JavaScript: jest's config reads it.
'use strict';
const os = require('node:os');

function timeScale() {
  const given = Number(process.env.TEST_TIME_SCALE);
  if (Number.isFinite(given) && given >= 1) return given;
  const perCore = os.loadavg()[0] / Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  return Math.max(1, Math.min(4, Math.round((1 + 2 * perCore) * 10) / 10));
}

const scale = timeScale();
process.env.TEST_TIME_SCALE = String(scale);
module.exports = { scale };
