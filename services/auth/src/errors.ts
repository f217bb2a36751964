// The auth service's error catalogue: the base codes plus auth's own, and every error a use case or
// route raises, with its words. The one place a code of auth gets its status.
import { InternalHeaders, errorCatalogue, errors } from '@acct/shared';

export const authErrorCatalogue = errorCatalogue({
  invalid_credentials: { status: 401, meaning: 'Unknown email or wrong password (the two are not told apart).' },
  invalid_challenge: { status: 401, meaning: 'The `challenge_token` of verify-otp is unknown, used up or expired: log in again.' },
  invalid_otp: { status: 401, meaning: 'The 6-digit code does not match; a few more tries are allowed before the challenge ends.' },
  refresh_token_missing: { status: 401, meaning: 'No refresh cookie came with refresh: log in.' },
  refresh_token_invalid: { status: 401, meaning: 'The refresh cookie is unknown, expired or was already used (the session is then ended): log in. The cookie is cleared.' },
  account_disabled: { status: 403, meaning: 'The account exists but an admin disabled it.' },
  admin_registration_closed: { status: 403, meaning: 'Admin registration needs an admin session once the first admin exists.' },
  user_not_found: { status: 404, meaning: 'No user has this id.' },
  avatar_not_found: { status: 404, meaning: 'The user has no avatar stored.' },
  session_not_found: { status: 404, meaning: 'The signed-in user has no live session with this id (it ended already, or is another account\'s).' },
  email_taken: { status: 409, meaning: 'Another account of this kind already has this email.' },
  reset_token_invalid: { status: 400, meaning: 'The reset token is unknown, used up, replaced by a newer link or expired: ask for a new link.' },
  password_too_common: { status: 400, meaning: 'The new password is in the bundled list of commonly breached passwords (when `BREACHED_PASSWORD_CHECK` is on): choose another.' },
  email_not_verified: { status: 403, meaning: 'The account has not proven its address yet (EMAIL_VERIFICATION=required): use the mailed link, or ask for a new one with `verify-email/resend`.' },
  link_invalid: { status: 400, meaning: 'The verification, email-change or undo link is unknown, used, replaced by a newer one, expired, or for an address the account no longer has.' },
  last_admin: { status: 409, meaning: 'The only admin cannot delete their account: make another admin first.' },
  step_up_required: { status: 403, meaning: 'Adding or removing a second factor needs the password or a code in the last few minutes: call `reauthenticate`, then retry.' },
  factor_exists: { status: 409, meaning: 'An authenticator app is already set up (remove it first), or this passkey is already registered.' },
  factor_not_found: { status: 404, meaning: 'No such factor (or trusted browser) of the signed-in account, no authenticator enrolment waiting for its first code, or no factor that recovery codes could stand in for.' },
  passkey_rejected: { status: 401, meaning: 'The passkey answer did not verify: another relying party, a used or expired ceremony, an unknown passkey, or a bad signature. Start the ceremony again.' },
  passkey_origin_refused: { status: 401, meaning: 'The page that ran the passkey ceremony is on an origin `WEBAUTHN_ORIGINS` does not list (the message names it): the deployment lists it, or the page moves to a listed origin.' },
  passkeys_disabled: { status: 404, meaning: 'This deployment has no passkey relying party (`WEBAUTHN_RP_ID` unset in production).' },
  identity_provider_unknown: { status: 404, meaning: 'No identity provider of this deployment has this id (`OIDC_PROVIDERS`), or, on an admin route, admins may not use it (`OIDC_ADMIN_PROVIDERS`).' },
  identity_provider_unavailable: { status: 503, meaning: 'The identity provider has not answered its discovery yet (retried in the background): retry later; every other sign-in works.' },
  return_url_not_allowed: { status: 400, meaning: '`returnTo` is not one of the app URLs a sign-in may return to (`OIDC_APP_URLS`), nor a page under one.' },
  identity_not_found: { status: 404, meaning: 'The signed-in account has no identity at this provider.' },
  last_sign_in_method: { status: 409, meaning: 'Unlinking this identity, removing this passkey or turning the password off would leave the account no way to sign in: add another way in first (a password by forgot-password, a passkey, a provider; the mailbox counts where the kind may sign in by email).' },
  password_not_set: { status: 409, meaning: 'The account has no password to turn off (set one with forgot-password).' },
  email_sign_in_disabled: { status: 404, meaning: 'This deployment does not let this kind of account sign in with an emailed link or code (`EMAIL_SIGN_IN`, `EMAIL_SIGN_IN_ADMINS`).' },
  email_link_invalid: { status: 400, meaning: 'The sign-in link is unknown, used, expired, replaced by a newer sign-in, or the account\'s credentials changed since it was mailed: ask for a new one.' },
  email_link_other_browser: { status: 403, meaning: 'The sign-in link holds, but was asked for in another browser: open it in the browser that asked, or enter the code of the same mail on the device that asked. It stays good for that browser.' },
  second_factor_required: { status: 403, meaning: 'Admins only: a link or code from the mailbox is one factor, and the admin has no second factor of their own to add to it: sign in with the password.' },
  interaction_expired: { status: 404, meaning: 'An app\'s sign-in request (this service as an OpenID provider) is unknown, finished, expired (10 minutes) or another browser\'s: go back to the app and start again.' },
  bot_check_failed: { status: 400, meaning: 'The bot check (`BOT_CHECK`) of sign-up, sign-in with a password, forgot-password and sign-in by email did not pass: `botCheck` is missing, or its challenge is expired, used or wrongly solved. Get a new one (`GET /api/auth/bot-check`), solve it and send it again.' },
  openid_provider_disabled: { status: 404, meaning: 'This deployment is no OpenID provider (`OPENID_PROVIDER` off): it has no apps to manage.' },
  app_not_found: { status: 404, meaning: 'No app registered in the console has this id.' },
  app_declared: { status: 409, meaning: 'The app is declared in configuration (`OPENID_CLIENTS`): it is changed there, not in the console.' },
  consent_required: { status: 400, meaning: 'The app is not one of the product\'s own: the person\'s consent (`{"consent": true}`, after the page showed what the app asks) comes with the approval.' },
});

/**
 * What a provider's callback tells the app in `?error=<code>` when it cannot sign the person in (it
 * redirects; it never answers an error body). A closed list like the catalogue above, documented
 * from here (docs/errors.md, `npm run docs:errors`); codes the API answers too mean the same thing.
 */
export const identityRedirectErrors = {
  identity_state_invalid: 'The flow is unknown, used, expired or another browser\'s (then the browser goes to the first app URL), or the account\'s credentials changed since a link started: start again.',
  identity_provider_refused: 'The person cancelled at the provider, or the provider refused.',
  identity_provider_unavailable: 'The provider could not be reached: retry later; every other sign-in works.',
  identity_token_invalid: 'The provider\'s ID token did not validate (signature, issuer, audience, nonce or expiry).',
  identity_email_unverified: 'The provider did not say the address is verified: sign in another way.',
  identity_account_exists: 'An account has this address and has not verified it: sign in with its password, then link the provider from the account.',
  identity_taken: 'The identity is another account\'s, or an admin\'s, or the account has an identity at this provider already.',
  identity_not_linked: 'Admins only: no admin linked this identity; sign in with the password and link it.',
  second_factor_required: 'Admins only: the admin has no second factor, and a provider is only ever the first: sign in with the password.',
  account_disabled: 'The account exists but an admin disabled it.',
  email_not_verified: 'The account has not proven its address yet (EMAIL_VERIFICATION=required).',
  rate_limited: 'Too many sign-ins from this address: wait a minute.',
  service_unavailable: 'A store or service behind auth is unreachable: retry with back-off.',
} as const;

export type IdentityErrorCode = keyof typeof identityRedirectErrors;

/** The redirect errors as a Markdown table, for docs/errors.md. */
export const identityRedirectErrorTable = (): string =>
  ['| code | meaning |', '| --- | --- |', ...Object.entries(identityRedirectErrors).map(([code, meaning]) => `| \`${code}\` | ${meaning} |`)].join('\n');

const { error } = authErrorCatalogue;
const bad = (message: string) => errors.validation(message);

export const AuthErrors = {
  /** Password work is queued past what the replica can do in time: retry shortly (ideally on another replica). */
  busy: () => errors.busy(1),
  // The spec's validation messages, to the letter.
  registerMissing: () => bad('Please provide name, email and password'),
  nameLength: () => bad('Name must be 2-20 characters'),
  nameCharacters: () => bad('Name must show at least two characters, with no control, line-break or text-direction characters'),
  emailFormat: () => bad('Invalid email format'),
  loginMissing: () => bad('Please provide email and password'),
  otpMissing: () => bad('Please provide challenge_token and code'),
  otpFormat: () => bad('Code must be a 6 digit OTP'),
  adminForgotMissing: () => bad('Please provide email'),
  userForgotInvalid: () => bad('Please provide a valid email'),
  resetMissing: () => bad('Please provide token and newPassword'),
  // Decisions of DESIGN.md for what the spec leaves open.
  passwordPolicy: () => bad('Password must be 8-128 characters'),
  passwordTooCommon: () => error('password_too_common', 'This password is too common; choose another'),
  passwordCheckMissing: () => bad('Please provide password'),
  changePasswordMissing: () => bad('Please provide currentPassword and newPassword'),
  emailNotVerified: () => error('email_not_verified', 'Email address not verified'),
  linkInvalid: () => error('link_invalid', 'Invalid or expired link'),
  linkTokenMissing: () => bad('Please provide token'),
  emailChangeMissing: () => bad('Please provide newEmail'),
  passwordOrRecentProof: () => error('step_up_required', 'Provide your password, or confirm a code first'),
  lastAdmin: () => error('last_admin', 'The last admin cannot be deleted'),
  invalidCredentials: () => error('invalid_credentials', 'Invalid credentials'),
  accountDisabled: () => error('account_disabled', 'Account is disabled'),
  emailTaken: () => error('email_taken', 'Email already registered'),
  adminRegistrationClosed: () => error('admin_registration_closed', 'Admin registration is closed'),
  invalidChallenge: () => error('invalid_challenge', 'Invalid or expired challenge token'),
  sessionRevoked: () => errors.sessionRevoked(),
  invalidCode: () => error('invalid_otp', 'Invalid code'),
  refreshMissing: () => error('refresh_token_missing', 'Refresh token missing'),
  /** The same answer to a browser page, with the likely cause: the cookie was not sent, or not kept. */
  refreshMissingFromBrowser: () =>
    error('refresh_token_missing', 'Refresh token missing', {
      errors: {
        refreshToken:
          "The browser sent no refresh cookie. Call login, verify-otp, refresh and logout with credentials: 'include', and serve the app and the API on one site; over plain http (other than localhost) a production cookie is Secure and never stored.",
      },
    }),
  refreshInvalid: () => error('refresh_token_invalid', 'Invalid or expired refresh token', { headers: { [InternalHeaders.clearRefreshToken]: '1' } }),
  resetInvalid: () => error('reset_token_invalid', 'Invalid or expired reset token'),
  rateLimited: (retryAfterSeconds: number) => errors.rateLimited(retryAfterSeconds),
  // Second factors.
  codeMissing: () => bad('Please provide code'),
  challengeTokenMissing: () => bad('Please provide challenge_token'),
  /** A body naming a flow twice, as `flow` and under its own name, with two different tokens. */
  flowTokensDiffer: (name: 'challenge_token' | 'passkey_token') => bad(`${name} and flow name different sign-ins: send one of them`),
  recoveryCodeFormat: () => bad('Recovery code must be 10 letters and digits as issued, such as abcde-23456'),
  passkeyAnswerFormat: () => bad('passkey must be the WebAuthn answer object that the browser gave'),
  passkeySignInMissing: () => bad('Please provide passkey_token and passkey'),
  passkeyName: () => bad('name must be 1-64 characters'),
  reauthenticateMissing: () => bad('Please provide password or code'),
  stepUpRequired: () => error('step_up_required', 'Confirm your password or a code first'),
  interactionExpired: () => error('interaction_expired', 'This sign-in request has ended: go back to the app and start again'),
  consentRequired: () => error('consent_required', 'The app asks for your consent first'),
  authenticatorExists: () => error('factor_exists', 'An authenticator app is already set up; remove it first'),
  passkeyExists: () => error('factor_exists', 'This passkey is already registered'),
  noPendingAuthenticator: () => error('factor_not_found', 'No authenticator app is waiting for its first code; start again'),
  factorNotFound: () => error('factor_not_found', 'Factor not found'),
  noFactorForRecoveryCodes: () => error('factor_not_found', 'Recovery codes need an authenticator app or a passkey first'),
  passkeyRejected: () => error('passkey_rejected', 'Passkey not accepted'),
  passkeyOriginRefused: (origin: string) => error('passkey_origin_refused', `Passkeys are not set up for pages at ${origin}: the service's WEBAUTHN_ORIGINS must list it`),
  botCheckFailed: () => error('bot_check_failed', 'The bot check did not pass: solve a new one and try again'),
  appInvalid: (message: string) => bad(`Invalid app: ${message}`),
  openIdProviderOff: () => error('openid_provider_disabled', 'This service is not an OpenID provider (OPENID_PROVIDER is off)'),
  appNotFound: () => error('app_not_found', 'App not found'),
  appDeclared: () => error('app_declared', 'This app is declared in configuration (OPENID_CLIENTS): change it there'),
  passkeysOff: () => error('passkeys_disabled', 'Passkeys are not enabled on this service'),
  // Identity providers.
  identityProviderUnknown: () => error('identity_provider_unknown', 'Unknown identity provider'),
  identityProviderUnavailable: () => error('identity_provider_unavailable', 'Identity provider unavailable, please retry later', { retryAfterSeconds: 30 }),
  returnUrlNotAllowed: () => error('return_url_not_allowed', 'returnTo is not an allowed app URL'),
  identityNotFound: () => error('identity_not_found', 'No identity linked at this provider'),
  lastSignInMethod: () => error('last_sign_in_method', 'This is the account\'s last way to sign in; set a password or link another provider first'),
  lastWayInPassword: () => error('last_sign_in_method', 'The password is the account\'s only way to sign in; add a passkey or link a provider first'),
  noPassword: () => error('password_not_set', 'The account has no password'),
  trustedBrowserNotFound: () => error('factor_not_found', 'No such trusted browser'),
  // Signing in with an emailed link or code.
  emailSignInOff: () => error('email_sign_in_disabled', 'Signing in by email is not enabled on this service'),
  emailSignInMissing: () => bad('Please provide email'),
  emailLinkMissing: () => bad('Please provide token'),
  emailCodeMissing: () => bad('Please provide flow and code'),
  emailLinkInvalid: () => error('email_link_invalid', 'Invalid or expired sign-in link'),
  emailLinkOtherBrowser: () => error('email_link_other_browser', 'This sign-in link was asked for in another browser: open it there, or enter its code on the device that asked'),
  secondFactorRequired: () => error('second_factor_required', 'An admin signs in by email only with a second factor of their own; sign in with your password'),
  // Admin user routes.
  authRequired: () => errors.unauthorized(),
  adminOnly: () => errors.forbidden('Admin session required'),
  userOnly: () => errors.forbidden('User session required'),
  sessionNotFound: () => error('session_not_found', 'Session not found'),
  badListLimit: () => bad('limit must be a whole number from 1 to 100'),
  badListCursor: () => bad('Invalid cursor'),
  badListQuery: () => bad('query must be at most 100 characters'),
  badListVerified: () => bad('emailVerified must be true or false'),
  badListDisabled: () => bad('disabled must be true or false'),
  badActivityType: () => bad('type must be an activity type such as signed_in'),
  badActivityActor: () => bad('actorId must be an account id'),
  badActivityKind: () => bad('kind must be user or admin'),
  badUserId: () => bad('Invalid user id'),
  userNotFound: () => error('user_not_found', 'User not found'),
  nothingToUpdate: () => bad('Provide at least one of name, email, disabled or password'),
  disabledNotBoolean: () => bad('disabled must be true or false'),
  noAvatar: () => bad('Please provide an avatar file in the field avatar'),
  avatarNotMultipart: () => bad('Send the avatar as multipart/form-data'),
  avatarOneFile: () => bad('Send one file, in the field avatar'),
  malformedMultipart: () => bad('Malformed multipart body'),
  avatarType: () => errors.unsupportedMediaType('Avatar must be a PNG, JPEG or WebP image'),
  avatarTooLarge: () => errors.tooLarge('Avatar must be at most 2 MiB'),
  noAvatarStored: () => error('avatar_not_found', 'This user has no avatar'),
  profileNameMissing: () => bad('Please provide name'),
  profileOnlyName: () => bad('Only name and language can be changed here; the email address and the password have their own routes'),
  languageInvalid: () => bad('language must be a language tag such as en or de'),
};
