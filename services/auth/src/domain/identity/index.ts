// What the identity providers give the other features: an account's linked identities as shown, and
// the unlinking of one (sign-in.ts); and their ports.
export { identityRecords, unlinkFrom } from './sign-in';
export type { IdentityDeps } from './ports';
