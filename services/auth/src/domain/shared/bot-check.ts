// The bot check of the routes where abuse starts (the route table's rows marked `botCheck`): off, or
// the body's `botCheck` must pass the deployment's check before anything else of the request runs.
// The check itself (a proof of work, a widget's token) is the adapter's (security/bot-checks.ts).
import { AuthErrors } from '../../errors';
import { asBody } from './validation';
import { enforceLimit } from './limits';
import type { BotChallenge, Needs, RequestContext } from './ports';

/** The longest answer read: an ALTCHA payload is under 1 KB, a widget's token about 2 KB. */
const MAX_ANSWER = 8_192;

/** Refuses a request whose body carries no answer that passes, while the check is on. */
export async function assertHuman(deps: Needs<'botCheck'>, body: unknown, ctx: RequestContext): Promise<void> {
  if (deps.botCheck.kind === 'off') return;
  const answer = asBody(body).botCheck;
  if (typeof answer !== 'string' || answer.length === 0 || answer.length > MAX_ANSWER) throw AuthErrors.botCheckFailed();
  if (!(await deps.botCheck.passes(answer, ctx.ip))) throw AuthErrors.botCheckFailed();
}

/** What a client needs before such a route: counted against the address's budget, as each challenge costs a key derivation to make. */
export async function botChallenge(deps: Needs<'botCheck' | 'rateLimits' | 'metrics'>, ctx: RequestContext): Promise<BotChallenge> {
  if (deps.botCheck.kind === 'altcha') await enforceLimit(deps, 'botCheckIp', ctx.budget);
  return deps.botCheck.challenge();
}
