// What a sign-in page may offer: for each kind, beside the password, a passkey by itself, a link or
// code mailed to an address alone, and a sign-up by that mail; and, while no admin exists, the
// first-run form that creates the first one; how long a second step may trust the browser; and the
// bot check its forms must pass (BOT_CHECK).
// Identity providers have their own list.
import type { AccountKind } from '@acct/shared';
import type { BotChallenge, Needs } from './ports';

export interface SignInMethods {
  password: true;
  passkey: boolean;
  email: boolean;
  emailSignUp: boolean;
}

export async function signInMethods(
  deps: Needs<'policy' | 'firstAdmin' | 'botCheck'>,
): Promise<Record<AccountKind, SignInMethods> & { firstAdmin: boolean; trustedBrowserDays: number; botCheck: BotChallenge['kind'] }> {
  const { emailSignIn, mfa } = deps.policy;
  const of = (kind: AccountKind): SignInMethods => ({
    password: true,
    passkey: mfa.webauthn !== undefined,
    email: emailSignIn.kinds.includes(kind),
    emailSignUp: kind === 'user' && emailSignIn.kinds.includes(kind) && emailSignIn.signUp,
  });
  return { user: of('user'), admin: of('admin'), firstAdmin: await deps.firstAdmin.available(), trustedBrowserDays: mfa.trustedBrowserDays, botCheck: deps.botCheck.kind };
}
