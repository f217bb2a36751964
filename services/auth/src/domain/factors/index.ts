// Second factors of both account kinds, one module per method (authenticator-app, passkey,
// recovery-codes, mailed-code) behind one interface (method.ts) and one registry (registry.ts) that
// the sign-in, every list and the rules below the features read, over one list-shaped store; the libraries they use (otpauth, qrcode, @simplewebauthn/server) sit behind ports,
// in security/. Adding or removing a factor needs a recent proof (the password or a second factor in
// the last STEP_UP_SECONDS, step-up.ts); removing one ends the account's other sessions; every change
// is a notice by mail (an `account.security.changed` event through the outbox).
export type { SecondStepMethod } from './method';
export type { FactorDeps, PasskeyOptions, SecondFactor } from './ports';
export { SECOND_STEP_METHODS, factorMethods, factorMethodsOf, proveSecondStep, secondFactorsOf } from './registry';
export { confirmAuthenticator, startAuthenticator } from './authenticator-app';
export { passkeyRegistrationOptions, registerPasskey, secondStepPasskeyOptions, verifyAssertion } from './passkey';
export { removeFactor } from './removal';
export { requireWebauthn } from './common';
export { regenerateRecoveryCodes } from './recovery-codes';
export { reauthenticate } from './step-up';
export { listOwnFactors, resetUserFactors, userFactorSummary, type FactorList, type UserFactorSummary } from './views';
