// Signing in with an emailed link or code, no password (domain/sign-in/email-sign-in.ts): which kinds
// may, whether the first link may make a user's account, how long a mail's link and code work, and
// the page that takes the link. Off unless turned on: a new way in is the deployment's choice.
import { z } from 'zod';
import { env, isLocalUrl, isOn, type AccountKind } from '@acct/shared';
import { feature } from './feature';

/** The gateway's hosted sign-in pages on a development machine. */
const DEVELOPMENT_PAGES = { user: 'http://localhost:8080/login', admin: 'http://localhost:8080/admin/login' };

export const emailSignInSettings = feature({
  variables: {
    /** Users may sign in with a link or code mailed to their address, without a password. */
    EMAIL_SIGN_IN: env.bool(false),
    /** Admins may too (their own second factor is still asked for: a mailbox is one factor). */
    EMAIL_SIGN_IN_ADMINS: env.bool(false),
    /** The first link to an address no user has makes the account (with its address proven). Needs EMAIL_SIGN_IN. */
    EMAIL_SIGN_UP: env.bool(false),
    /** How long a mail's link and code work, in seconds. */
    EMAIL_SIGN_IN_TTL_SECONDS: env.int(600, 60).pipe(z.number().max(3600)),
    /** The page that takes a user's link (`?email_sign_in=<link>`); required in production when users may. */
    EMAIL_SIGN_IN_URL_BASE_USER: z.string().url().optional(),
    /** The page that takes an admin's link; required in production when admins may. */
    EMAIL_SIGN_IN_URL_BASE_ADMIN: z.string().url().optional(),
  },
  section: (v) => ({
    kinds: [...(v.EMAIL_SIGN_IN ? ['user' as const] : []), ...(v.EMAIL_SIGN_IN_ADMINS ? ['admin' as const] : [])] as AccountKind[],
    signUp: v.EMAIL_SIGN_IN && v.EMAIL_SIGN_UP,
    ttlSeconds: v.EMAIL_SIGN_IN_TTL_SECONDS,
    urlBase: { user: v.EMAIL_SIGN_IN_URL_BASE_USER ?? DEVELOPMENT_PAGES.user, admin: v.EMAIL_SIGN_IN_URL_BASE_ADMIN ?? DEVELOPMENT_PAGES.admin },
  }),
  rules: (given) => (isOn(given.EMAIL_SIGN_UP) && !isOn(given.EMAIL_SIGN_IN) ? [['EMAIL_SIGN_UP', 'needs EMAIL_SIGN_IN=true: a sign-up by email is the first email sign-in']] : []),
  /** Every page that takes a link is a public https page: the link carries a sign-in. */
  production: (given) => {
    const refused: Array<[string, string]> = [];
    const pages: Array<[string, string]> = [
      ['EMAIL_SIGN_IN', 'EMAIL_SIGN_IN_URL_BASE_USER'],
      ['EMAIL_SIGN_IN_ADMINS', 'EMAIL_SIGN_IN_URL_BASE_ADMIN'],
    ];
    for (const [flag, name] of pages) {
      if (!isOn(given[flag])) continue;
      const url = given[name];
      if (!url) refused.push([name, `required in production with ${flag}: the public page that takes a sign-in link`]);
      else if (isLocalUrl(url) || !/^https:\/\//i.test(url)) refused.push([name, 'must be a public https page in production (the link signs a browser in)']);
    }
    return refused;
  },
  weakened: (s) => (s.kinds.includes('admin') ? ['EMAIL_SIGN_IN_ADMINS=true: admins may start a sign-in from their mailbox (their own second factor is still asked for)'] : []),
  policy: (s) => ({ emailSignIn: s }),
});
