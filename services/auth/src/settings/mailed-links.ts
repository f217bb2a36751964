// The links the service mails: password resets, address verification, an address change's
// confirmation and its undo; the pages that take them (the gateway's hosted pages by default), how
// long each works, and whether addresses are proven at all.
import { z } from 'zod';
import { env, isLocalUrl } from '@acct/shared';
import { feature } from './feature';

/** The gateway's hosted pages on a development machine. */
const DEVELOPMENT_PAGES = { resetAdmin: 'http://localhost:8080/admin/reset-password', resetUser: 'http://localhost:8080/reset-password', email: 'http://localhost:8080/account/email' };

export const mailedLinkSettings = feature({
  variables: {
    RESET_TOKEN_TTL_SECONDS: env.int(1800, 60),
    /** Required in production; elsewhere the gateway's own page on localhost:8080 (the hosted pages). */
    RESET_URL_BASE_ADMIN: z.string().url().optional(),
    RESET_URL_BASE_USER: z.string().url().optional(),
    /** `off`: addresses are never proven (the contract's answers exactly); `soft`: users carry `emailVerified` and get a link; `required`: an unverified user cannot sign in. */
    EMAIL_VERIFICATION: z.enum(['off', 'soft', 'required']).default('off'),
    /** The page that takes the links of verification, email change and its undo (`?action=…&token=…`). Required in production. */
    EMAIL_LINK_URL_BASE: z.string().url().optional(),
    /** How long a verification or an email-change confirmation link works. */
    EMAIL_LINK_TTL_SECONDS: env.int(86_400, 60),
    /** How long the old address may undo an email change. */
    EMAIL_CHANGE_UNDO_SECONDS: env.int(7 * 86_400, 60),
    /** How often queued forgot-password requests are looked up and answered by mail (with ±50% jitter). */
    RESET_REQUEST_POLL_MS: env.int(1000, 10),
    /** How long a removal of second factors that the mailbox confirmed waits before it happens (a sign-in with a factor cancels it). */
    ACCOUNT_RECOVERY_DELAY_SECONDS: env.int(72 * 3600, 1),
    /** How long before that removal the owner is mailed again. */
    ACCOUNT_RECOVERY_REMINDER_SECONDS: env.int(24 * 3600, 0),
    /** How often pending removals are looked at for reminders and for what is due. */
    ACCOUNT_RECOVERY_POLL_MS: env.int(30_000, 10),
  },
  section: (v) => ({
    resetTokenTtlSeconds: v.RESET_TOKEN_TTL_SECONDS,
    resetUrlBase: { admin: v.RESET_URL_BASE_ADMIN ?? DEVELOPMENT_PAGES.resetAdmin, user: v.RESET_URL_BASE_USER ?? DEVELOPMENT_PAGES.resetUser },
    emailVerification: v.EMAIL_VERIFICATION,
    emailLinks: { urlBase: v.EMAIL_LINK_URL_BASE ?? DEVELOPMENT_PAGES.email, ttlSeconds: v.EMAIL_LINK_TTL_SECONDS, undoSeconds: v.EMAIL_CHANGE_UNDO_SECONDS },
    resetRequestPollMs: v.RESET_REQUEST_POLL_MS,
    recovery: { delaySeconds: v.ACCOUNT_RECOVERY_DELAY_SECONDS, reminderSeconds: v.ACCOUNT_RECOVERY_REMINDER_SECONDS, pollMs: v.ACCOUNT_RECOVERY_POLL_MS },
  }),
  /** Every page that takes a link is a public https page: the link carries a token. */
  production: (given) => {
    const refused: Array<[string, string]> = [];
    const pages: Array<[string, string]> = [
      ['RESET_URL_BASE_ADMIN', 'reset'],
      ['RESET_URL_BASE_USER', 'reset'],
      ['EMAIL_LINK_URL_BASE', 'email'],
    ];
    for (const [name, link] of pages) {
      const url = given[name];
      if (!url) refused.push([name, `required in production: the public page that takes a ${link} link`]);
      else if (isLocalUrl(url)) refused.push([name, `points at this machine; in production it must be the public ${link} page`]);
      else if (!/^https:\/\//i.test(url)) refused.push([name, `must be an https: page in production (the link carries a ${link} token)`]);
    }
    return refused;
  },
  policy: (s) => ({
    resetTokenTtlSeconds: s.resetTokenTtlSeconds,
    resetUrlBase: s.resetUrlBase,
    emailVerification: s.emailVerification,
    emailLinks: s.emailLinks,
    recovery: { delaySeconds: s.recovery.delaySeconds, reminderSeconds: s.recovery.reminderSeconds },
  }),
});
