// The bot check of the sign-in pages (BOT_CHECK): with ALTCHA, a challenge asked of the service and
// solved in this browser (Web Crypto's PBKDF2, about a second of work the person never sees), sent
// with the form; the solver is loaded only when the deployment turned the check on. Turnstile and
// hCaptcha need their widget, which these pages do not show: a deployment using them signs in through
// its own pages (docs/guide.md, "A bot check").

type Kind = 'off' | 'altcha' | 'turnstile' | 'hcaptcha';

/**
 * The client's `botCheck` option: the answer to send, or undefined when none is asked (or none could
 * be made: the service then says the check did not pass, and the person tries again).
 */
export function botCheckAnswerer(kindOf: () => Promise<Kind | undefined>, challenge: () => Promise<unknown>): () => Promise<string | undefined> {
  return async () => {
    if ((await kindOf()) !== 'altcha') return undefined;
    const given = await challenge();
    if (!given) return undefined;
    const [{ solveChallenge }, { deriveKey }] = await Promise.all([import('altcha-lib'), import('altcha-lib/algorithms/web/pbkdf2')]);
    const solution = await solveChallenge({ challenge: given as Parameters<typeof solveChallenge>[0]['challenge'], deriveKey });
    return solution ? btoa(JSON.stringify({ challenge: given, solution })) : undefined;
  };
}
