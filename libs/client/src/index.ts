// @acct/client: the account API for browser apps and Node, typed from openapi/openapi.yaml.
//
//   const auth = createAccountClient({ kind: 'user', base: 'https://accounts.example.com' });
//   const signIn = await auth.login(email, password);
//   if (signIn.ok && !signIn.data.signedIn) await auth.verifyOtp(signIn.data.challenge, { code });
//   const { data } = await auth.api.GET('/api/auth/user/me');
export { AccountClient, challengeFromReturn } from './account-client';
export type { Account, AccountKind, ActivityEntry, ApiError, AppAccess, Challenge, ClientOptions, EmailSignIn, FactorEntry, Factors, IdentityProvider, PasswordProblem, Result, SecondFactorMethod, SecondStepProof, Session, SignIn, SignInMethods, TrustedBrowser } from './account-client';
export { AdminClient } from './admin-client';
export type { ActivityFilter, DesktopRelease, OpenIdApp, OpenIdAppRequest, LinkedIdentity, Page, Platform, UserFactors, UserFilter } from './admin-client';
export type { components, operations, paths } from './openapi';

import { AccountClient, type ClientOptions } from './account-client';
import { AdminClient } from './admin-client';

/** A client of one account kind: an `AdminClient` (the admin routes too) for `admin`. */
export function createAccountClient(options: ClientOptions & { kind: 'admin' }): AdminClient;
export function createAccountClient(options: ClientOptions): AccountClient;
export function createAccountClient(options: ClientOptions): AccountClient {
  return options.kind === 'admin' ? new AdminClient(options) : new AccountClient(options);
}
