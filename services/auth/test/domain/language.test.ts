// Which language an account's mail speaks (shared/language.ts), on in-memory ports: the one its
// owner chose on the account page, else the one of the request that caused the mail (the gateway's
// choice from the page's switch or Accept-Language), else none (English). A choice is a language tag
// kept on the account; anything else is refused.
import { AuthErrors } from '../../src/errors';
import { updateOwnProfile } from '../../src/domain/account/profile';
import { answerResetRequest, requestPasswordReset } from '../../src/domain/email/password-reset';
import { requestFactorRecovery } from '../../src/domain/email/factor-recovery';
import { login } from '../../src/domain/sign-in/login';
import { APP, claimsOf, memorySignIn, requestOf, startApp } from '../fakes';

const inLanguage = (language?: string) => ({ ...requestOf(), ...(language ? { language } : {}) });

async function setUp() {
  const setup = await memorySignIn();
  const owner = await setup.make('user', 'grace@example.com', { emailVerified: true });
  return { ...setup, owner };
}

/** The account as stored. */
const stored = async (setup: Awaited<ReturnType<typeof setUp>>) => (await setup.deps.accounts.user.findById(setup.owner.id))!;

/** The language of the mails asked for so far, of one event type. */
const spoken = (setup: Awaited<ReturnType<typeof setUp>>, type: string) => setup.deps.outbox.events.filter((e) => e.type === type).map((e) => (e.input as { language?: string }).language ?? 'none');

/** A forgot-password request from a browser in `language`, answered by the queue's worker. */
async function forgot(setup: Awaited<ReturnType<typeof setUp>>, language?: string) {
  await requestPasswordReset(setup.deps, 'user', { email: 'grace@example.com' }, inLanguage(language));
  for (let request = await setup.deps.resetRequests.claim(); request; request = await setup.deps.resetRequests.claim()) await answerResetRequest(setup.deps, request);
}

describe("an account's language", () => {
  it('is kept when its owner chooses one, alone or with the name, and shown on the profile', async () => {
    const setup = await setUp();
    const owner = claimsOf('user', setup.owner);
    expect((await stored(setup)).language).toBeUndefined();
    expect((await updateOwnProfile(setup.deps, owner, { language: 'de' }, requestOf())).language).toBe('de');
    const both = await updateOwnProfile(setup.deps, owner, { language: 'pt-BR', name: 'Graça' }, requestOf());
    expect([both.language, both.name]).toEqual(['pt-BR', 'Graça']);
    expect((await stored(setup)).language).toBe('pt-BR');
  });

  it.each([[''], ['german'], ['de_DE'], ['<script>'], [42], [null], ['d'], ['de-' + 'x'.repeat(40)]])('refuses %j as a language, changing nothing', async (language) => {
    const setup = await setUp();
    const owner = claimsOf('user', setup.owner);
    await expect(updateOwnProfile(setup.deps, owner, { language, name: 'Changed' }, requestOf())).rejects.toEqual(AuthErrors.languageInvalid());
    const after = await stored(setup);
    expect([after.name, after.language]).toEqual(['Grace', undefined]);
  });

  it('is no way to change anything else: another field is refused, and an empty body asks for the name', async () => {
    const setup = await setUp();
    const owner = claimsOf('user', setup.owner);
    await expect(updateOwnProfile(setup.deps, owner, { language: 'de', email: 'x@example.com' }, requestOf())).rejects.toEqual(AuthErrors.profileOnlyName());
    await expect(updateOwnProfile(setup.deps, owner, {}, requestOf())).rejects.toEqual(AuthErrors.profileNameMissing());
  });

  it('is a cosmetic change on the activity list, as the name is', async () => {
    const setup = await setUp();
    await updateOwnProfile(setup.deps, claimsOf('user', setup.owner), { language: 'de' }, requestOf());
    expect(setup.deps.activity.entries.at(-1)).toMatchObject({ type: 'profile_updated', details: ['language'] });
  });
});

describe('the language a mail speaks', () => {
  it("is the request's when the account chose none: a reset asked from a German page is mailed in German, from a page in no language in none", async () => {
    const setup = await setUp();
    await forgot(setup, 'de');
    await forgot(setup);
    expect(spoken(setup, 'account.password_reset.requested')).toEqual(['de', 'none']);
  });

  it("is the account's once its owner chose one, whatever the request's", async () => {
    const setup = await setUp();
    await updateOwnProfile(setup.deps, claimsOf('user', setup.owner), { language: 'de' }, requestOf());
    await forgot(setup, 'fr');
    await forgot(setup);
    expect(spoken(setup, 'account.password_reset.requested')).toEqual(['de', 'de']);
  });

  it('goes with the security notices and the mails a sign-in causes', async () => {
    const setup = await setUp();
    await updateOwnProfile(setup.deps, claimsOf('user', setup.owner), { language: 'de' }, requestOf());
    await startApp(setup.deps.factors, 'user', setup.owner.id);
    await setup.deps.factors.confirm('user', setup.owner.id, APP, 1);
    const step = await login(setup.deps, 'user', { email: 'grace@example.com', password: 'right password' }, inLanguage('fr'));
    if (step.kind !== 'otp_required') throw new Error(`expected a second step, got ${step.kind}`);
    await requestFactorRecovery(setup.deps, { challenge_token: step.challengeToken }, inLanguage('fr'));
    expect(spoken(setup, 'account.factor_recovery.requested')).toEqual(['de']);
  });
});
