// The ways-in rule on in-memory ports: an account never removes its last way in, whatever the
// order or the race (what a mailbox may remove is test/domain/mailbox.test.ts's).
import type { Account } from '../src/domain/shared/account';
import type { FactorSet, LinkedIdentity, Needs, Passkey } from '../src/domain/ports';
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

const passkey = (id: string, ageDays: number): Passkey => ({ id, name: id, publicKey: 'k', counter: 0, transports: [], createdAt: new Date(NOW - ageDays * DAY), lastUsedAt: null });
const identity = (provider: string, ageDays: number): LinkedIdentity => ({ provider, subject: `s-${provider}`, kind: 'user', accountId: account().id, linkedAt: new Date(NOW - ageDays * DAY) });

/** Factors, identities and a lock, in memory: each removal yields to the event loop, as a store's round trip does. */
function ports(state: { passkeys: Passkey[]; identities: LinkedIdentity[]; totp?: { ageDays: number }; codes?: { ageDays: number } }) {
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  let chain: Promise<unknown> = Promise.resolve();
  const deps = {
    locks: {
      run<T>(_name: string, work: () => Promise<T>): Promise<T> {
        const next = chain.then(work, work);
        chain = next.catch(() => undefined);
        return next;
      },
    },
    factors: {
      async of(): Promise<FactorSet> {
        await tick();
        return {
          totp: state.totp ? { secret: 'S', confirmed: true, lastStep: 0, createdAt: new Date(NOW - state.totp.ageDays * DAY) } : null,
          passkeys: [...state.passkeys],
          recoveryCodesLeft: state.codes ? 10 : 0,
          recoveryCodesMadeAt: state.codes ? new Date(NOW - state.codes.ageDays * DAY) : null,
        };
      },
      async removePasskey(_kind: string, _id: string, credentialId: string) {
        await tick();
        const before = state.passkeys.length;
        state.passkeys = state.passkeys.filter((p) => p.id !== credentialId);
        return state.passkeys.length < before;
      },
      async removeTotp() {
        state.totp = undefined;
        return true;
      },
      async removeRecoveryCodes() {
        state.codes = undefined;
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
  return deps as unknown as Needs<'locks' | 'factors' | 'identities'>;
}

describe('removeWayIn: never without a way in', () => {
  it.each([
    ['the last passkey of a passwordless account', { passkeys: [passkey('p1', 30)], identities: [] }, { type: 'passkey' as const, id: 'p1' }],
    ['the only identity of a passwordless account', { passkeys: [], identities: [identity('corp', 30)] }, { type: 'identity' as const, provider: 'corp' }],
  ])('refuses to remove %s', async (_label, state, removing) => {
    const deps = ports(state);
    const remove = jest.fn(async () => true);
    await expect(removeWayIn(deps, 'user', account(), removing, remove)).rejects.toMatchObject({ code: 'last_sign_in_method', httpStatus: 409 });
    expect(remove).not.toHaveBeenCalled();
  });

  it('removes a passkey while a password or an identity remains (the controls)', async () => {
    const withPassword = ports({ passkeys: [passkey('p1', 30)], identities: [] });
    expect(await removeWayIn(withPassword, 'user', account({ passwordHash: 'h' }), { type: 'passkey', id: 'p1' }, async () => 'removed')).toBe('removed');
    const withIdentity = ports({ passkeys: [passkey('p1', 30)], identities: [identity('corp', 30)] });
    expect(await removeWayIn(withIdentity, 'user', account(), { type: 'passkey', id: 'p1' }, async () => 'removed')).toBe('removed');
  });

  it('of a passkey and an identity removed at once from a passwordless account, exactly one goes', async () => {
    const state = { passkeys: [passkey('p1', 30)], identities: [identity('corp', 30)] };
    const deps = ports(state);
    const factors = deps.factors as unknown as { removePasskey: (k: string, a: string, c: string) => Promise<boolean> };
    const identities = deps.identities as unknown as { remove: (k: string, a: string, p: string) => Promise<boolean> };
    const results = await Promise.allSettled([
      removeWayIn(deps, 'user', account(), { type: 'passkey', id: 'p1' }, () => factors.removePasskey('user', account().id, 'p1')),
      removeWayIn(deps, 'user', account(), { type: 'identity', provider: 'corp' }, () => identities.remove('user', account().id, 'corp')),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(state.passkeys.length + state.identities.length).toBe(1);
  });

  it('lets the caller say "not found" for a way the account does not have', async () => {
    const deps = ports({ passkeys: [], identities: [] });
    expect(await removeWayIn(deps, 'user', account(), { type: 'passkey', id: 'nope' }, async () => false)).toBe(false);
  });
});
