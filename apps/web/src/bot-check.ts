// The bot check of the sign-in pages (BOT_CHECK). With ALTCHA, a challenge asked of the service and
// solved in this browser (Web Crypto's PBKDF2, about a second of work the person never sees), sent
// with the form; the solver is loaded only when the deployment turned the check on. With Turnstile
// or hCaptcha, their widget, shown in the form (its script loaded from where the service says, the
// only third-party script these pages ever run, and only then), and its token sent with the form.
import { h } from './dom';
import { pageLanguage } from './texts';

type Kind = 'off' | 'altcha' | 'turnstile' | 'hcaptcha';
type Challenge = { kind: Kind; challenge?: unknown; siteKey?: string; script?: string };

/** What Turnstile's and hCaptcha's scripts put on `window` (their explicit rendering, the same shape for both). */
interface WidgetApi {
  render(element: HTMLElement, options: Record<string, unknown>): string;
  reset(id?: string): void;
}

/** The widget of the form on screen (one at a time), and the token it gave last. */
let current: { id: string; api: WidgetApi; token?: string; waiting: Array<(token: string | undefined) => void> } | undefined;
/** The vendor's script, loaded once a page. */
let script: Promise<WidgetApi | undefined> | undefined;
/** How long a submit waits for a widget that has not given a token yet (an interactive challenge the person is doing). */
const TOKEN_WAIT_MS = 60_000;

/**
 * The client's `botCheck` option: the answer to send, or undefined when none is asked (or none could
 * be made: the service then says the check did not pass, and the person tries again).
 */
export function botCheckAnswerer(kindOf: () => Promise<Kind | undefined>, challenge: () => Promise<Challenge | undefined>): () => Promise<string | undefined> {
  return async () => {
    const kind = await kindOf();
    if (kind === 'turnstile' || kind === 'hcaptcha') return widgetToken();
    if (kind !== 'altcha') return undefined;
    const given = (await challenge())?.challenge;
    if (!given) return undefined;
    const [{ solveChallenge }, { deriveKey }] = await Promise.all([import('altcha-lib'), import('altcha-lib/algorithms/web/pbkdf2')]);
    const solution = await solveChallenge({ challenge: given as Parameters<typeof solveChallenge>[0]['challenge'], deriveKey });
    return solution ? btoa(JSON.stringify({ challenge: given, solution })) : undefined;
  };
}

/**
 * Where a form that needs the check shows the widget: empty unless the deployment uses Turnstile or
 * hCaptcha (`config`, the service's answer to GET /api/auth/bot-check), then the widget in the
 * page's language. Placed before the form's button.
 */
export function botCheckSlot(config: () => Promise<Challenge | undefined>): HTMLElement {
  const slot = h('div', { class: 'bot-check' });
  void config().then(async (given) => {
    if (!given || (given.kind !== 'turnstile' && given.kind !== 'hcaptcha') || !given.siteKey || !given.script) return;
    const api = await loadWidget(given.kind, given.script);
    if (!api || !slot.isConnected) return;
    const widget: NonNullable<typeof current> = { id: '', api, waiting: [] };
    const give = (token: string | undefined) => {
      widget.token = token;
      if (token) for (const resolve of widget.waiting.splice(0)) resolve(token);
    };
    widget.id = api.render(slot, {
      sitekey: given.siteKey,
      callback: (token: string) => give(token),
      'expired-callback': () => give(undefined),
      'error-callback': () => give(undefined),
      // Turnstile names the language `language`, hCaptcha `hl`.
      ...(given.kind === 'turnstile' ? { language: pageLanguage } : { hl: pageLanguage }),
    });
    current = widget;
  });
  return slot;
}

/** The widget's token for one request (each is good once): the one it gave, else the next within the wait; the widget then starts again. */
async function widgetToken(): Promise<string | undefined> {
  const widget = current;
  if (!widget) return undefined;
  const token =
    widget.token ??
    (await new Promise<string | undefined>((resolve) => {
      widget.waiting.push(resolve);
      setTimeout(() => resolve(undefined), TOKEN_WAIT_MS);
    }));
  widget.token = undefined;
  widget.api.reset(widget.id);
  return token;
}

function loadWidget(kind: 'turnstile' | 'hcaptcha', src: string): Promise<WidgetApi | undefined> {
  script ??= new Promise((resolve) => {
    const element = h('script', { src, async: true, defer: true });
    element.addEventListener('load', () => resolve((window as unknown as Record<string, WidgetApi | undefined>)[kind]));
    element.addEventListener('error', () => resolve(undefined));
    document.head.append(element);
  });
  return script;
}
