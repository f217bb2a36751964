// The browsers an account trusted at a second step ("trust this browser"): its owner lists them and
// forgets any. Forgetting takes trust away, so it needs no recent proof; trusting is the second
// step's (sign-in/login.ts `verifyOtp`), and a login from a trusted browser skips it after the
// password (sign-in/login.ts). A change of credentials ends them all (the store keeps the epoch).
import type { AccessClaims } from '@acct/shared';
import { AuthErrors } from '../../errors';
import { callerAccount } from '../shared/access';
import type { Needs, RequestContext, TrustedBrowser } from './ports';
import { noteActivity } from '../shared/activity';

export async function listTrustedBrowsers(deps: Needs<'accounts' | 'trustedBrowsers'>, caller: AccessClaims): Promise<TrustedBrowser[]> {
  const account = await callerAccount(deps, caller);
  return deps.trustedBrowsers.list(caller.kind, account.id, account.credentialEpoch);
}

export async function forgetTrustedBrowser(deps: Needs<'trustedBrowsers' | 'activity' | 'logger'>, caller: AccessClaims, id: string, ctx: RequestContext): Promise<void> {
  if (!(await deps.trustedBrowsers.remove(caller.kind, caller.sub, id))) throw AuthErrors.trustedBrowserNotFound();
  await noteActivity(deps, ctx, { kind: caller.kind, accountId: caller.sub, type: 'browser_forgotten' });
}
