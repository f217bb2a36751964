// The account operations (sign-in, sessions, passwords, the proof and change of an address): parse,
// call a use case, answer the spec's envelope. Bound by operation id on the dispatcher (operations.ts), which
// applies each route's caller from the route table. Refresh tokens travel to and from the gateway in
// internal headers; the gateway alone speaks cookies.
import type { Request, Response } from 'express';
import { InternalHeaders, kindLabel, ok, type AccountKind } from '@acct/shared';
import type { HttpSettings } from './http-settings';
import { login, passkeyLogin, verifyOtp, type LoginResult } from '../../domain/sign-in/login';
import { secondStepPasskeyOptions } from '../../domain/factors';
import { passkeySignInOptions } from '../../domain/sign-in/passkey-sign-in';
import { requestEmailSignIn, signInWithEmailCode, signInWithEmailLink } from '../../domain/sign-in/email-sign-in';
import { signInMethods } from '../../domain/account/sign-in-methods';
import { botChallenge } from '../../domain/shared/bot-check';
import { changePassword, removePassword } from '../../domain/account/password-change';
import { deleteOwnAccount } from '../../domain/account/deletion';
import { confirmEmailChange, requestEmailChange, requestVerificationResend, undoEmailChange, verifyEmail } from '../../domain/email/ownership';
import { requestPasswordReset, resetPassword } from '../../domain/email/password-reset';
import { register } from '../../domain/account/register';
import { checkNewPassword } from '../../domain/account/password-check';
import { closeSession, refreshSession } from '../../domain/shared/sessions';
import type { AuthDeps } from '../../domain/ports';
import { requestContext, requestContextWithActor, requestContextWithSignal } from './request-context';
import { sendRefreshToken } from './refresh-token-headers';
import { forEachKind, type Handlers, type OpenHandler, type SessionHandler } from '@acct/shared/http';

const FORGOT_PASSWORD_MESSAGE = 'If that email is registered, a reset link has been sent.';
const VERIFICATION_RESENT_MESSAGE = 'If that email is waiting to be verified, a new link has been sent.';
const EMAIL_CHANGE_MESSAGE = 'If that address can be used, a confirmation link has been sent to it.';
const EMAIL_SIGN_IN_MESSAGE = 'If that address can sign in, a link and a code have been sent to it.';


export function accountOperations(deps: AuthDeps, settings: Pick<HttpSettings, 'verifier' | 'refreshCookieMaxAgeSeconds'>) {
  const ctx = requestContext;
  const presentedRefresh = (req: Request) => req.get(InternalHeaders.refreshToken) || undefined;
  // Seconds the access token is valid, next to the spec's keys: a client refreshes before it runs out.
  const expiresIn = deps.policy.accessTokenTtlSeconds;
  const sendRefresh = (res: Response, token: string) => sendRefreshToken(res, token, settings.refreshCookieMaxAgeSeconds);

  // A login's answer, by password or by passkey: the contract's two shapes.
  const sendLogin = (res: Response, kind: AccountKind, result: LoginResult) => {
    if (result.kind === 'otp_required') {
      // `factors` only for an account with factors of its own: the contract's answer stays exact for the others.
      const factors = result.factors ? { factors: result.factors } : {};
      // `flow` beside the contract's fields: the one kind of token a client follows through every sign-in (its id is the challenge token).
      const flow = { id: result.challengeToken, next: result.next };
      res.json(ok('OTP verification required', { requires_2fa: true, challenge_token: result.challengeToken, expires_in: result.expiresInSeconds, ...factors, flow }));
      return;
    }
    sendRefresh(res, result.refreshToken);
    res.json(ok('Login successful', { accessToken: result.accessToken, expiresIn, [kind]: result.account }));
  };

  return {
    checkPassword: async (req, res) => {
      res.json(ok('Password checked', await checkNewPassword(deps, req.body, ctx(req))));
    },

    ...forEachKind({ user: 'registerUser', admin: 'registerAdmin' }, (kind): OpenHandler => async (req, res) => {
      // Only admin registration depends on who asks (an admin may add admins once registration is closed).
      const account = await register(deps, kind, req.body, requestContextWithSignal(req, kind === 'admin' ? requestContextWithActor(req, settings.verifier) : undefined));
      res.status(201).json(ok(`${kindLabel(kind)} registered successfully`, { [kind]: account }));
    }),

    ...forEachKind({ user: 'loginUser', admin: 'loginAdmin' }, (kind): OpenHandler => async (req, res) => {
      // A login that waits for a bcrypt slot is dropped if its client leaves meanwhile.
      sendLogin(res, kind, await login(deps, kind, req.body, requestContextWithSignal(req)));
    }),

    ...forEachKind({ user: 'passkeyOptionsUser', admin: 'passkeyOptionsAdmin' }, (kind): OpenHandler => async (req, res) => {
      const { options, passkeyToken } = await passkeySignInOptions(deps, kind, ctx(req));
      res.json(ok('Passkey sign-in options', { options, passkey_token: passkeyToken, flow: { id: passkeyToken, next: ['passkey'] } }));
    }),

    ...forEachKind({ user: 'passkeyLoginUser', admin: 'passkeyLoginAdmin' }, (kind): OpenHandler => async (req, res) => {
      sendLogin(res, kind, await passkeyLogin(deps, kind, req.body, ctx(req)));
    }),

    signInMethods: async (_req, res) => {
      res.json(ok('Sign-in methods', await signInMethods(deps)));
    },

    getBotCheck: async (req, res) => {
      res.json(ok('Bot check', await botChallenge(deps, ctx(req))));
    },

    // Signing in by email: the flow's token answers the request and is this browser's flow cookie too (the link's binding).
    ...forEachKind({ user: 'requestEmailSignInUser', admin: 'requestEmailSignInAdmin' }, (kind): OpenHandler => async (req, res) => {
      const started = await requestEmailSignIn(deps, kind, req.body, ctx(req));
      res.setHeader(InternalHeaders.setBrowserFlow, started.flowToken).setHeader(InternalHeaders.browserFlowMaxAge, String(started.expiresInSeconds));
      res.json(ok(EMAIL_SIGN_IN_MESSAGE, { flow: { id: started.flowToken, next: ['email_sign_in'] }, expires_in: started.expiresInSeconds }));
    }),

    ...forEachKind({ user: 'emailLinkSignInUser', admin: 'emailLinkSignInAdmin' }, (kind): OpenHandler => async (req, res) => {
      const result = await signInWithEmailLink(deps, kind, req.body, req.get(InternalHeaders.browserFlow) || undefined, ctx(req));
      res.setHeader(InternalHeaders.clearBrowserFlow, '1');
      sendLogin(res, kind, result);
    }),

    ...forEachKind({ user: 'emailCodeSignInUser', admin: 'emailCodeSignInAdmin' }, (kind): OpenHandler => async (req, res) => {
      sendLogin(res, kind, await signInWithEmailCode(deps, kind, req.body, ctx(req)));
    }),

    ...forEachKind({ user: 'refreshUser', admin: 'refreshAdmin' }, (kind): OpenHandler => async (req, res) => {
      const session = await refreshSession(deps, kind, presentedRefresh(req), ctx(req));
      sendRefresh(res, session.refreshToken);
      res.json(ok('Token refreshed', { accessToken: session.accessToken, expiresIn }));
    }),

    ...forEachKind({ user: 'logoutUser', admin: 'logoutAdmin' }, (kind): OpenHandler => async (req, res) => {
      await closeSession(deps, kind, presentedRefresh(req), ctx(req));
      res.setHeader(InternalHeaders.clearRefreshToken, '1');
      res.json(ok('Logged out successfully'));
    }),

    ...forEachKind({ user: 'changePasswordUser', admin: 'changePasswordAdmin' }, (kind): SessionHandler => async (req, res, caller) => {
      const result = await changePassword(deps, caller, req.body, requestContextWithSignal(req));
      sendRefresh(res, result.refreshToken);
      res.json(ok('Password changed', { accessToken: result.accessToken, expiresIn, [kind]: result.account }));
    }),

    ...forEachKind({ user: 'removePasswordUser', admin: 'removePasswordAdmin' }, (kind): SessionHandler => async (req, res, caller) => {
      const result = await removePassword(deps, caller, ctx(req));
      sendRefresh(res, result.refreshToken);
      res.json(ok('Password removed', { accessToken: result.accessToken, expiresIn, [kind]: result.account }));
    }),

    ...forEachKind({ user: 'deleteOwnUserAccount', admin: 'deleteOwnAdminAccount' }, (): SessionHandler => async (req, res, caller) => {
      await deleteOwnAccount(deps, caller, req.body, requestContextWithSignal(req));
      res.setHeader(InternalHeaders.clearRefreshToken, '1');
      res.json(ok('Account deleted'));
    }),

    ...forEachKind({ user: 'forgotUserPassword', admin: 'forgotAdminPassword' }, (kind): OpenHandler => async (req, res) => {
      await requestPasswordReset(deps, kind, req.body, ctx(req));
      res.json(ok(FORGOT_PASSWORD_MESSAGE));
    }),

    ...forEachKind({ user: 'resetUserPassword', admin: 'resetAdminPassword' }, (kind): OpenHandler => async (req, res) => {
      await resetPassword(deps, kind, req.body, requestContextWithSignal(req));
      res.json(ok('Password reset successfully'));
    }),

    verifyOtp: async (req, res) => {
      const result = await verifyOtp(deps, req.body, requestContextWithSignal(req));
      sendRefresh(res, result.refreshToken);
      // Asked for with the step: the gateway keeps this browser's trust in the kind's cookie.
      if (result.trustedBrowser) res.setHeader(InternalHeaders.setTrustedBrowser, result.trustedBrowser).setHeader(InternalHeaders.trustedBrowserMaxAge, String(deps.policy.mfa.trustedBrowserDays * 86_400));
      // The contract's route is an admin's; an account of either kind may now take a second step.
      res.setHeader(InternalHeaders.refreshTokenKind, result.kind);
      // `token` and `user` are the interface's names; `accessToken` beside them is what every other answer calls it.
      res.json(ok('Login successful', { token: result.accessToken, accessToken: result.accessToken, expiresIn, user: result.account }));
    },

    // Proving and changing a user's address (admins are not asked to prove theirs).
    verifyEmail: async (req, res) => {
      const user = await verifyEmail(deps, 'user', req.body, ctx(req));
      res.json(ok('Email verified', { user }));
    },

    resendVerification: async (req, res) => {
      await requestVerificationResend(deps, 'user', req.body, ctx(req));
      res.json(ok(VERIFICATION_RESENT_MESSAGE));
    },

    requestEmailChange: async (req, res, caller) => {
      await requestEmailChange(deps, caller, req.body, requestContextWithSignal(req));
      res.json(ok(EMAIL_CHANGE_MESSAGE));
    },

    confirmEmailChange: async (req, res) => {
      const user = await confirmEmailChange(deps, 'user', req.body, ctx(req));
      res.json(ok('Email changed', { user }));
    },

    undoEmailChange: async (req, res) => {
      await undoEmailChange(deps, 'user', req.body, ctx(req));
      res.json(ok('Email change undone; every session was signed out'));
    },

    secondStepPasskeyOptions: async (req, res) => {
      const options = await secondStepPasskeyOptions(deps, req.body, ctx(req));
      res.json(ok('Passkey options', { options }));
    },
  } satisfies Partial<Handlers<'auth'>>;
}
