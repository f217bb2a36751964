// A new password checked while it is typed, before any account has it: the sign-up, reset and change
// forms show each rule as it is met. It answers what every change would refuse, nothing more: no
// account is read, the password is neither kept nor logged, and each address has a budget of checks.
import { AuthErrors } from '../../errors';
import { enforceLimit } from '../shared/limits';
import { passwordProblems, type PasswordProblem } from '../shared/passwords';
import { asBody } from '../shared/validation';
import type { Needs, RequestContext } from './ports';

export async function checkNewPassword(
  deps: Needs<'passwordScreen' | 'rateLimits' | 'metrics'>,
  body: unknown,
  ctx: RequestContext,
): Promise<{ acceptable: boolean; problems: PasswordProblem[]; screened: boolean }> {
  await enforceLimit(deps, 'passwordCheckIp', ctx.budget);
  const { password } = asBody(body);
  if (typeof password !== 'string') throw AuthErrors.passwordCheckMissing();
  const problems = passwordProblems(deps, password);
  // Whether the breached list was asked: without it (BREACHED_PASSWORD_CHECK off) a form shows no such rule.
  return { acceptable: problems.length === 0, problems, screened: deps.passwordScreen.screens };
}
