// The sign-in's ports: the flows of sign-ins in progress and the failed-login budget, which every
// feature touches and shared/stores.ts declares; the factors' ports its methods check proofs with,
// and the mailed links' (a sign-in refused for an unproven address resends the proof).
import type { SharedDeps } from '../shared/ports';
import type { FactorDeps } from '../factors';
import type { EmailDeps } from '../email';

export type * from '../shared/ports';
export type { PasskeyOptions } from '../factors';

/** Every port this folder's use cases may name: shared's, its own and those of the features it calls. */
type Ports = SharedDeps & FactorDeps & EmailDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
