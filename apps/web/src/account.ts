// The account console: who you are (picture and name, changed here), where you are signed in (end
// one session or every other), change your password, download your data, sign out. A visit without
// a session goes to sign in and comes back here.
import './style.css';
import { startRegistration } from '@simplewebauthn/browser';
import { AccountClient, type Account, type FactorEntry, type Factors, type Session } from '@acct/client';
import { actionButton, confirmFirst, field, formatDate, h, keepLanguage, languageSwitch, link, showView, statusLine, takeChosenLanguage, useProblemWords, validatedForm } from './dom';
import { activityItem, placeAndDevice, section, withStepUp } from './console';
import { withPasswordRules } from './password-rules';
import { errorText, languages, pageLanguage, texts } from './texts';

// A session ended elsewhere (signed out, a reset, a disable) takes the account off screen at the next call.
const client = new AccountClient({ kind: 'user', onSignedOut: () => toSignIn() });
useProblemWords(texts.problems);
/** The service's limit for a picture (2 MiB): a larger file is refused here, before it is sent. */
const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
const status = statusLine();
/** The sections' first loads, which the console waits for before it shows (at most FIRST_LOAD_WAIT_MS: a section still loading then fills in where it is). */
const firstLoads: Promise<unknown>[] = [];
const FIRST_LOAD_WAIT_MS = 5_000;

function toSignIn(): void {
  location.assign(`/login?return_to=${encodeURIComponent('/account')}`);
}

async function start(): Promise<void> {
  showView(texts.account.title, h('p', { role: 'status' }, texts.account.loading));
  if (!(await client.refresh())) return toSignIn();
  const me = await client.me();
  if (!me.ok) {
    if (me.error.status === 401) return toSignIn();
    showView(texts.account.title, h('p', { role: 'alert' }, errorText(me.error)));
    return;
  }
  const account = me.data;
  // A language just chosen on this browser's switch (at sign-in, say) is kept for the account; else
  // the account's goes with it to every browser it signs in on, and this page is served again in it.
  const chosen = takeChosenLanguage();
  if (chosen === pageLanguage && chosen !== account.language) {
    const kept = await client.setLanguage(chosen);
    if (kept.ok) account.language = chosen;
  } else if (account.language && account.language !== pageLanguage && languages.some((l) => l.code === account.language) && keepLanguage(account.language)) {
    // Only once the browser kept the cookie: one that keeps none would be served this language again, and again.
    return location.reload();
  }
  languageSwitch((code) => client.setLanguage(code));
  const sessionsList = h('ul', { class: 'sessions' });
  const view = [
    status.element,
    profileSection(account),
    section(
      texts.account.sessions,
      sessionsList,
      confirmFirst(texts.account.signOutOthers, texts.account.signOutOthersConfirm, async () => {
        const answer = await client.signOutOthers();
        if (!answer.ok) return status.error(errorText(answer.error));
        status.info(texts.account.othersEnded(Number((answer.data as { signedOut?: number }).signedOut ?? 0)));
        await renderSessions(sessionsList);
      }),
    ),
    section(texts.account.appsTitle, h('p', {}, texts.account.appsIntro), appsList),
    activitySection(),
    factorsSection(),
    trustedBrowsersSection(),
    identitiesSection(),
    section(texts.account.emailTitle, h('p', {}, texts.account.emailCurrent(account.email)), emailForm()),
    passwordSection(sessionsList),
    section(
      texts.account.data,
      actionButton(
        texts.account.exportData,
        async () => {
          const answer = await client.exportData();
          if (!answer.ok) return status.error(errorText(answer.error));
          const url = URL.createObjectURL(answer.data);
          h('a', { href: url, download: 'account-data.json' }).click();
          setTimeout(() => URL.revokeObjectURL(url), 10_000);
        },
        { secondary: true },
      ),
    ),
    section(texts.account.deleteTitle, h('p', {}, texts.account.deleteIntro), deleteForm()),
    h(
      'p',
      {},
      actionButton(
        texts.account.signOut,
        async () => {
          await client.logout();
          location.assign('/login');
        },
        { id: 'sign-out' },
      ),
    ),
  ];
  // Shown whole once every section has its first answer: filled in one by one, the sections above
  // pushed the ones below down while a person (or a browser test) aimed at them. On 2026-11-29 the
  // delete button moved 1,000 px in the second after it appeared, and a press landed elsewhere.
  await Promise.race([Promise.allSettled([...firstLoads, renderSessions(sessionsList)]), new Promise((resolve) => setTimeout(resolve, FIRST_LOAD_WAIT_MS))]);
  showView(texts.account.title, ...view);
  // Back from linking a provider: what happened, said once.
  const query = new URLSearchParams(location.search);
  if (query.has('linked')) status.info(texts.account.identityNowLinked);
  else if (query.has('error')) status.error(errorText({ code: query.get('error')!, message: query.get('error')! }));
  if (query.has('linked') || query.has('error')) history.replaceState(null, '', location.pathname);
}

/** Who you are: the picture (upload, remove), the name (change), the address and since when. */
function profileSection(account: Account): HTMLElement {
  const picture = h('img', { class: 'avatar', alt: texts.account.picture, width: 72, height: 72, hidden: true });
  const noPicture = h('p', { class: 'hint' }, texts.account.noPicture);
  const pictureStatus = statusLine();
  const showPicture = async (has: boolean) => {
    if (picture.src) URL.revokeObjectURL(picture.src);
    picture.removeAttribute('src');
    picture.hidden = true;
    remove.hidden = !has;
    noPicture.hidden = has;
    if (!has) return;
    const answer = await client.avatar();
    if (!answer.ok) return;
    picture.src = URL.createObjectURL(answer.data);
    picture.hidden = false;
  };
  const remove = actionButton(
    texts.account.pictureRemove,
    async () => {
      const answer = await client.removeAvatar();
      if (!answer.ok && answer.error.code !== 'avatar_not_found') return pictureStatus.error(errorText(answer.error));
      await showPicture(false);
      pictureStatus.info(texts.account.pictureRemoved);
    },
    { secondary: true },
  );
  const file = field(texts.account.pictureFile, { name: 'avatar', type: 'file', accept: 'image/png,image/jpeg,image/webp', required: true }, texts.account.pictureHint);
  const pictureForm: HTMLFormElement = validatedForm(
    async () => {
      const chosen = file.input.files?.[0];
      file.setError('');
      if (!chosen) return file.input;
      if (chosen.size > AVATAR_MAX_BYTES) {
        file.setError(texts.account.pictureTooLarge);
        return file.input;
      }
      const answer = await client.replaceAvatar(chosen);
      if (!answer.ok) {
        file.setError(errorText(answer.error));
        return file.input;
      }
      pictureForm.reset();
      await showPicture(true);
      pictureStatus.info(texts.account.pictureUploaded);
    },
    file.wrapper,
    h('button', { type: 'submit' }, texts.account.pictureUpload),
  );
  firstLoads.push(showPicture(Boolean(account.avatar)));

  const name = field(texts.account.name, { name: 'name', autocomplete: 'name', required: true, minlength: 2, maxlength: 20, value: account.name });
  const nameStatus = statusLine();
  const nameForm = validatedForm(
    async () => {
      name.setError('');
      const answer = await client.updateProfile(name.input.value.trim());
      if (!answer.ok) {
        name.setError(answer.error.errors?.name ?? errorText(answer.error));
        return name.input;
      }
      name.input.value = answer.data.name;
      nameStatus.info(texts.account.nameSaved);
    },
    name.wrapper,
    h('button', { type: 'submit' }, texts.account.nameSave),
    nameStatus.element,
  );

  return section(
    texts.account.profile,
    picture,
    noPicture,
    pictureForm,
    h('p', {}, remove),
    pictureStatus.element,
    nameForm,
    h(
      'dl',
      {},
      h('dt', {}, texts.account.email),
      h('dd', {}, account.email, account.emailVerified === false ? ` (${texts.account.notVerified})` : ''),
      h('dt', {}, texts.account.memberSince),
      h('dd', {}, formatDate(account.createdAt)),
    ),
  );
}

/** The apps signed in through this service (OpenID Connect), one line each, filled with the sessions. */
const appsList = h('ul', { class: 'apps' });

/** The apps with access (signed in through this service, or allowed on a consent page): each with a way to take its access back. */
async function renderApps(sessionsList: HTMLElement): Promise<void> {
  const answer = await client.appsWithAccess();
  if (!answer.ok) return void status.error(errorText(answer.error));
  if (answer.data.length === 0) {
    appsList.replaceChildren(h('li', {}, texts.account.appsNone));
    return;
  }
  appsList.replaceChildren(
    ...answer.data.map((app) =>
      h(
        'li',
        { 'data-app': app.id },
        h('span', { class: 'session-name' }, app.name),
        h('span', { class: 'session-meta' }, texts.account.appAccess(app, formatDate)),
        actionButton(
          texts.account.appRevoke,
          async () => {
            const revoked = await client.revokeApp(app.id);
            if (!revoked.ok && revoked.error.code !== 'app_not_found') return status.error(errorText(revoked.error));
            status.info(texts.account.appRevoked(app.name));
            await renderSessions(sessionsList);
          },
          { secondary: true, ariaLabel: texts.account.appRevokeOf(app.name) },
        ),
      ),
    ),
  );
}

async function renderSessions(list: HTMLElement): Promise<void> {
  const answer = await client.sessions();
  if (!answer.ok) {
    if (answer.error.status === 401) return toSignIn();
    status.error(errorText(answer.error));
    return;
  }
  const byRecent = [...answer.data].sort((a, b) => Number(b.current) - Number(a.current) || b.lastUsedAt.localeCompare(a.lastUsedAt));
  list.replaceChildren(...byRecent.map((session) => sessionItem(session, list)));
  await renderApps(list);
}

function sessionItem(session: Session, list: HTMLElement): HTMLElement {
  const started = formatDate(session.createdAt);
  return h(
    'li',
    { 'data-session': session.id },
    h('span', { class: 'session-name' }, session.current ? texts.account.thisDevice : session.app ? texts.account.appSession(session.app.name, started) : `${texts.account.started} ${started}`),
    h('span', { class: 'session-meta' }, [`${texts.account.lastUsed}: ${formatDate(session.lastUsedAt)}`, placeAndDevice(session)].filter(Boolean).join(' · ')),
    !session.current &&
      actionButton(
        texts.account.endSession,
        async () => {
          const answer = await client.endSession(session.id);
          if (!answer.ok && answer.error.code !== 'session_not_found') return status.error(errorText(answer.error));
          status.info(texts.account.sessionEnded);
          await renderSessions(list);
        },
        { secondary: true, ariaLabel: texts.account.endSessionOf(started) },
      ),
  );
}

function emailForm(): HTMLFormElement {
  const formStatus = statusLine();
  const email = field(texts.account.newEmail, { name: 'newEmail', type: 'email', autocomplete: 'email', required: true });
  const password = field(texts.account.emailPassword, { name: 'password', type: 'password', autocomplete: 'current-password' });
  const form: HTMLFormElement = validatedForm(
    async () => {
      const newEmail = email.input.value.trim();
      const answer = await withStepUp(client, () => client.changeEmail(newEmail, password.input.value));
      if (!answer.ok) {
        formStatus.error(errorText(answer.error));
        return answer.error.code === 'invalid_credentials' ? password.input : email.input;
      }
      form.reset();
      formStatus.info(texts.account.emailPending(newEmail));
    },
    email.wrapper,
    password.wrapper,
    h('button', { type: 'submit' }, texts.account.emailSubmit),
    formStatus.element,
  );
  return form;
}

/** Deleting the account: asked first, with the password box in the question (a recent sign-in stands in for it). */
function deleteForm(): HTMLElement {
  const formStatus = statusLine();
  const password = field(texts.account.deletePassword, { name: 'deletePassword', type: 'password', autocomplete: 'current-password' });
  return confirmFirst(
    texts.account.deleteSubmit,
    texts.account.deleteConfirm,
    async () => {
      const answer = await withStepUp(client, () => client.deleteAccount(password.input.value));
      if (!answer.ok) {
        formStatus.error(errorText(answer.error));
        password.input.focus();
        return;
      }
      showView(texts.account.deleted, h('p', {}, link('/register', texts.account.createNew)));
    },
    { danger: true, extra: [password.wrapper, formStatus.element] },
  );
}

/** The password: changed with the current one, or turned off where another way in remains; without one, how to set one. */
function passwordSection(sessionsList: HTMLElement): HTMLElement {
  const body = h('div', {});
  const render = async () => {
    const answer = await client.factors();
    if (!answer.ok) return status.error(errorText(answer.error));
    if (!answer.data.password) {
      body.replaceChildren(h('p', {}, texts.account.noPassword), h('p', {}, link('/forgot-password', texts.account.setPassword)));
      return;
    }
    const offStatus = statusLine();
    const off = confirmFirst(texts.account.passwordOff, texts.account.passwordOffConfirm, async () => {
      const removed = await withStepUp(client, () => client.removePassword());
      if (!removed.ok) return offStatus.error(errorText(removed.error));
      status.info(texts.account.passwordRemoved);
      await Promise.all([render(), renderSessions(sessionsList)]);
    });
    body.replaceChildren(passwordForm(sessionsList), h('h3', {}, texts.account.passwordOffTitle), h('p', {}, texts.account.passwordOffIntro), off, offStatus.element);
  };
  firstLoads.push(render());
  return section(texts.account.password, body);
}

function passwordForm(sessionsList: HTMLElement): HTMLFormElement {
  const formStatus = statusLine();
  const current = field(texts.account.currentPassword, { name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true });
  const next = withPasswordRules(
    field(texts.account.newPassword, { name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 }, texts.register.passwordHint),
    (typed) => client.checkPassword(typed),
  );
  const form: HTMLFormElement = validatedForm(
    async () => {
      const answer = await client.changePassword(current.input.value, next.input.value);
      current.setError('');
      next.setError('');
      if (!answer.ok) {
        if (answer.error.code === 'invalid_credentials') current.setError(errorText(answer.error));
        for (const [name, message] of Object.entries(answer.error.errors ?? {})) if (name === 'newPassword') next.setError(message);
        formStatus.error(errorText(answer.error));
        return;
      }
      form.reset();
      formStatus.info(texts.account.passwordChanged);
      await renderSessions(sessionsList);
    },
    current.wrapper,
    next.wrapper,
    h('button', { type: 'submit' }, texts.account.changePassword),
    formStatus.element,
  );
  return form;
}

// ---- Trusted browsers ----

/** The browsers trusted at a second step ("trust this browser"), each forgotten with a press: its next sign-in asks for the second step again. */
function trustedBrowsersSection(): HTMLElement {
  const list = h('ul', { class: 'trusted-browsers' });
  const render = async () => {
    const answer = await client.trustedBrowsers();
    if (!answer.ok) return status.error(errorText(answer.error));
    if (answer.data.length === 0) return list.replaceChildren(h('li', {}, texts.account.noTrustedBrowser));
    list.replaceChildren(
      ...answer.data.map((browser) =>
        h(
          'li',
          { 'data-browser': browser.id },
          h('span', { class: 'session-name' }, placeAndDevice(browser) || texts.account.aBrowser),
          h('span', { class: 'session-meta' }, texts.account.trustedUntil(formatDate(browser.createdAt), formatDate(browser.expiresAt))),
          actionButton(
            texts.account.forgetBrowser,
            async () => {
              const forgotten = await client.forgetBrowser(browser.id);
              if (!forgotten.ok && forgotten.error.code !== 'factor_not_found') return status.error(errorText(forgotten.error));
              status.info(texts.account.browserForgotten);
              await render();
            },
            { secondary: true, ariaLabel: texts.account.forgetBrowserOf(formatDate(browser.createdAt)) },
          ),
        ),
      ),
    );
  };
  firstLoads.push(render());
  return section(texts.account.trustedBrowsers, h('p', {}, texts.account.trustedBrowsersIntro), list);
}

// ---- Recent activity ----

function activitySection(): HTMLElement {
  const list = h('ol', { class: 'activity' });
  const more = actionButton(texts.account.activityMore, () => void load(cursor), { secondary: true });
  more.hidden = true;
  let cursor: string | undefined;
  const load = async (from?: string) => {
    const answer = await client.activity(from);
    if (!answer.ok) return status.error(errorText(answer.error));
    if (!from && answer.data.activity.length === 0) list.replaceChildren(h('li', {}, texts.account.activityNone));
    list.append(...answer.data.activity.map(activityItem));
    cursor = answer.data.nextCursor ?? undefined;
    more.hidden = !cursor;
  };
  firstLoads.push(load());
  return section(texts.account.activity, list, more);
}

// ---- Sign-in providers ----

function identitiesSection(): HTMLElement {
  const body = h('div', {});
  const wrapper = section(texts.account.identities, body);
  wrapper.hidden = true;
  const render = async () => {
    const answer = await client.identities();
    if (!answer.ok) return status.error(errorText(answer.error));
    const { identities, providers } = answer.data;
    // Shown only where the deployment offers providers.
    wrapper.hidden = providers.length === 0 && identities.length === 0;
    const nameOf = (id: string) => providers.find((p) => p.id === id)?.name ?? id;
    const linked = identities.map((identity) =>
      h(
        'li',
        {},
        h('span', { class: 'session-name' }, nameOf(identity.provider)),
        h('span', { class: 'session-meta' }, [identity.email, texts.account.identityLinked(formatDate(identity.linkedAt))].filter(Boolean).join(' · ')),
        actionButton(
          texts.account.unlink,
          async () => {
            const unlinked = await client.unlinkIdentity(identity.provider);
            if (!unlinked.ok) return status.error(errorText(unlinked.error));
            status.info(texts.account.identityUnlinked);
            await render();
          },
          { secondary: true, ariaLabel: texts.account.identityUnlink(nameOf(identity.provider)) },
        ),
      ),
    );
    const linkable = providers.filter((p) => p.available && !identities.some((i) => i.provider === p.id));
    body.replaceChildren(
      h('ul', { class: 'passkeys' }, ...linked),
      ...linkable.map((provider) =>
        h(
          'p',
          {},
          actionButton(
            texts.account.identityLink(provider.name),
            async () => {
              const started = await withStepUp(client, () => client.linkIdentity(provider.id, `${location.origin}/account`));
              if (!started.ok) return status.error(errorText(started.error));
              location.assign(started.data);
            },
            { secondary: true },
          ),
        ),
      ),
    );
  };
  firstLoads.push(render());
  return wrapper;
}

// ---- Second factors ----

function factorsSection(): HTMLElement {
  const body = h('div', {});
  const render = async () => {
    const answer = await client.factors();
    if (!answer.ok) return status.error(errorText(answer.error));
    body.replaceChildren(...factorsView(answer.data, render));
  };
  firstLoads.push(render());
  return section(texts.account.factors, body);
}

/** What a method's part of the console shows: its factors (from the list's `items`), and how one adds one. */
type FactorView = (held: FactorEntry[], factors: Factors, render: () => Promise<void>) => HTMLElement | undefined;

/**
 * The methods the console knows how to set up, in the order it shows them. A method the service lists
 * that is not here (a new one) still shows, each factor with its dates and a Remove: the list is the
 * service's, not the console's.
 */
const FACTOR_VIEWS: Partial<Record<FactorEntry['method'], FactorView>> = { totp: appView, passkey: passkeysView, recovery_code: recoveryView };

function factorsView(factors: Factors, render: () => Promise<void>): Node[] {
  // A removal the mailbox asked for: the owner sees it first, and stops it here.
  const pending =
    factors.pendingRecovery &&
    h(
      'div',
      { class: 'notice', role: 'alert' },
      h('p', {}, texts.account.recoveryPending(formatDate(factors.pendingRecovery.dueAt))),
      actionButton(texts.account.cancelRecovery, async () => {
        const answer = await client.cancelFactorRecovery();
        if (!answer.ok) return status.error(errorText(answer.error));
        await render();
      }),
    );
  const methods = [...new Set([...(Object.keys(FACTOR_VIEWS) as Array<FactorEntry['method']>), ...factors.items.map((item) => item.method)])];
  const views = methods.map((method) => (FACTOR_VIEWS[method] ?? otherView)(factors.items.filter((item) => item.method === method), factors, render));
  return [...(pending ? [pending] : []), ...views.filter((view): view is HTMLElement => view !== undefined), h('div', { id: 'recovery-codes' })];
}

/** Removes a factor by its id behind a fresh proof, then says `removed` and draws the list again. */
const removeFactor = (id: string, removed: string, render: () => Promise<void>) => async () => {
  const answer = await withStepUp(client, () => client.removeFactor(id));
  if (!answer.ok) return status.error(errorText(answer.error));
  status.info(removed);
  await render();
};

function appView(held: FactorEntry[], _factors: Factors, render: () => Promise<void>): HTMLElement {
  const app = h('div', { class: 'factor' }, h('h3', {}, texts.account.app));
  const live = held.find((item) => item.confirmed);
  if (live) {
    app.append(
      h('p', {}, texts.account.appOn(formatDate(live.createdAt ?? ''))),
      confirmFirst(texts.account.appRemove, texts.account.appRemoveConfirm, removeFactor(live.id, texts.account.appRemoved, render)),
    );
  } else {
    app.append(
      h('p', {}, texts.account.appOff),
      actionButton(texts.account.appSetUp, async (event: Event) => {
        const answer = await withStepUp(client, () => client.startTotp());
        if (!answer.ok) return status.error(errorText(answer.error));
        (event.target as HTMLElement).replaceWith(enrolment(answer.data, render));
      }),
    );
  }
  return app;
}

function recoveryView(held: FactorEntry[], factors: Factors, render: () => Promise<void>): HTMLElement {
  const recovery = h('div', { class: 'factor' }, h('h3', {}, texts.account.recovery));
  const hasFactor = factors.items.some((item) => item.role === 'way-in' && item.confirmed);
  recovery.append(h('p', {}, hasFactor ? texts.account.recoveryLeft(held[0]?.remaining ?? 0) : texts.account.recoveryNone));
  if (hasFactor) {
    recovery.append(
      actionButton(
        texts.account.recoveryNew,
        async () => {
          const answer = await withStepUp(client, () => client.newRecoveryCodes());
          if (!answer.ok) return status.error(errorText(answer.error));
          await render();
          recoveryAnchor().replaceChildren(recoveryCodesView(answer.data.recoveryCodes));
        },
        { secondary: true },
      ),
    );
  }
  return recovery;
}

/** A method this console has no view of: its factors as the list names them, each removable. */
function otherView(held: FactorEntry[], _factors: Factors, render: () => Promise<void>): HTMLElement | undefined {
  if (!held.length) return undefined;
  const removal = (item: FactorEntry) =>
    item.role === 'way-in' && item.confirmed ? { question: texts.account.factorRemoveConfirm(item.label), removed: texts.account.factorRemoved, ariaLabel: texts.account.factorRemove(item.label) } : undefined;
  return h('div', { class: 'factor', 'data-method': held[0].method }, h('h3', {}, texts.account.otherFactors), h('ul', { class: 'factor-list' }, ...held.map((item) => factorItem(item, render, removal(item)))));
}

/** One factor in a list: its name, when it was last used, a note, and its removal, asked first. */
function factorItem(
  item: FactorEntry,
  render: () => Promise<void>,
  removal: { question: { says: string; confirm: string; cancel: string }; removed: string; ariaLabel: string } | undefined,
  note?: string | false,
): HTMLElement {
  return h(
    'li',
    {},
    h('span', { class: 'session-name' }, item.label),
    h('span', { class: 'session-meta' }, item.lastUsedAt ? texts.account.factorUsed(formatDate(item.lastUsedAt)) : texts.account.factorNeverUsed),
    note && h('span', { class: 'session-meta' }, note),
    removal && confirmFirst(texts.account.remove, removal.question, removeFactor(item.id, removal.removed, render), { ariaLabel: removal.ariaLabel }),
  );
}

function passkeysView(held: FactorEntry[], factors: Factors, render: () => Promise<void>): HTMLElement | undefined {
  if (!factors.passkeysAvailable) return undefined;
  const formStatus = statusLine();
  const name = field(texts.account.passkeyName, { name: 'passkeyName', required: true, maxlength: 64, autocomplete: 'off' }, texts.account.passkeyNameHint);
  const list = held.length
    ? h(
        'ul',
        { class: 'passkeys' },
        ...held.map((passkey) =>
          factorItem(
            passkey,
            render,
            { question: texts.account.passkeyRemoveConfirm(passkey.label), removed: texts.account.passkeyRemoved, ariaLabel: texts.account.passkeyRemove(passkey.label) },
            passkey.suspended && texts.account.passkeySuspended,
          ),
        ),
      )
    : h('p', {}, texts.account.passkeysNone);
  const create = (options: unknown) => startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
  return h(
    'div',
    { class: 'factor' },
    h('h3', {}, texts.account.passkeys),
    list,
    validatedForm(
      async () => {
        const answer = await withStepUp(client, () => client.addPasskey(name.input.value.trim(), create));
        if (!answer.ok) {
          formStatus.error(errorText(answer.error));
          return name.input;
        }
        status.info(texts.account.passkeyAdded);
        const codes = (answer.data as { recoveryCodes?: string[] }).recoveryCodes;
        await render();
        if (codes) recoveryAnchor().replaceChildren(recoveryCodesView(codes));
      },
      name.wrapper,
      h('button', { type: 'submit' }, texts.account.passkeyAdd),
      formStatus.element,
    ),
  );
}

const recoveryAnchor = () => document.getElementById('recovery-codes')!;

function enrolment(started: { secret: string; qrCode: string }, render: () => Promise<void>): HTMLElement {
  const formStatus = statusLine();
  const code = field(texts.account.appCode, { name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6, required: true });
  const view = h(
    'div',
    { class: 'enrolment' },
    h('p', {}, texts.account.appScan),
    h('img', { src: started.qrCode, alt: texts.account.appQr, width: 180, height: 180 }),
    h('p', {}, `${texts.account.appKey}: `, h('code', { class: 'secret' }, started.secret.replace(/(.{4})/g, '$1 ').trim())),
    validatedForm(
      async () => {
        const answer = await client.confirmTotp(code.input.value.trim());
        if (!answer.ok) {
          formStatus.error(errorText(answer.error));
          return code.input;
        }
        status.info(texts.account.appOnNow);
        await render();
        if (answer.data.recoveryCodes) recoveryAnchor().replaceChildren(recoveryCodesView(answer.data.recoveryCodes));
      },
      code.wrapper,
      h('button', { type: 'submit' }, texts.account.appConfirm),
      formStatus.element,
    ),
  );
  queueMicrotask(() => code.input.focus());
  return view;
}

/** The codes, shown once, with a download of them as a text file. */
function recoveryCodesView(codes: string[]): HTMLElement {
  const file = new Blob([`${texts.account.recovery}\n\n${codes.join('\n')}\n`], { type: 'text/plain' });
  const view = h(
    'div',
    { class: 'recovery-codes', role: 'status' },
    h('p', {}, texts.account.recoveryShown),
    h('ul', { class: 'codes' }, ...codes.map((c) => h('li', {}, h('code', {}, c)))),
    h('a', { href: URL.createObjectURL(file), download: 'recovery-codes.txt', class: 'button' }, texts.account.recoveryDownload),
  );
  return view;
}

void start();
