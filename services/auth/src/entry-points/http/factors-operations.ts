// Second factors: what an account (either kind) does with its own, and an admin's view and reset of
// a user's. Sessions of the route's kind only, still alive (the route table says so; the dispatcher,
// operations.ts, holds them to it).
import { ok } from '@acct/shared';
import { assertUserId } from '../../domain/shared/account';
import {
  confirmAuthenticator,
  listOwnFactors,
  passkeyRegistrationOptions,
  reauthenticate,
  regenerateRecoveryCodes,
  registerPasskey,
  removeFactor,
  resetUserFactors,
  startAuthenticator,
  userFactorSummary,
} from '../../domain/factors';
import { hasPassword } from '../../domain/account/password-change';
import { forgetTrustedBrowser, listTrustedBrowsers } from '../../domain/factors/trusted-browsers';
import type { AuthDeps } from '../../domain/ports';
import { cancelOwnFactorRecovery, confirmFactorRecovery, pendingRecovery, requestFactorRecovery } from '../../domain/email/factor-recovery';
import { requestContext as ctx, requestContextOf, requestContextWithSignal } from './request-context';
import { forEachKind, type Handlers, type SessionHandler } from '@acct/shared/http';

export function factorsOperations(deps: AuthDeps, settings: { stepUpSeconds: number }) {
  return {
    ...forEachKind({ user: 'reauthenticateUser', admin: 'reauthenticateAdmin' }, (): SessionHandler => async (req, res, caller) => {
      await reauthenticate(deps, caller, req.body, requestContextWithSignal(req));
      res.json(ok('Reauthenticated', { expiresIn: settings.stepUpSeconds }));
    }),

    ...forEachKind({ user: 'listFactorsUser', admin: 'listFactorsAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const [factors, recovery, password] = await Promise.all([listOwnFactors(deps, caller), pendingRecovery(deps, caller), hasPassword(deps, caller)]);
      res.json(ok('Factors', { factors, recovery, password }));
    }),

    ...forEachKind({ user: 'listTrustedBrowsersUser', admin: 'listTrustedBrowsersAdmin' }, (): SessionHandler => async (_req, res, caller) => {
      const browsers = await listTrustedBrowsers(deps, caller);
      res.json(ok('Trusted browsers', { browsers: browsers.map((b) => ({ id: b.id, createdAt: b.createdAt.toISOString(), expiresAt: b.expiresAt.toISOString(), ip: b.ip ?? null, userAgent: b.userAgent ?? null })) }));
    }),

    ...forEachKind({ user: 'forgetTrustedBrowserUser', admin: 'forgetTrustedBrowserAdmin' }, (): SessionHandler => async (req, res, caller, params) => {
      await forgetTrustedBrowser(deps, caller, params.browserId, ctx(req));
      res.json(ok('Browser forgotten'));
    }),

    ...forEachKind({ user: 'cancelFactorRecoveryUser', admin: 'cancelFactorRecoveryAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const cancelled = await cancelOwnFactorRecovery(deps, caller, ctx(req));
      res.json(ok(cancelled ? 'Factor recovery cancelled' : 'No factor recovery was pending', { cancelled }));
    }),

    ...forEachKind({ user: 'startTotpUser', admin: 'startTotpAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const enrolment = await startAuthenticator(deps, caller);
      res.json(ok('Scan the QR code with an authenticator app, then confirm a code', enrolment));
    }),

    ...forEachKind({ user: 'confirmTotpUser', admin: 'confirmTotpAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const confirmed = await confirmAuthenticator(deps, caller, req.body, ctx(req));
      res.json(ok('Authenticator app enabled', confirmed));
    }),

    ...forEachKind({ user: 'removeTotpUser', admin: 'removeTotpAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const signedOut = await removeFactor(deps, caller, { method: 'totp', id: 'totp' }, ctx(req));
      res.json(ok('Authenticator app removed', { signedOut }));
    }),

    ...forEachKind({ user: 'recoveryCodesUser', admin: 'recoveryCodesAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const recoveryCodes = await regenerateRecoveryCodes(deps, caller, ctx(req));
      res.json(ok('Recovery codes replaced', { recoveryCodes }));
    }),

    ...forEachKind({ user: 'passkeyRegistrationOptionsUser', admin: 'passkeyRegistrationOptionsAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const options = await passkeyRegistrationOptions(deps, caller);
      res.json(ok('Passkey registration options', { options }));
    }),

    ...forEachKind({ user: 'addPasskeyUser', admin: 'addPasskeyAdmin' }, (): SessionHandler => async (req, res, caller) => {
      const added = await registerPasskey(deps, caller, req.body, ctx(req));
      res.status(201).json(ok('Passkey added', added));
    }),

    ...forEachKind({ user: 'removePasskeyUser', admin: 'removePasskeyAdmin' }, (): SessionHandler => async (req, res, caller, params) => {
      const signedOut = await removeFactor(deps, caller, { method: 'passkey', id: params.passkeyId }, ctx(req));
      res.json(ok('Passkey removed', { signedOut }));
    }),

    ...forEachKind({ user: 'removeFactorUser', admin: 'removeFactorAdmin' }, (): SessionHandler => async (req, res, caller, params) => {
      const signedOut = await removeFactor(deps, caller, { id: params.factorId }, ctx(req));
      res.json(ok('Factor removed', { signedOut }));
    }),

    // Getting back in without the second factors: asked from a second step, confirmed from the mailbox.
    requestFactorRecovery: async (req, res) => {
      await requestFactorRecovery(deps, req.body, ctx(req));
      res.json(ok('We emailed the account a link to confirm the removal of its second factors'));
    },

    confirmFactorRecovery: async (req, res) => {
      const recovery = await confirmFactorRecovery(deps, req.body, ctx(req));
      res.json(ok('The second factors will be removed after the waiting period, unless one of them signs in first', { recovery }));
    },

    getUserFactors: async (_req, res, _admin, params) => {
      assertUserId(params.userId);
      const factors = await userFactorSummary(deps, params.userId);
      res.json(ok('User factors', { factors }));
    },

    // Changes another account: its row asks the store too and a recent proof.
    resetUserFactors: async (req, res, admin, params) => {
      assertUserId(params.userId);
      // The reset is in the user's history with the admin who made it.
      const removed = await resetUserFactors(deps, params.userId, requestContextOf(req, admin));
      res.json(ok('User factors reset', { removed }));
    },
  } satisfies Partial<Handlers<'auth'>>;
}
