// A client's side of the ALTCHA bot check (BOT_CHECK=altcha), as the hosted pages do it: a challenge
// asked of the service, solved with altcha-lib (PBKDF2 in Node here, Web Crypto in a page), and the
// answer a request sends as `botCheck` (base64 of the challenge and its solution).
import type * as Altcha from 'altcha-lib/dist/cjs/v2/index';
import type * as Pbkdf2 from 'altcha-lib/dist/cjs/v2/algorithms/pbkdf2';
import { call } from './http-client';

// By the package's exports (the types from its CommonJS build's files, as auth's adapter reads them).
/* eslint-disable @typescript-eslint/no-require-imports */
const { solveChallenge } = require('altcha-lib') as typeof Altcha;
const { deriveKey } = require('altcha-lib/algorithms/pbkdf2') as typeof Pbkdf2;
/* eslint-enable @typescript-eslint/no-require-imports */

/** A challenge from the service at `url`, solved: the value of a request's `botCheck`. */
export async function solvedBotCheck(url: string): Promise<string> {
  const asked = await call(url, 'GET', '/api/auth/bot-check');
  if (asked.status !== 200 || asked.body.data?.kind !== 'altcha') throw new Error(`bot-check answered ${asked.status}: ${asked.text}`);
  return solve(asked.body.data.challenge);
}

/** The answer to a challenge: base64 of `{"challenge","solution"}`. */
export async function solve(challenge: Parameters<typeof solveChallenge>[0]['challenge']): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('the bot-check challenge was not solved in time');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}
