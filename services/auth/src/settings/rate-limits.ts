// Rate limits per client address and route, and the budget of failed logins per account.
import { env } from '@acct/shared';
import { feature } from './feature';

export const rateLimitSettings = feature({
  variables: {
    RATE_LOGIN_IP_PER_MINUTE: env.int(30, 1),
    /** Failed logins for one account from one address in the window, before that address backs off. */
    RATE_LOGIN_FAILURES_PER_ACCOUNT_IP: env.int(5, 1),
    /** Failed logins for one account from all addresses together in the window (NIST 800-63B: at most 100). */
    RATE_LOGIN_FAILURES_PER_ACCOUNT: env.int(100, 1),
    RATE_LOGIN_FAILURE_WINDOW_SECONDS: env.int(900, 1),
    RATE_REGISTER_IP_PER_HOUR: env.int(20, 1),
    RATE_FORGOT_IP_PER_HOUR: env.int(20, 1),
    /** forgot-password requests for one address from one client address. */
    RATE_FORGOT_EMAIL_IP_PER_HOUR: env.int(3, 1),
    /** Reset mails to one address, whoever asks; past it the answer is the same and no mail goes out. */
    RATE_FORGOT_EMAIL_PER_HOUR: env.int(10, 1),
    RATE_RESET_IP_PER_HOUR: env.int(20, 1),
    RATE_OTP_IP_PER_MINUTE: env.int(30, 1),
    /** Passkey sign-in options from one client address: a sign-in page asks for them on every view, so they are not sign-ins; this only bounds the flows they open. */
    RATE_PASSKEY_OPTIONS_IP_PER_MINUTE: env.int(600, 1),
    /** Checks of a new password while it is typed (the sign-up, reset and change forms), from one client address. */
    RATE_PASSWORD_CHECK_IP_PER_MINUTE: env.int(120, 1),
    /** Uses of verification, email-change and undo links from one client address. */
    RATE_EMAIL_LINK_IP_PER_HOUR: env.int(20, 1),
    /** Sign-ins an app starts through this service as an OpenID provider (authorization and device requests) from one client address: each is a record kept ten minutes. */
    RATE_OPENID_START_IP_PER_MINUTE: env.int(60, 1),
    /** Bot-check challenges given to one client address (BOT_CHECK=altcha): each costs a key derivation to make. */
    RATE_BOT_CHECK_IP_PER_MINUTE: env.int(60, 1),
  },
  section: (v) => ({
    requests: {
      loginIpPerMinute: v.RATE_LOGIN_IP_PER_MINUTE,
      registerIpPerHour: v.RATE_REGISTER_IP_PER_HOUR,
      forgotIpPerHour: v.RATE_FORGOT_IP_PER_HOUR,
      forgotEmailIpPerHour: v.RATE_FORGOT_EMAIL_IP_PER_HOUR,
      forgotEmailPerHour: v.RATE_FORGOT_EMAIL_PER_HOUR,
      resetIpPerHour: v.RATE_RESET_IP_PER_HOUR,
      otpIpPerMinute: v.RATE_OTP_IP_PER_MINUTE,
      passkeyOptionsIpPerMinute: v.RATE_PASSKEY_OPTIONS_IP_PER_MINUTE,
      passwordCheckIpPerMinute: v.RATE_PASSWORD_CHECK_IP_PER_MINUTE,
      emailLinkIpPerHour: v.RATE_EMAIL_LINK_IP_PER_HOUR,
      openIdStartIpPerMinute: v.RATE_OPENID_START_IP_PER_MINUTE,
      botCheckIpPerMinute: v.RATE_BOT_CHECK_IP_PER_MINUTE,
    },
    loginFailures: {
      perAccountAndIp: v.RATE_LOGIN_FAILURES_PER_ACCOUNT_IP,
      perAccount: v.RATE_LOGIN_FAILURES_PER_ACCOUNT,
      windowMs: v.RATE_LOGIN_FAILURE_WINDOW_SECONDS * 1000,
    },
  }),
});
