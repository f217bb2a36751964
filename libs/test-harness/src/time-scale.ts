// The tests' one time scale (test/setup/time-scale.js decides it for the run; README, "npm test"):
// every deadline a test waits on or holds the code to is `scaled(ms)`.
export const TIME_SCALE = Math.max(1, Number(process.env.TEST_TIME_SCALE) || 1);

/** `ms` on this run's scale. */
export const scaled = (ms: number) => Math.round(ms * TIME_SCALE);
