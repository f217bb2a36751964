// The bot check's rules on in-memory ports (MemoryBotCheck: an answer passes once, when it solved a
// challenge): off, a route takes any body; on, only a body whose `botCheck` passes, each answer once,
// and a challenge is charged to the client's budget. The proof of work itself is the adapter's
// (services/auth/test/bot-checks.state.test.ts); which routes ask for it, and the gateway's page
// widget, the end-to-end file limits.security's and the gateway's bot-check-widget.browser's.
import { AuthErrors } from '../../src/errors';
import { assertHuman, botChallenge } from '../../src/domain/shared/bot-check';
import { MemoryBotCheck, MemoryRateLimits, requestOf } from '../fakes';

function setUp(kind: MemoryBotCheck['kind']) {
  const botCheck = new MemoryBotCheck();
  botCheck.kind = kind;
  const limited: string[] = [];
  const rateLimits = new MemoryRateLimits({ botCheckIp: 2 });
  const deps = { botCheck, rateLimits, metrics: { login() {}, refresh() {}, otp() {}, rateLimited: (name: string) => void limited.push(name) } };
  return { deps, botCheck, rateLimits, limited };
}

describe('the bot check', () => {
  it('is not asked for while it is off: any body passes, and a challenge says so without spending the budget', async () => {
    const { deps, rateLimits } = setUp('off');
    for (const body of [undefined, {}, { botCheck: 'anything' }, { botCheck: 42 }]) await expect(assertHuman(deps, body, requestOf())).resolves.toBeUndefined();
    expect(await botChallenge(deps, requestOf())).toEqual({ kind: 'off' });
    expect(rateLimits.spent).toEqual([]);
  });

  it('on, passes a body whose answer solved a challenge, once', async () => {
    const { deps, botCheck } = setUp('altcha');
    botCheck.solved.add('solved-1');
    await expect(assertHuman(deps, { email: 'grace@example.com', botCheck: 'solved-1' }, requestOf())).resolves.toBeUndefined();
    await expect(assertHuman(deps, { email: 'grace@example.com', botCheck: 'solved-1' }, requestOf())).rejects.toEqual(AuthErrors.botCheckFailed());
  });

  it.each([
    ['no body', undefined],
    ['no answer', { email: 'grace@example.com' }],
    ['an empty answer', { botCheck: '' }],
    ['an answer that is not text', { botCheck: { solved: true } }],
    ['an answer past 8 KB', { botCheck: 'x'.repeat(8_193) }],
    ['an answer that solved nothing', { botCheck: 'bm90IGFuIGFuc3dlcg==' }],
  ])('on, refuses %s', async (_name, body) => {
    const { deps, botCheck } = setUp('altcha');
    botCheck.solved.add('x'.repeat(8_193));
    await expect(assertHuman(deps, body, requestOf())).rejects.toEqual(AuthErrors.botCheckFailed());
  });

  it('on, charges each challenge to the client’s budget, and answers 429 past it', async () => {
    const { deps, rateLimits, limited } = setUp('altcha');
    const ctx = { ...requestOf(), budget: '198.51.100.7' };
    await botChallenge(deps, ctx);
    expect(await botChallenge(deps, ctx)).toMatchObject({ kind: 'altcha' });
    await expect(botChallenge(deps, ctx)).rejects.toMatchObject({ code: 'rate_limited', httpStatus: 429 });
    expect(rateLimits.spent).toEqual(['botCheckIp 198.51.100.7', 'botCheckIp 198.51.100.7', 'botCheckIp 198.51.100.7']);
    expect(limited).toEqual(['botCheckIp']);
  });

  it('with a provider’s widget, spends no budget on a challenge (no key is derived for it), and still asks every guarded body for its token', async () => {
    const { deps, rateLimits } = setUp('turnstile');
    await botChallenge(deps, requestOf());
    expect(rateLimits.spent).toEqual([]);
    await expect(assertHuman(deps, { email: 'grace@example.com' }, requestOf())).rejects.toEqual(AuthErrors.botCheckFailed());
  });
});
