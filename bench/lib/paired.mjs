// The cost of one side against the other from runs made in pairs (each round measures both, back to
// back), with a 95 % confidence interval: on a shared VM the machine's speed drifts between rounds by
// more than the cost looked for, and a pair's two runs share most of that drift, so the spread of the
// per-round ratios, not of the raw throughputs, says how far the mean can be trusted.

// Student's t, two-sided 95 %, for 1 to 30 degrees of freedom (above 30, 2.0 is close enough).
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

const round1 = (x) => Math.round(x * 10) / 10;

/**
 * Percent lost by `on` against `off` (throughput: 1 − on/off), one per round, and their mean with a
 * 95 % interval; or, with `more: true`, percent more (CPU per request: on/off − 1). Null with fewer
 * than two complete pairs.
 */
export function pairedCost(off, on, { more = false } = {}) {
  const pairs = off.map((a, i) => [a, on[i]]).filter(([a, b]) => a > 0 && b > 0);
  if (pairs.length < 2) return null;
  const costs = pairs.map(([a, b]) => (more ? b / a - 1 : 1 - b / a) * 100);
  const n = costs.length;
  const mean = costs.reduce((s, c) => s + c, 0) / n;
  const sd = Math.sqrt(costs.reduce((s, c) => s + (c - mean) ** 2, 0) / (n - 1));
  const half = (T95[n - 2] ?? 2.0) * (sd / Math.sqrt(n));
  return { percent: round1(mean), low: round1(mean - half), high: round1(mean + half), rounds: n, perRound: costs.map(round1) };
}
