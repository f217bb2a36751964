// The admin console's ports: it works on other accounts through the stores every feature uses
// (shared/) and the account's, the mailed links', the factors' and the identity providers' ports,
// each through that feature's face.
import type { SharedDeps } from '../shared/ports';
import type { AccountDeps } from '../account';
import type { EmailDeps } from '../email';
import type { FactorDeps } from '../factors';
import type { IdentityDeps } from '../identity';

export type * from '../shared/ports';
export type { DesktopRelease } from '../account';

/** Every port this folder's use cases may name: shared's, its own and those of the features it calls. */
type Ports = SharedDeps & AccountDeps & EmailDeps & FactorDeps & IdentityDeps;
/** The part of the ports a use case of this folder works with: its signature says which. */
export type Needs<K extends keyof Ports> = Pick<Ports, K>;
