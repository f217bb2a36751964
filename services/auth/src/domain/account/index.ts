// What the account gives the other features: a session as its owner is shown it (profile.ts); and its ports.
export { toSessionRecord, type SessionRecord } from './profile';
export type { AccountDeps, DesktopRelease } from './ports';
