// The admin console's rules on in-memory ports (test/fakes.ts), in milliseconds: the desktop
// releases (the admin's recent proof, the activity log, the admin's own token to desktop), the users'
// list and its filters, and who reads which activity. The end-to-end files keep to the contract.
import { signInMethods } from '../../src/domain/account/sign-in-methods';
import { toErrorAnswer } from '@acct/shared';
import { AuthErrors } from '../../src/errors';
import { listUsers } from '../../src/domain/admin/users';
import { readActivity } from '../../src/domain/shared/activity';
import { listDesktopReleases, publishDesktopRelease, withdrawDesktopRelease } from '../../src/domain/admin/desktop-releases';
import { register } from '../../src/domain/account/register';
import { MemoryAccounts, MemoryActivity, MemoryCeremonies, MemoryDesktop, claimsOf, memorySignIn, requestOf, silentLogger, MemoryBotCheck } from '../fakes';

async function setUp() {
  const accounts = new MemoryAccounts();
  const deps = { accounts: { user: accounts, admin: new MemoryAccounts() }, ceremonies: new MemoryCeremonies(), activity: new MemoryActivity(), desktop: new MemoryDesktop(), logger: silentLogger };
  const admin = (await deps.accounts.admin.create({ email: 'ada@example.com', name: 'Ada', passwordHash: null, role: 'admin' })) as { id: string };
  const caller = claimsOf('admin', admin);
  return { deps, admin, caller, ctx: requestOf(caller) };
}
const release = { platform: 'linux', version: '2.0.0', url: 'https://downloads.example.com/2.0.0', sha256: 'a'.repeat(64) };

describe('desktop releases from the console', () => {
  it('refuses a publish or a withdrawal without the admin’s recent proof, and asks desktop nothing', async () => {
    const { deps, ctx } = await setUp();
    await expect(publishDesktopRelease(deps, 'Bearer t', release, ctx)).rejects.toMatchObject({ code: AuthErrors.stepUpRequired().code });
    await expect(withdrawDesktopRelease(deps, 'Bearer t', release, ctx)).rejects.toMatchObject({ code: 'step_up_required' });
    expect(deps.desktop.calls).toEqual([]);
  });

  it('a proof under older credentials is none', async () => {
    const { deps, admin, caller, ctx } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    await deps.accounts.admin.update(admin.id, { endSessions: true });
    await expect(publishDesktopRelease(deps, 'Bearer t', release, ctx)).rejects.toMatchObject({ code: 'step_up_required' });
  });

  it('publishes with the admin’s own token once proven, and keeps it in the admin’s history with what was published', async () => {
    const { deps, admin, caller, ctx } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    const published = await publishDesktopRelease(deps, 'Bearer admin-token', { ...release, mandatory: true }, ctx);
    expect(published).toMatchObject({ version: '2.0.0', mandatory: true, withdrawnAt: null });
    await withdrawDesktopRelease(deps, 'Bearer admin-token', release, ctx);
    expect(deps.desktop.calls).toEqual([
      { what: 'publish', authorization: 'Bearer admin-token' },
      { what: 'withdraw', authorization: 'Bearer admin-token' },
    ]);
    // The admin's own account; no actor (they acted on their own record).
    expect(deps.activity.entries.map((e) => [e.kind, e.accountId, e.type, e.details, e.actor])).toEqual([
      ['admin', admin.id, 'release_published', ['linux 2.0.0 (mandatory)'], undefined],
      ['admin', admin.id, 'release_withdrawn', ['linux 2.0.0'], undefined],
    ]);
    expect(await listDesktopReleases(deps, 'Bearer admin-token', 'linux', ctx)).toEqual([expect.objectContaining({ version: '2.0.0', withdrawnAt: expect.any(String) })]);
  });

  it('records nothing when desktop refuses the release', async () => {
    const { deps, caller, ctx } = await setUp();
    await deps.ceremonies.markProof(caller.sid, 0);
    deps.desktop.publishRelease = async () => Promise.reject(AuthErrors.nothingToUpdate());
    await expect(publishDesktopRelease(deps, 'Bearer t', release, ctx)).rejects.toBeDefined();
    expect(deps.activity.entries).toEqual([]);
  });
});

describe('the users’ list', () => {
  async function withUsers() {
    const { deps } = await setUp();
    const make = async (name: string, flags: { disabled?: boolean; emailVerified?: boolean }) => {
      const created = (await deps.accounts.user.create({ email: `${name}@example.com`, name, passwordHash: null, role: 'user', emailVerified: flags.emailVerified })) as { id: string };
      if (flags.disabled) await deps.accounts.user.update(created.id, { disabled: true });
      return created.id;
    };
    const ids = { grace: await make('grace', {}), linus: await make('linus', { disabled: true }), ken: await make('ken', { emailVerified: false }) };
    return { deps, ids };
  }

  it.each([
    [{ disabled: 'true' }, ['linus']],
    [{ disabled: 'false' }, ['grace', 'ken']],
    [{ emailVerified: 'false' }, ['ken']],
    [{ emailVerified: 'true', disabled: 'false' }, ['grace']],
    [{ query: 'LIN' }, ['linus']],
  ])('filters by %j', async (params, names) => {
    const { deps, ids } = await withUsers();
    const page = await listUsers(deps, params);
    expect(page.users.map((u) => u.id).sort()).toEqual(names.map((n) => ids[n as keyof typeof ids]).sort());
  });

  it.each([[{ disabled: 'yes' }], [{ emailVerified: '1' }], [{ query: 'x'.repeat(101) }]])('refuses %j with a 400', async (params) => {
    const { deps } = await withUsers();
    await expect(listUsers(deps, params)).rejects.toMatchObject({ httpStatus: 400 });
  });

  it('pages by cursor: each user once, and the last page says none follows', async () => {
    const { deps, ids } = await withUsers();
    const first = await listUsers(deps, { limit: '2' });
    const second = await listUsers(deps, { limit: '2', cursor: first.nextCursor });
    expect([...first.users, ...second.users].map((u) => u.id).sort()).toEqual(Object.values(ids).sort());
    expect([first.nextCursor !== null, second.nextCursor]).toEqual([true, null]);
  });

  it('says none follows when the matches fill the last page exactly, and takes a query of 100 characters', async () => {
    const { deps } = await withUsers();
    expect(await listUsers(deps, { limit: '3' })).toMatchObject({ users: expect.any(Array), nextCursor: null });
    expect((await listUsers(deps, { limit: '3' })).users).toHaveLength(3);
    expect((await listUsers(deps, { query: 'x'.repeat(100) })).users).toEqual([]);
  });
});

describe('who reads which activity', () => {
  it('tells an owner that an admin acted, never which one; an admin reads who', async () => {
    const { deps, admin } = await setUp();
    await deps.activity.record({ kind: 'user', accountId: 'u1', type: 'sessions_ended', actor: { kind: 'admin', id: admin.id } });
    const asOwner = await readActivity(deps, { kind: 'user', accountId: 'u1' }, {}, 'owner');
    const asAdmin = await readActivity(deps, { kind: 'user', accountId: 'u1' }, {}, 'admin');
    expect([asOwner.activity[0].actor, asAdmin.activity[0].actor]).toEqual([{ kind: 'admin' }, { kind: 'admin', id: admin.id }]);
  });
});

describe('registering an admin with an admin’s token', () => {
  /** A deployment whose admin registration is closed, with one admin signed in (a live session). */
  async function closedDeployment() {
    const setup = await memorySignIn();
    const admin = await setup.make('admin', 'ada@example.com');
    const caller = claimsOf('admin', admin);
    const deps = {
      ...setup.deps,
      sessions: { isActive: async (_kind: string, sid: string) => sid === caller.sid },
      firstAdmin: { claim: async () => undefined },
      policy: { ...setup.deps.policy, adminRegistrationOpen: false, adminTwoFactor: false, emailVerification: 'off' },
    } as unknown as Parameters<typeof register>[0];
    return { deps, setup, admin, caller };
  }
  const body = { name: 'Eve', email: 'eve@example.com', password: 'a long enough password' };

  it('needs the acting admin’s recent proof (a lifted token cannot make itself a permanent admin), and grants with it', async () => {
    const { deps, setup, admin, caller } = await closedDeployment();
    await expect(register(deps, 'admin', body, requestOf(caller))).rejects.toMatchObject(AuthErrors.stepUpRequired());
    expect(await setup.deps.accounts.admin.findByEmail('eve@example.com')).toBeNull();
    await setup.deps.ceremonies.markProof(caller.sid, admin.credentialEpoch);
    expect(await register(deps, 'admin', body, requestOf(caller))).toMatchObject({ email: 'eve@example.com' });
  });

  it('answers a stranger as closed, as before', async () => {
    const { deps } = await closedDeployment();
    await expect(register(deps, 'admin', body, requestOf())).rejects.toMatchObject(AuthErrors.adminRegistrationClosed());
  });
});

describe('the first admin (registration closed, no admin yet)', () => {
  /**
   * A closed deployment with no admin: the claim is granted once, as MongoFirstAdminClaim grants it
   * (its own rules: test/mongo-first-admin-claim.state.test.ts), and given back by its release.
   */
  async function firstRun() {
    const setup = await memorySignIn();
    const claim = { taken: false, released: 0 };
    const deps = {
      ...setup.deps,
      firstAdmin: {
        claim: async () => {
          if (claim.taken) return undefined;
          claim.taken = true;
          return async () => {
            claim.taken = false;
            claim.released += 1;
          };
        },
      },
      policy: { ...setup.deps.policy, adminRegistrationOpen: false, adminTwoFactor: false, emailVerification: 'off' },
    } as unknown as Parameters<typeof register>[0];
    return { deps, setup, claim };
  }
  const account = (name: string) => ({ name, email: `${name.toLowerCase()}@example.com`, password: 'a long enough password' });

  it('lets a stranger register the first admin, then answers the next stranger and a user’s session as closed', async () => {
    const { deps, setup } = await firstRun();
    expect(await register(deps, 'admin', account('Ada'), requestOf())).toMatchObject({ email: 'ada@example.com', role: 'admin' });
    await expect(register(deps, 'admin', account('Eve'), requestOf())).rejects.toMatchObject(AuthErrors.adminRegistrationClosed());
    const user = await setup.make('user', 'uma@example.com');
    await expect(register(deps, 'admin', account('Eve'), requestOf(claimsOf('user', user)))).rejects.toMatchObject(AuthErrors.adminRegistrationClosed());
    expect(await setup.deps.accounts.admin.findByEmail('eve@example.com')).toBeNull();
  });

  it('gives the claim back when the first registration fails, so the next one may still be the first', async () => {
    const { deps, claim } = await firstRun();
    const hash = deps.hasher.hash;
    deps.hasher.hash = async () => {
      throw new Error('the hasher failed');
    };
    await expect(register(deps, 'admin', account('Ada'), requestOf())).rejects.toThrow('the hasher failed');
    expect(claim).toEqual({ taken: false, released: 1 });
    deps.hasher.hash = hash;
    expect(await register(deps, 'admin', account('Ada'), requestOf())).toMatchObject({ email: 'ada@example.com' });
    expect(claim.taken).toBe(true);
  });

  it('refuses a closed registration with the contract’s status and words', () => {
    expect(toErrorAnswer(AuthErrors.adminRegistrationClosed(), silentLogger)).toMatchObject({ status: 403, body: { success: false, message: 'Admin registration is closed', code: 'admin_registration_closed' } });
  });
});

describe('what a sign-in page offers', () => {
  it('offers each kind what the deployment turned on, and the first-run form only while the first admin can be made', async () => {
    const { deps } = await memorySignIn();
    let open = true;
    const ports = {
      policy: { ...deps.policy, emailSignIn: { ...deps.policy.emailSignIn, kinds: ['user' as const], signUp: true } },
      firstAdmin: { available: async () => open, claim: async () => undefined },
      botCheck: Object.assign(new MemoryBotCheck(), { kind: 'altcha' as const }),
    };
    expect(await signInMethods(ports)).toEqual({
      user: { password: true, passkey: true, email: true, emailSignUp: true },
      admin: { password: true, passkey: true, email: false, emailSignUp: false },
      firstAdmin: true,
      trustedBrowserDays: 30,
      botCheck: 'altcha',
    });
    open = false;
    expect((await signInMethods(ports)).firstAdmin).toBe(false);
  });
});
