// What the use cases work with, as interfaces: the stores in data-access/ and the adapters in
// security/ implement them, the composition root (server.ts) wires them once. Each feature folder
// declares its own ports (shared/ports.ts holds the ones every feature uses); AuthDeps is all of
// them, and each use case's signature names the few it uses (`Needs<'accounts' | 'hasher'>`).
import type { AccountDeps } from './account/ports';
import type { AppDeps } from './apps/ports';
import type { EmailDeps } from './email/ports';
import type { FactorDeps } from './factors/ports';
import type { IdentityDeps } from './identity/ports';
import type { SharedDeps } from './shared/ports';

export type * from './account/ports';
export type * from './apps/ports';
export type * from './email/ports';
export type * from './factors/ports';
export type * from './identity/ports';
export type * from './shared/ports';
export type * from './sign-in/ports';

export interface AuthDeps extends SharedDeps, FactorDeps, EmailDeps, IdentityDeps, AccountDeps, AppDeps {}

/** The part of the ports a use case works with: its signature says which. */
export type Needs<K extends keyof AuthDeps> = Pick<AuthDeps, K>;
