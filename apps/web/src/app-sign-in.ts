// Signing in to an app through this service as an OpenID provider: the provider sent the browser
// here with `return_to=/oidc/interaction/<uid>`. Whatever way the person signs in (or the session
// this browser already has, when the app did not ask for a fresh sign-in), the page then approves
// the app's request with its access token (a header: another site cannot make a browser approve),
// after asking for consent when the app is another party's that the person has not allowed this yet
// (the service says so: consent_required), and follows the provider
// back to the app. The provider's interaction cookie binds each call to this browser.
import { actionButton, h, showView, statusLine } from './dom';
import { errorText, texts } from './texts';

export interface AppRequest {
  uid: string;
  app: { id: string; name: string; firstParty: boolean };
  kind: 'user' | 'admin';
  scopes: string[];
  /** Other services of the deployment it asks to use for the person, with what of each. */
  resources?: Array<{ name: string; scopes: string[] }>;
  freshLogin: boolean;
}

type Answer<T> = { ok: true; data: T } | { ok: false; error: { status: number; code: string; message: string } };

const INTERACTION = /^\/oidc\/interaction\/([A-Za-z0-9_-]{1,64})$/;

/** The interaction a return address names, when it is this site's. */
export function interactionOf(target: string | undefined): string | undefined {
  if (!target) return undefined;
  try {
    const url = new URL(target, location.origin);
    return url.origin === location.origin ? INTERACTION.exec(url.pathname)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, accessToken?: string, body?: unknown): Promise<Answer<T>> {
  try {
    const res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as { data?: T; code?: string; message?: string };
    if (res.ok && json.data !== undefined) return { ok: true, data: json.data };
    return { ok: false, error: { status: res.status, code: json.code ?? 'internal_error', message: json.message ?? res.statusText } };
  } catch {
    return { ok: false, error: { status: 0, code: 'service_unavailable', message: 'The service could not be reached' } };
  }
}

/** What the app asks, or the error that ended its request. */
export async function appRequest(uid: string): Promise<Answer<AppRequest>> {
  const answer = await call<Omit<AppRequest, 'uid'>>('GET', `/oidc/interaction/${uid}/about`);
  return answer.ok ? { ok: true, data: { uid, ...answer.data } } : answer;
}

/** A request that cannot go on (expired, another browser's): what the person reads, and no way forward here. */
export function appRequestEnded(message: string): void {
  showView(texts.appSignIn.endedTitle, h('p', { role: 'alert' }, message), h('p', {}, texts.appSignIn.backToApp));
}

/**
 * Signed in: approve the app's request. `again` is the sign-in view, for when the app needs a fresh
 * sign-in the session does not have (step_up_required).
 */
export async function continueToApp(request: AppRequest, accessToken: string | undefined, again: (notice: string) => void): Promise<void> {
  const status = statusLine();
  /** Approves; answers whether the app needs the person's consent first (it is another party's, and was not allowed this yet). */
  const approve = async (consent: boolean): Promise<boolean> => {
    status.info(texts.appSignIn.working);
    const answer = await call<{ redirectTo: string }>('POST', `/oidc/interaction/${request.uid}/login`, accessToken, consent ? { consent: true } : {});
    if (answer.ok) {
      location.assign(answer.data.redirectTo);
      return false;
    }
    if (answer.error.code === 'consent_required' && !consent) return true;
    if (answer.error.code === 'step_up_required' || answer.error.code === 'unauthorized' || answer.error.code === 'session_revoked') again(texts.appSignIn.signInAgain(request.app.name));
    else if (answer.error.code === 'interaction_expired') appRequestEnded(errorText(answer.error));
    else status.error(errorText(answer.error));
    return false;
  };
  // The product's own apps, and another party's that the person allowed this before, go straight on.
  showView(texts.appSignIn.title(request.app.name), status.element);
  if (!(await approve(false))) return;
  status.clear();
  const decline = async () => {
    const answer = await call<{ redirectTo: string }>('POST', `/oidc/interaction/${request.uid}/abort`);
    if (answer.ok) location.assign(answer.data.redirectTo);
    else appRequestEnded(errorText(answer.error));
  };
  const asks = [
    ...request.scopes.map((scope) => texts.appSignIn.scopes[scope as keyof typeof texts.appSignIn.scopes]).filter(Boolean),
    ...(request.resources ?? []).map((r) => texts.appSignIn.resource(r.name, r.scopes)),
  ];
  showView(
    texts.appSignIn.consentTitle(request.app.name),
    h('p', {}, texts.appSignIn.consentIntro(request.app.name)),
    h('ul', {}, ...asks.map((ask) => h('li', {}, ask))),
    h('p', {}, texts.appSignIn.consentNote),
    h('p', { class: 'actions' }, actionButton(texts.appSignIn.allow, () => void approve(true), { id: 'app-allow' }), ' ', actionButton(texts.appSignIn.deny, decline, { secondary: true, id: 'app-deny' })),
    status.element,
  );
}
