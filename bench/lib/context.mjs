// What every part of `npm run bench` shares: the repository root, the progress line, the settings
// read from the environment, and which scenarios a run wants (BENCH_ONLY).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const say = (line) => process.stdout.write(`[bench] ${line}\n`);
export const started = Date.now();
export const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 12);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
export const ACCOUNTS = Math.max(Number(process.env.BENCH_ACCOUNTS ?? 32), CONNECTIONS);
/** Second steps measured by the verify-otp scenario: one account and one login each. */
export const OTP_ACCOUNTS = Number(process.env.BENCH_OTP_ACCOUNTS ?? 400);
/** Rounds of each scenario measured in turns (before/after, against bare). */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_ONLY=refresh,404 runs only scenarios whose name contains one of the words.
export const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : undefined;
export const wants = (name) => !only || only.some((word) => name.includes(word));
export const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);
/** The middle value (the mean of the two middle ones for an even count). */
export const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};
