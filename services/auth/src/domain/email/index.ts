// What the mailed links give the other features: whether an address is free, proven and may sign
// in, the proof's link, and the notice of an address an admin moved (ownership.ts); and its ports.
export { announceAddressMovedByAdmin, assertAddressFree, assertMaySignIn, sendVerificationLink, verifiesEmail } from './ownership';
export type { ClaimedResetRequest, EmailDeps } from './ports';
