// The rules that protect an account read the methods' registry and name no method: held here with a
// method none of them has heard of (a text-message code, say), given to the rules as a registry of
// its own. What recovery codes stand in for, what a factor recovery removes and names, what an
// address's first proof suspends, and the last way in all follow what the method declares.
import { factorMethodsOf, SECOND_STEP_METHODS, type SecondStepMethod } from '../../src/domain/factors';
import { entryOf } from '../../src/domain/factors/method';
import type { SecondFactor } from '../../src/domain/ports';
import { addressAnswered, describeSecondFactors } from '../../src/domain/shared/mailbox';
import { removeWayIn } from '../../src/domain/shared/ways-in';
import { CODES, memorySignIn, replaceCodes, requestOf } from '../fakes';

/** A method the registry does not have: its factor is an account's own, and (when asked) signs in by itself. */
function textMessage(signsInAlone: boolean): SecondStepMethod<'code'> {
  const id = 'sms' as SecondFactor;
  return {
    id,
    answers: 'code',
    description: 'Text message',
    role: 'way-in',
    ...(signsInAlone ? { signsInAlone: true as const } : {}),
    removedAs: 'totp_removed',
    listed: (held) => held.factors.filter((f) => f.method === id).map((f) => entryOf(f, 'Text message', 'way-in')),
    offered: (held) => held.factors.some((f) => f.method === id && f.confirmed),
    prove: async () => false,
  };
}

async function withPhone(signsInAlone: boolean) {
  const setup = await memorySignIn();
  const methods = factorMethodsOf([...SECOND_STEP_METHODS, textMessage(signsInAlone) as SecondStepMethod]);
  const deps = { ...setup.deps, factorMethods: methods };
  const account = await setup.make('user', 'grace@example.com', { passwordHash: null });
  await deps.factors.add('user', account.id, { id: 'phone-1', method: 'sms' as SecondFactor, name: '+44 7700 900123', confirmed: true });
  await replaceCodes(deps.factors, 'user', account.id, ['abcdefghij']);
  return { deps, methods, account: (await deps.accounts.user.findById(account.id))! };
}

describe('the rules, with a method they do not name', () => {
  it('count its factor as the account’s own: recovery codes stand beside it, and a factor recovery names it', async () => {
    const { deps, methods, account } = await withPhone(false);
    const held = await deps.factors.list('user', account.id);
    expect(methods.hasOwnFactor(held)).toBe(true);
    expect(methods.entries(held).map((e) => [e.method, e.role])).toEqual([
      ['recovery_code', 'backup'],
      ['sms', 'way-in'],
    ]);
    expect(await describeSecondFactors(deps, 'user', account)).toEqual(['1 recovery codes', expect.stringMatching(/^text message "\+44 7700 900123", added \d{4}-\d\d-\d\d$/)]);
    // Without it, the codes stand beside nothing: the registry's own list does not know the method.
    expect(SECOND_STEP_METHODS.some((m) => m.id === ('sms' as SecondFactor))).toBe(false);
    expect(factorMethodsOf(SECOND_STEP_METHODS).hasOwnFactor(held)).toBe(false);
  });

  it('suspend it at the address’s first proof when it signs in by itself, and keep it when it does not', async () => {
    for (const alone of [true, false]) {
      const { deps, account } = await withPhone(alone);
      await addressAnswered(deps, 'user', account, requestOf());
      const phone = (await deps.factors.list('user', account.id)).find((f) => f.id === 'phone-1');
      expect(phone?.suspended ?? false).toBe(alone);
      expect((await deps.factors.list('user', account.id)).find((f) => f.id === CODES.id)?.suspended).toBeUndefined();
    }
  });

  it('hold it as the last way in of a passwordless account when it signs in by itself, and not otherwise', async () => {
    const alone = await withPhone(true);
    const removing = { type: 'factor' as const, factor: { method: 'sms' as SecondFactor, id: 'phone-1' } };
    const locks = { run: <T>(_name: string, work: () => Promise<T>) => work() };
    await expect(removeWayIn({ ...alone.deps, locks }, 'user', alone.account, removing, async () => true)).rejects.toMatchObject({ code: 'last_sign_in_method' });
    const notAlone = await withPhone(false);
    // Not a way in, so removing it leaves the ways in as they were: the rule lets it through.
    expect(await removeWayIn({ ...notAlone.deps, locks }, 'user', notAlone.account, removing, async () => 'removed')).toBe('removed');
  });
});
