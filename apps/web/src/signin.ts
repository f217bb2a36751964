// The hosted sign-in and the pages the mailed links open: sign in (with every second step),
// register, forgot and reset password, and prove, confirm or undo an email address. One bundle, the
// view chosen by the path the gateway served it under.
import './style.css';
import { browserSupportsWebAuthnAutofill, startAuthentication } from '@simplewebauthn/browser';
import { AccountClient, challengeFromReturn, type AccountKind, type ApiError, type Challenge } from '@acct/client';
import { actionButton, busy, field, h, languageSwitch, link, showProblems, showView, statusLine, useProblemWords, validatedForm, type Field, type Problem } from './dom';
import { withPasswordRules } from './password-rules';
import { errorText, texts } from './texts';
import { allowedReturnTarget } from '@acct/shared/return-target';
import { appRequest, appRequestEnded, continueToApp, interactionOf, type AppRequest } from './app-sign-in';
import { botCheckAnswerer, botCheckSlot } from './bot-check';

const path = location.pathname.replace(/\/+$/, '');
const kind: AccountKind = path.startsWith('/admin/') ? 'admin' : 'user';
const prefix = kind === 'admin' ? '/admin' : '';
// A form that needs the bot check (sign in, register, forgot, sign in by email) solves it on its way.
const client: AccountClient = new AccountClient({
  kind,
  botCheck: botCheckAnswerer(
    async () => {
      const methods = await offered;
      return methods.ok ? methods.data.botCheck : undefined;
    },
    async () => {
      const asked = await client.botChallenge();
      return asked.ok ? asked.data : undefined;
    },
  ),
});
useProblemWords(texts.problems);
const params = new URLSearchParams(location.search);
/** What this deployment offers (asked once a page): sign-in by email, trusting a browser, the first-run form, the bot check. */
const offered = client.signInMethods();
/** A third-party bot-check widget's site key and script, where the deployment uses one (asked once a page). */
let widgetConfig: ReturnType<typeof client.botChallenge> | undefined;
const widget = () =>
  botCheckSlot(async () => {
    const methods = await offered;
    if (!methods.ok || (methods.data.botCheck !== 'turnstile' && methods.data.botCheck !== 'hcaptcha')) return undefined;
    widgetConfig ??= client.botChallenge();
    const answer = await widgetConfig;
    return answer.ok ? answer.data : undefined;
  });

/**
 * Where a sign-in goes back to: `return_to` when it is a path of this site or an app origin the
 * gateway lists (CORS_ORIGINS, given in the page's meta tag), else the account console. Never
 * anywhere else, so a link cannot send a fresh session's browser to a stranger's page.
 */
export function returnTarget(raw: string | null, allowedOrigins: string[], fallback: string): string {
  // This site's pages and the listed app origins, by the rule auth holds returnTo to.
  return allowedReturnTarget(raw, [`${location.origin}/`, ...allowedOrigins.map((origin) => `${origin}/`)], location.origin) ?? fallback;
}

const allowedOrigins = (document.querySelector<HTMLMetaElement>('meta[name="acct:return-origins"]')?.content ?? '').split(/\s+/).filter(Boolean);
/** The browser's passkey prompt on the API's options. */
const askForPasskey = (options: unknown) => startAuthentication({ optionsJSON: options as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
const passkeysSupported = typeof window.PublicKeyCredential === 'function';
/** The same prompt offered in the email field's autofill (conditional mediation), where the browser has it. */
const offerPasskeyInAutofill = (options: unknown) =>
  startAuthentication({ optionsJSON: options as Parameters<typeof startAuthentication>[0]['optionsJSON'], useBrowserAutofill: true });

/** Kept in this tab across a provider's round trip: where to go once it signed in. */
const PROVIDER_RETURN = 'acct:after-provider';
/** Kept in this browser (not only this tab: a mail's link opens a new one) between asking for a sign-in by email and its link. */
const EMAIL_RETURN = 'acct:after-email';
const afterSignIn = returnTarget(
  sessionStorage.getItem(PROVIDER_RETURN) ?? (params.has('email_sign_in') ? localStorage.getItem(EMAIL_RETURN) : null) ?? params.get('return_to'),
  allowedOrigins,
  kind === 'admin' ? '/admin' : '/account',
);
/** An app's sign-in request (this service as an OpenID provider) the sign-in goes back to, when it does. */
const appInteraction = interactionOf(afterSignIn);
/** What that app asks, read once on arrival. */
let pendingApp: AppRequest | undefined;

/** A page of this site, carrying the return address on. */
function withReturn(to: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query);
  const back = params.get('return_to');
  if (back) search.set('return_to', back);
  const text = search.toString();
  return text ? `${to}?${text}` : to;
}

/** Shows an API error: on the fields it names, and in the status line. */
/** The field an error is about when the API names none: a wrong password, a refused code. */
const FIELD_OF_CODE: Record<string, string> = { invalid_credentials: 'password', invalid_otp: 'code' };

/** An API error where the eye is: on its fields, with the form's summary (dom.ts showProblems; it takes the focus); else in the status line. Answers whether the summary shows. */
function showError(status: ReturnType<typeof statusLine>, error: ApiError, fields: Record<string, Field> = {}): boolean {
  const problems: Problem[] = Object.entries(error.errors ?? {}).flatMap(([name, message]) => (fields[name] ? [{ input: fields[name].input, message }] : []));
  const about = fields[FIELD_OF_CODE[error.code] ?? ''];
  if (!problems.length && about) problems.push({ input: about.input, message: errorText(error) });
  const form = Object.values(fields)[0]?.input.form;
  if (form) showProblems(form, problems);
  if (problems.length) status.clear();
  else status.error(errorText(error));
  return problems.length > 0;
}

function signedIn(): void {
  sessionStorage.removeItem(PROVIDER_RETURN);
  localStorage.removeItem(EMAIL_RETURN);
  if (appInteraction) {
    void toApp(appInteraction);
    return;
  }
  if (afterSignIn) {
    location.assign(afterSignIn);
    return;
  }
  showView(texts.signIn.title, h('p', {}, texts.signIn.signedInAdmin));
}

/** Back to the app that sent the browser here, approving its request with this session. */
async function toApp(uid: string): Promise<void> {
  if (!pendingApp) {
    const request = await appRequest(uid);
    if (!request.ok) return appRequestEnded(errorText(request.error));
    pendingApp = request.data;
  }
  await continueToApp(pendingApp, client.accessToken, (notice) => signInView(undefined, notice));
}

function signInView(initialError?: ApiError, notice?: string): void {
  const status = statusLine();
  if (initialError) status.error(errorText(initialError));
  else if (notice) status.info(notice);
  // Back from undoing a change of address: the password went with it, and a link to choose one waits in the mail.
  else if (params.get('after') === 'undo') status.info(texts.signIn.resetWaiting);
  // `webauthn`: the browser may offer the site's passkeys among the field's suggestions.
  const email = field(texts.signIn.email, { name: 'email', type: 'email', autocomplete: 'username webauthn', required: true, value: params.get('email') ?? undefined });
  const password = field(texts.signIn.password, { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const resend = h('p', { hidden: true });
  if (passkeysSupported) {
    void browserSupportsWebAuthnAutofill().then(async (offered) => {
      if (!offered) return;
      // Waits until a passkey is picked from the suggestions; the button's own prompt cancels it.
      const answer = await client.passkeySignIn(offerPasskeyInAutofill);
      if (answer.ok && answer.data.signedIn) signedIn();
      // A deployment without passkeys offers no passkey button either.
      else if (!answer.ok && answer.error.code === 'passkeys_disabled' && passkey) passkey.hidden = true;
    });
  }
  const form = validatedForm(
    async () => {
      resend.hidden = true;
      status.info(texts.signIn.working);
      const answer = await client.login(email.input.value.trim(), password.input.value);
      if (!answer.ok) {
        const onFields = showError(status, answer.error, { email, password });
        if (answer.error.code === 'email_not_verified') resend.hidden = false;
        // The summary has the focus when it shows; else the password is the field to try again.
        return onFields ? undefined : password.input;
      }
      if (answer.data.signedIn) signedIn();
      else secondStepView(answer.data.challenge);
    },
    email.wrapper,
    password.wrapper,
    widget(),
    h('button', { type: 'submit' }, texts.signIn.submit),
    status.element,
  );
  resend.append(
    actionButton(
      texts.signIn.resendVerification,
      async () => {
        const answer = await client.resendVerification(email.input.value.trim());
        if (answer.ok) status.info(texts.signIn.verificationSent);
        else showError(status, answer.error);
      },
      { secondary: true },
    ),
  );
  const passkey =
    passkeysSupported &&
    h(
      'p',
      {},
      actionButton(
        texts.signIn.passkey,
        async () => {
          status.clear();
          const answer = await client.passkeySignIn(askForPasskey);
          if (!answer.ok && answer.error.code === 'passkeys_disabled' && passkey) passkey.hidden = true;
          if (!answer.ok) return showError(status, answer.error);
          if (answer.data.signedIn) signedIn();
        },
        { secondary: true },
      ),
    );
  // Signing in with the address alone, where the deployment offers it (GET /api/auth/sign-in-methods).
  const byEmail = h('p', { hidden: true }, actionButton(texts.emailSignIn.choose, () => emailSignInView(email.input.value.trim()), { secondary: true }));
  void offered.then((answer) => {
    if (answer.ok && answer.data.email) byEmail.hidden = false;
  });
  const providers = h('div', { class: 'providers' });
  void client.identityProviders().then((answer) => {
    if (!answer.ok) return;
    const usable = answer.data.filter((p) => p.available && (kind === 'user' || p.admins === true));
    providers.replaceChildren(
      ...usable.map((provider) =>
        h(
          'p',
          {},
          actionButton(
            texts.signIn.withProvider(provider.name),
            () => {
              // The provider sends the browser back to this page; the tab remembers where to go then.
              sessionStorage.setItem(PROVIDER_RETURN, afterSignIn);
              location.assign(client.identitySignInUrl(provider.id, `${location.origin}${prefix}/login`));
            },
            { secondary: true },
          ),
        ),
      ),
    );
  });
  showView(
    kind === 'admin' ? texts.signIn.adminTitle : texts.signIn.title,
    form,
    passkey,
    byEmail,
    providers,
    resend,
    h('p', {}, link(withReturn(`${prefix}/forgot-password`), texts.signIn.forgot)),
    kind === 'user' && h('p', {}, `${texts.signIn.noAccount} `, link(withReturn('/register'), texts.signIn.register)),
  );
}

function secondStepView(challenge: Challenge): void {
  const status = statusLine();
  const ownFactors = challenge.factors !== undefined;
  const hasApp = challenge.factors?.includes('totp') ?? false;
  const hasRecovery = challenge.factors?.includes('recovery_code') ?? false;
  let useRecovery = ownFactors && !hasApp && hasRecovery;
  const expires = Date.now() + challenge.expiresIn * 1000;
  // "Trust this browser", where the deployment trusts browsers: kept across the views of this step.
  const trust = h('input', { type: 'checkbox', id: 'trust-browser', name: 'trust_browser' });
  const trustField = h('div', { class: 'field checkbox', hidden: true }, trust, ' ', h('label', { for: 'trust-browser' }, ''));
  void offered.then((answer) => {
    if (!answer.ok || answer.data.trustedBrowserDays <= 0) return;
    trustField.querySelector('label')!.textContent = texts.secondStep.trustBrowser(answer.data.trustedBrowserDays);
    trustField.hidden = false;
  });
  const trusting = () => ({ trustBrowser: trust.checked });

  const render = () => {
    const code = useRecovery
      ? field(texts.secondStep.recoveryCode, { name: 'recovery_code', autocomplete: 'off', required: true, pattern: '[a-zA-Z2-9]{5}-?[a-zA-Z2-9]{5}', spellcheck: 'false' })
      : field(ownFactors ? texts.secondStep.appCode : texts.secondStep.mailedCode, {
          name: 'code',
          inputmode: 'numeric',
          autocomplete: 'one-time-code',
          pattern: '[0-9]{6}',
          maxlength: 6,
          required: true,
        });
    const form = h(
      'form',
      {
        novalidate: true,
        onsubmit: async (event: Event) => {
          event.preventDefault();
          if (Date.now() > expires) {
            status.error(texts.secondStep.expired);
            return;
          }
          const value = code.input.value.replace(/\s/g, '');
          if (!code.input.checkValidity() || !value) {
            showProblems(form, [{ input: code.input, message: texts.errors.invalid_otp }]);
            return;
          }
          const answer = await busy(form, () => client.verifyOtp(challenge, useRecovery ? { recovery_code: value } : { code: value }, trusting()));
          if (!answer.ok) {
            // The one field of this step, whether it holds an app code or a recovery code.
            const onFields = showError(status, answer.error, { code });
            if (answer.error.code === 'invalid_challenge') setTimeout(signInView, 2_000);
            if (!onFields) code.input.select();
            return;
          }
          if (answer.data.signedIn) signedIn();
        },
      },
      code.wrapper,
      trustField,
      h('button', { type: 'submit' }, texts.secondStep.submit),
      status.element,
    );
    const toggle =
      hasApp &&
      hasRecovery &&
      actionButton(
        useRecovery ? texts.secondStep.useApp : texts.secondStep.useRecovery,
        () => {
          useRecovery = !useRecovery;
          render();
        },
        { link: true },
      );
    const passkey =
      passkeysSupported &&
      (challenge.factors?.includes('passkey') ?? false) &&
      h(
        'p',
        {},
        actionButton(
          texts.secondStep.usePasskey,
          async () => {
            const answer = await client.verifyWithPasskey(challenge, askForPasskey, trusting());
            if (!answer.ok) return showError(status, answer.error);
            if (answer.data.signedIn) signedIn();
          },
          { secondary: true },
        ),
      );
    // None of the factors at hand: the mailbox may ask for them to go, after a wait (services/auth/src/domain/shared/mailbox.ts).
    const lost =
      ownFactors &&
      h(
        'p',
        {},
        actionButton(
          texts.secondStep.lostFactors,
          async () => {
            const answer = await client.requestFactorRecovery(challenge);
            if (!answer.ok) return showError(status, answer.error);
            status.info(texts.secondStep.recoveryMailed);
          },
          { link: true },
        ),
      );
    showView(texts.secondStep.title, !ownFactors && h('p', {}, texts.secondStep.mailedHint), form, toggle, passkey, lost);
    code.input.focus();
  };
  render();
}

/** Signing in with the address alone: a link for this browser and a code for this device, mailed (services/auth/src/domain/sign-in/email-sign-in.ts). */
function emailSignInView(prefill = ''): void {
  const status = statusLine();
  const email = field(texts.signIn.email, { name: 'email', type: 'email', autocomplete: 'username', required: true, value: prefill || undefined });
  const form = validatedForm(
    async () => {
      const address = email.input.value.trim();
      const answer = await client.requestEmailSignIn(address);
      if (!answer.ok) {
        showError(status, answer.error, { email });
        return;
      }
      // The link comes back to this browser, maybe in another tab: where to go then.
      localStorage.setItem(EMAIL_RETURN, afterSignIn);
      emailCodeView(address, answer.data.flow, answer.data.expiresIn);
    },
    email.wrapper,
    widget(),
    h('button', { type: 'submit' }, texts.emailSignIn.send),
    status.element,
  );
  showView(texts.emailSignIn.title, h('p', {}, texts.emailSignIn.intro), form, h('p', {}, link(withReturn(`${prefix}/login`), texts.emailSignIn.withPassword)));
}

/** Mailed: the link works in this browser, the code on this page. */
function emailCodeView(address: string, flow: string, expiresIn: number): void {
  const status = statusLine();
  const expires = Date.now() + expiresIn * 1000;
  const code = field(texts.emailSignIn.code, { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6, required: true });
  const form = validatedForm(
    async () => {
      if (Date.now() > expires) {
        status.error(texts.emailSignIn.expired);
        return;
      }
      const answer = await client.emailCodeSignIn(flow, code.input.value.replace(/\s/g, ''));
      if (!answer.ok) {
        const onFields = showError(status, answer.error, { code });
        return onFields ? undefined : code.input;
      }
      if (answer.data.signedIn) signedIn();
      else secondStepView(answer.data.challenge);
    },
    code.wrapper,
    h('button', { type: 'submit' }, texts.secondStep.submit),
    status.element,
  );
  showView(
    texts.emailSignIn.checkTitle,
    h('p', { role: 'status' }, texts.emailSignIn.sent(address, Math.round(expiresIn / 60))),
    form,
    h('p', {}, actionButton(texts.emailSignIn.again, () => emailSignInView(address), { link: true })),
  );
  code.input.focus();
}

/** The page a mailed link opens: it signs this browser in if this is the browser that asked. */
async function emailLinkSignInView(token: string): Promise<void> {
  // The link leaves the address bar (and so the history and any later Referer) once read.
  history.replaceState(null, '', location.pathname);
  showView(texts.emailSignIn.title, h('p', { role: 'status' }, texts.signIn.working));
  const answer = await client.emailLinkSignIn(token);
  if (answer.ok) {
    if (answer.data.signedIn) signedIn();
    else secondStepView(answer.data.challenge);
    return;
  }
  const otherBrowser = answer.error.code === 'email_link_other_browser';
  showView(
    otherBrowser ? texts.emailSignIn.otherBrowserTitle : texts.emailSignIn.title,
    h('p', { role: 'alert' }, errorText(answer.error)),
    h('p', {}, actionButton(texts.emailSignIn.askHere, () => emailSignInView(), { secondary: true })),
    h('p', {}, link(`${prefix}/login`, texts.emailSignIn.withPassword)),
  );
}

/** A new account's fields (a name, an address, a password with its rules shown as they are met), and what they hold. */
function newAccountFields() {
  const name = field(texts.register.name, { name: 'name', autocomplete: 'name', required: true, minlength: 2, maxlength: 20 }, texts.register.nameHint);
  const email = field(texts.register.email, { name: 'email', type: 'email', autocomplete: 'email', required: true });
  const password = withPasswordRules(
    field(texts.register.password, { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 }, texts.register.passwordHint),
    (typed) => client.checkPassword(typed),
  );
  const values = () => ({ name: name.input.value.trim(), email: email.input.value.trim(), password: password.input.value });
  return { fields: { name, email, password }, values, wrappers: [name.wrapper, email.wrapper, password.wrapper] };
}

/** A deployment with no admin yet: the first one is created here, and the page is gone once one exists. */
function firstAdminView(): void {
  const status = statusLine();
  const { fields, values, wrappers } = newAccountFields();
  const form = validatedForm(
    async () => {
      const answer = await client.register(values());
      if (!answer.ok) {
        showError(status, answer.error, fields);
        // Someone else created the first admin meanwhile: this page is over.
        if (answer.error.code === 'admin_registration_closed') form.replaceWith(h('p', {}, link('/admin/login', texts.reset.signIn)), status.element);
        return;
      }
      // The answer names the account `admin`; the address is the one just given.
      showView(texts.firstAdmin.title, h('p', { role: 'status' }, texts.firstAdmin.done), h('p', {}, link(withReturn('/admin/login', { email: values().email }), texts.reset.signIn)));
    },
    ...wrappers,
    h('button', { type: 'submit' }, texts.firstAdmin.submit),
    status.element,
  );
  showView(texts.firstAdmin.title, h('p', {}, texts.firstAdmin.intro), form);
}

function registerView(): void {
  const status = statusLine();
  const { fields, values, wrappers } = newAccountFields();
  const form = validatedForm(
    async () => {
      const answer = await client.register(values());
      if (!answer.ok) {
        showError(status, answer.error, fields);
        return;
      }
      const needsProof = answer.data.user.emailVerified === false;
      showView(
        texts.register.title,
        h('p', { role: 'status' }, needsProof ? texts.register.doneVerify : texts.register.done),
        h('p', {}, link(withReturn('/login', { email: answer.data.user.email }), texts.register.signInNow)),
      );
    },
    ...wrappers,
    widget(),
    h('button', { type: 'submit' }, texts.register.submit),
    status.element,
  );
  showView(texts.register.title, form, h('p', {}, `${texts.register.haveAccount} `, link(withReturn('/login'), texts.signIn.submit)));
}

function forgotView(): void {
  const status = statusLine();
  const email = field(texts.forgot.email, { name: 'email', type: 'email', autocomplete: 'username', required: true });
  const form = validatedForm(
    async () => {
      const answer = await client.forgotPassword(email.input.value.trim());
      if (answer.ok) status.info(texts.forgot.sent);
      else showError(status, answer.error, { email });
    },
    email.wrapper,
    widget(),
    h('button', { type: 'submit' }, texts.forgot.submit),
    status.element,
  );
  showView(texts.forgot.title, h('p', {}, texts.forgot.intro), form, h('p', {}, link(withReturn(`${prefix}/login`), texts.forgot.back)));
}

function resetView(): void {
  const token = params.get('token');
  // The token leaves the address bar (and so the history and any later Referer) once read.
  history.replaceState(null, '', location.pathname);
  if (!token) {
    showView(texts.reset.title, h('p', { role: 'alert' }, texts.reset.missingToken), h('p', {}, link(`${prefix}/forgot-password`, texts.reset.again)));
    return;
  }
  const status = statusLine();
  const password = withPasswordRules(
    field(texts.reset.password, { name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 }, texts.register.passwordHint),
    (typed) => client.checkPassword(typed),
  );
  const confirm = field(texts.reset.confirm, { name: 'confirm', type: 'password', autocomplete: 'new-password', required: true });
  const form = validatedForm(
    async () => {
      confirm.setError('');
      if (password.input.value !== confirm.input.value) {
        confirm.setError(texts.reset.mismatch);
        return confirm.input;
      }
      const answer = await client.resetPassword(token, password.input.value);
      if (!answer.ok) {
        showError(status, answer.error, { newPassword: password });
        if (answer.error.code === 'reset_token_invalid') form.replaceWith(h('p', {}, link(`${prefix}/forgot-password`, texts.reset.again)), status.element);
        return;
      }
      showView(texts.reset.title, h('p', { role: 'status' }, texts.reset.done), h('p', {}, link(`${prefix}/login`, texts.reset.signIn)));
    },
    password.wrapper,
    confirm.wrapper,
    h('button', { type: 'submit' }, texts.reset.submit),
    status.element,
  );
  showView(texts.reset.title, form);
}

function emailLinkView(): void {
  const action = params.get('action');
  const token = params.get('token');
  history.replaceState(null, '', location.pathname);
  if ((action !== 'verify' && action !== 'confirm' && action !== 'undo' && action !== 'recover') || !token) {
    showView(texts.emailLink.verify.title, h('p', { role: 'alert' }, texts.emailLink.unknown));
    return;
  }
  const words = texts.emailLink[action];
  const status = statusLine();
  // A click, not the page load, uses the link: mail scanners that open links do not spend it.
  const form = h(
    'form',
    {
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const answer = await busy(form, () => client.followEmailLink(action, token));
        if (!answer.ok) {
          showError(status, answer.error);
          return;
        }
        showView(
          words.title,
          h('p', { role: 'status' }, words.done),
          h('p', {}, link(action === 'undo' ? '/login?after=undo' : action === 'recover' ? '/login' : '/account', action === 'undo' || action === 'recover' ? texts.reset.signIn : texts.emailLink.toAccount)),
        );
      },
    },
    h('button', { type: 'submit' }, words.submit),
    status.element,
  );
  showView(words.title, h('p', {}, words.intro), form);
}

const views: Record<string, () => void> = {
  '/login': signInView,
  '/admin/login': signInView,
  '/register': registerView,
  '/forgot-password': forgotView,
  '/admin/forgot-password': forgotView,
  '/reset-password': resetView,
  '/admin/reset-password': resetView,
  '/account/email': emailLinkView,
};

/** Back from an identity provider: a second step in the fragment, an error in the query, or signed in (the cookie is set). */
async function afterProvider(): Promise<boolean> {
  const challenge = challengeFromReturn(location.hash);
  const error = params.get('error');
  const expected = sessionStorage.getItem(PROVIDER_RETURN) !== null;
  if (!challenge && !error && !expected) return false;
  history.replaceState(null, '', location.pathname);
  if (challenge) {
    secondStepView(challenge);
    return true;
  }
  if (error) {
    sessionStorage.removeItem(PROVIDER_RETURN);
    signInView({ status: 400, code: error, message: error });
    return true;
  }
  if (await client.refresh()) {
    signedIn();
    return true;
  }
  sessionStorage.removeItem(PROVIDER_RETURN);
  return false;
}

void (async () => {
  languageSwitch();
  const mailedLink = params.get('email_sign_in');
  if ((path === '/login' || path === '/admin/login') && mailedLink) return emailLinkSignInView(mailedLink);
  if ((path === '/login' || path === '/admin/login') && (await afterProvider())) return;
  // Sent by an app: a browser already signed in goes straight back (unless the app asked for a fresh sign-in).
  if ((path === '/login' || path === '/admin/login') && appInteraction) {
    const request = await appRequest(appInteraction);
    if (!request.ok) return appRequestEnded(errorText(request.error));
    pendingApp = request.data;
    if (!request.data.freshLogin && (await client.refresh())) return signedIn();
    return signInView(undefined, texts.appSignIn.signInTo(request.data.app.name));
  }
  // No admin yet: the admin sign-in page is the first-run form instead.
  if (path === '/admin/login') {
    const methods = await offered;
    if (methods.ok && methods.data.firstAdmin) return firstAdminView();
  }
  (views[path] ?? signInView)();
})();
