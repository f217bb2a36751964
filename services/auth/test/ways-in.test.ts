// The ways-in rule on in-memory ports: an account never removes its last way in, whatever the
// order or the race (what a mailbox may remove is test/domain/mailbox.test.ts's).
import type { AccountKind } from '@acct/shared';
import type { Account } from '../src/domain/shared/account';
import { factorMethods } from '../src/domain/factors';
import type { Factor, FactorRef, LinkedIdentity, Needs } from '../src/domain/ports';
import { removeWayIn } from '../src/domain/shared/ways-in';

const DAY = 24 * 3600 * 1000;
const NOW = Date.parse('2026-11-26T12:00:00Z');

function account(overrides: Partial<Account> = {}): Account {
  return {
    id: '64b7f0c2a1b2c3d4e5f60718',
    email: 'owner@example.com',
    name: 'Owner',
    passwordHash: null,
    role: 'user',
    disabled: false,
    twoFactorEnabled: false,
    avatar: null,
    credentialEpoch: 0,
    createdAt: new Date(NOW - 90 * DAY),
    updatedAt: new Date(NOW - 90 * DAY),
    ...overrides,
  };
}

const passkey = (id: string, ageDays: number): Factor => ({ id, method: 'passkey', kind: 'user', accountId: account().id, name: id, confirmed: true, counter: 0, codesLeft: 0, details: { publicKey: 'k' }, createdAt: new Date(NOW - ageDays * DAY), lastUsedAt: null });
const identity = (provider: string, ageDays: number): LinkedIdentity => ({ provider, subject: `s-${provider}`, kind: 'user', accountId: account().id, linkedAt: new Date(NOW - ageDays * DAY) });

/** Factors, identities and a lock, in memory: each removal yields to the event loop, as a store's round trip does. */
function ports(state: { passkeys: Factor[]; identities: LinkedIdentity[] }, emailSignIn: AccountKind[] = []) {
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  let chain: Promise<unknown> = Promise.resolve();
  const deps = {
    policy: { emailSignIn: { kinds: emailSignIn } },
    locks: {
      run<T>(_name: string, work: () => Promise<T>): Promise<T> {
        const next = chain.then(work, work);
        chain = next.catch(() => undefined);
        return next;
      },
    },
    factorMethods,
    factors: {
      async list(): Promise<Factor[]> {
        await tick();
        return [...state.passkeys];
      },
      async remove(_kind: string, _id: string, factor: FactorRef) {
        await tick();
        const before = state.passkeys.length;
        state.passkeys = state.passkeys.filter((p) => p.id !== factor.id);
        return state.passkeys.length < before;
      },
    },
    identities: {
      async listFor() {
        await tick();
        return [...state.identities];
      },
      async remove(_kind: string, _id: string, provider: string) {
        await tick();
        const before = state.identities.length;
        state.identities = state.identities.filter((i) => i.provider !== provider);
        return state.identities.length < before;
      },
    },
  };
  return deps as unknown as Needs<'locks' | 'factors' | 'factorMethods' | 'identities' | 'policy'>;
}

const thePasskey = (id: string) => ({ type: 'factor' as const, factor: { method: 'passkey' as const, id } });

describe('removeWayIn: never without a way in', () => {
  it.each([
    ['the last passkey of a passwordless account', { passkeys: [passkey('p1', 30)], identities: [] }, thePasskey('p1')],
    ['the only identity of a passwordless account', { passkeys: [], identities: [identity('corp', 30)] }, { type: 'identity' as const, provider: 'corp' }],
  ])('refuses to remove %s', async (_label, state, removing) => {
    const deps = ports(state);
    const remove = jest.fn(async () => true);
    await expect(removeWayIn(deps, 'user', account(), removing, remove)).rejects.toMatchObject({ code: 'last_sign_in_method', httpStatus: 409 });
    expect(remove).not.toHaveBeenCalled();
  });

  it('counts a factor that signs in by itself as a way in, and not an authenticator app, which only answers a second step', async () => {
    const app: Factor = { ...passkey('app', 30), id: 'totp', method: 'totp', details: {} };
    const deps = ports({ passkeys: [passkey('p1', 30), app], identities: [] });
    await expect(removeWayIn(deps, 'user', account(), thePasskey('p1'), async () => true)).rejects.toMatchObject({ code: 'last_sign_in_method' });
  });

  it('counts the mailbox as a way in where the kind may sign in by email, and only there', async () => {
    const removing = thePasskey('p1');
    const users = ports({ passkeys: [passkey('p1', 30)], identities: [] }, ['user']);
    expect(await removeWayIn(users, 'user', account(), removing, async () => 'removed')).toBe('removed');
    const adminsOnly = ports({ passkeys: [passkey('p1', 30)], identities: [] }, ['admin']);
    await expect(removeWayIn(adminsOnly, 'user', account(), removing, async () => true)).rejects.toMatchObject({ code: 'last_sign_in_method' });
  });

  it('counts an admin’s mailbox only beside a second factor of their own, which an email sign-in then asks for', async () => {
    const app: Factor = { ...passkey('app', 30), id: 'totp', method: 'totp', details: {} };
    const password = { type: 'password' as const };
    await expect(removeWayIn(ports({ passkeys: [], identities: [] }, ['admin']), 'admin', account({ passwordHash: 'h' }), password, async () => true)).rejects.toMatchObject({ code: 'last_sign_in_method' });
    expect(await removeWayIn(ports({ passkeys: [app], identities: [] }, ['admin']), 'admin', account({ passwordHash: 'h' }), password, async () => 'off')).toBe('off');
  });

  it('refuses to turn off the password of an account with no other way in, and turns it off beside a passkey', async () => {
    const remove = jest.fn(async () => 'off');
    await expect(removeWayIn(ports({ passkeys: [], identities: [] }), 'user', account({ passwordHash: 'h' }), { type: 'password' }, remove)).rejects.toMatchObject({ code: 'last_sign_in_method' });
    expect(remove).not.toHaveBeenCalled();
    expect(await removeWayIn(ports({ passkeys: [passkey('p1', 30)], identities: [] }), 'user', account({ passwordHash: 'h' }), { type: 'password' }, remove)).toBe('off');
  });

  it('removes a passkey while a password or an identity remains (the controls)', async () => {
    const withPassword = ports({ passkeys: [passkey('p1', 30)], identities: [] });
    expect(await removeWayIn(withPassword, 'user', account({ passwordHash: 'h' }), thePasskey('p1'), async () => 'removed')).toBe('removed');
    const withIdentity = ports({ passkeys: [passkey('p1', 30)], identities: [identity('corp', 30)] });
    expect(await removeWayIn(withIdentity, 'user', account(), thePasskey('p1'), async () => 'removed')).toBe('removed');
  });

  it('of a passkey and an identity removed at once from a passwordless account, exactly one goes', async () => {
    const state = { passkeys: [passkey('p1', 30)], identities: [identity('corp', 30)] };
    const deps = ports(state);
    const identities = deps.identities as unknown as { remove: (k: string, a: string, p: string) => Promise<boolean> };
    const results = await Promise.allSettled([
      removeWayIn(deps, 'user', account(), thePasskey('p1'), () => deps.factors.remove('user', account().id, { method: 'passkey', id: 'p1' })),
      removeWayIn(deps, 'user', account(), { type: 'identity', provider: 'corp' }, () => identities.remove('user', account().id, 'corp')),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(state.passkeys.length + state.identities.length).toBe(1);
  });

  it('lets the caller say "not found" for a way the account does not have', async () => {
    const deps = ports({ passkeys: [], identities: [] });
    expect(await removeWayIn(deps, 'user', account(), thePasskey('nope'), async () => false)).toBe(false);
  });
});
