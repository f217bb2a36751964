// The admin console (/admin): find users (by email or name, verified, disabled) and page through
// them, a user's page (profile, second steps with their passkeys' names, sessions, providers,
// activity; disable, reset second steps, end sessions, set a password, delete), the deployment's
// activity log, the desktop releases (publish, withdraw), the apps that sign people in here
// (register, a new secret shown once, delete) and the administrators (add one). The view is chosen
// by the fragment (#/users, #/users/<id>, #/activity, #/releases, #/apps, #/admins), so the
// browser's back button works.
import './style.css';
import { AdminClient, type Account, type ActivityEntry, type ActivityFilter, type DesktopRelease, type OpenIdApp, type OpenIdAppRequest, type Page, type Platform, type Result } from '@acct/client';
import { activityItem, placeAndDevice, section, withStepUp } from './console';
import { actionButton, confirmFirst, field, formatDate, h, languageSwitch, showView, statusLine, useProblemWords, validatedForm } from './dom';
import { errorText, texts } from './texts';

// A session ended elsewhere takes the console off screen at the next call.
const client = new AdminClient({ onSignedOut: () => toSignIn() });
useProblemWords(texts.problems);
const status = statusLine();
const t = texts.admin;
/** A message for the next view (said after a move, such as back to the list after a deletion). */
let flash: string | undefined;

function toSignIn(): void {
  location.assign(`/admin/login?return_to=${encodeURIComponent('/admin')}`);
}

/** Shows a failed answer; a session that ended sends the admin to sign in. */
function failed(answer: Result<unknown>): boolean {
  if (answer.ok) return false;
  if (answer.error.status === 401) toSignIn();
  else status.error(errorText(answer.error));
  return true;
}

function nav(): HTMLElement {
  return h(
    'nav',
    { 'aria-label': t.nav },
    h('a', { href: '#/users' }, t.users),
    ' ',
    h('a', { href: '#/activity' }, t.activity),
    ' ',
    h('a', { href: '#/releases' }, t.releases),
    ' ',
    h('a', { href: '#/apps' }, t.apps),
    ' ',
    h('a', { href: '#/admins' }, t.admins),
    ' ',
    actionButton(
      t.signOut,
      async () => {
        await client.logout();
        toSignIn();
      },
      { link: true, id: 'sign-out' },
    ),
  );
}

function route(): void {
  status.clear();
  if (flash) status.info(flash);
  flash = undefined;
  const [, view, id] = location.hash.split('/');
  if (view === 'users' && id) void userView(id);
  else if (view === 'activity') activityView();
  else if (view === 'releases') void releasesView();
  else if (view === 'apps') void appsView();
  else if (view === 'admins') adminsView();
  else usersView();
}

// ---- Users ----

/** A select of the users' list: any, or one of two values of a flag. */
function flagSelect(name: string, label: string, yes: string, no: string): { wrapper: HTMLElement; value: () => boolean | undefined } {
  const select = h('select', { id: name, name }, h('option', { value: '' }, t.any), h('option', { value: 'true' }, yes), h('option', { value: 'false' }, no));
  return { wrapper: h('div', { class: 'field' }, h('label', { for: name }, label), select), value: () => (select.value === '' ? undefined : select.value === 'true') };
}

function usersView(): void {
  const list = h('div', { class: 'user-list' });
  const search = field(t.search, { name: 'query', type: 'search', autocomplete: 'off' });
  const verified = flagSelect('verified', t.filterVerified, t.onlyVerified, t.onlyUnverified);
  const disabled = flagSelect('disabled', t.filterDisabled, t.onlyDisabled, t.onlyActive);
  const cursors: Array<string | undefined> = [undefined];
  // Only the latest request's answer is shown: a slower earlier one never replaces it.
  let latest = 0;
  const load = async (page: number) => {
    const asked = ++latest;
    const query = search.input.value.trim();
    const filter = { query: query || undefined, emailVerified: verified.value(), disabled: disabled.value() };
    const answer = await client.users({ ...filter, cursor: cursors[page], limit: 20 });
    if (asked !== latest || failed(answer) || !answer.ok) return;
    cursors[page + 1] = answer.data.nextCursor ?? undefined;
    list.replaceChildren(usersTable(answer.data), pager(page, answer.data.nextCursor !== null, load));
    // What the list shows now: the search it answers (for whoever waits on it, a test among them).
    list.dataset.query = [query, filter.emailVerified ?? '', filter.disabled ?? ''].join('|');
  };
  const form = validatedForm(
    async () => {
      cursors.length = 1;
      await load(0);
    },
    search.wrapper,
    verified.wrapper,
    disabled.wrapper,
    h('button', { type: 'submit' }, t.searchSubmit),
  );
  form.setAttribute('role', 'search');
  showView(t.users, nav(), status.element, form, list);
  void load(0);
}

function usersTable(page: Page<Account>): HTMLElement {
  if (page.items.length === 0) return h('p', {}, t.none);
  return h(
    'table',
    { class: 'users' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t.name), h('th', { scope: 'col' }, t.email), h('th', { scope: 'col' }, t.status))),
    h(
      'tbody',
      {},
      ...page.items.map((user) =>
        h(
          'tr',
          { 'data-user': user.id },
          h('td', {}, h('a', { href: `#/users/${user.id}` }, user.name)),
          h('td', {}, user.email),
          h('td', {}, [user.disabled ? t.disabled : t.active, user.emailVerified === false ? t.unverified : ''].filter(Boolean).join(', ')),
        ),
      ),
    ),
  );
}

function pager(page: number, hasNext: boolean, load: (page: number) => Promise<void>): HTMLElement {
  return h(
    'p',
    { class: 'pager' },
    page > 0 && actionButton(t.previous, () => void load(page - 1), { secondary: true }),
    ' ',
    hasNext && actionButton(t.next, () => void load(page + 1), { secondary: true }),
  );
}

// ---- One user ----

async function userView(id: string): Promise<void> {
  showView(t.users, nav(), h('p', { role: 'status' }, t.loading));
  const answer = await client.user(id);
  if (failed(answer) || !answer.ok) return;
  const user = answer.data;
  showView(
    user.name,
    nav(),
    h('p', {}, h('a', { href: '#/users' }, t.back)),
    status.element,
    section(
      t.profile,
      h(
        'dl',
        {},
        h('dt', {}, t.email),
        h('dd', {}, user.email, user.emailVerified === false ? ` (${t.unverified})` : ''),
        h('dt', {}, t.status),
        h('dd', {}, user.disabled ? t.disabled : t.active),
        h('dt', {}, t.created),
        h('dd', {}, formatDate(user.createdAt)),
      ),
      actionButton(
        user.disabled ? t.enable : t.disable,
        async () => {
          const changed = await client.updateUser(id, { disabled: !user.disabled });
          if (failed(changed)) return;
          await userView(id);
          status.info(user.disabled ? t.enabledNow : t.disabledNow);
        },
        { secondary: true },
      ),
      passwordForm(id),
    ),
    await factorsPart(id),
    await sessionsPart(id),
    await identitiesPart(id),
    activityPart({ userId: id }, t.userActivity),
    deletePart(id),
  );
}

function passwordForm(id: string): HTMLElement {
  const password = field(t.newPassword, { name: 'userPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 });
  const form = validatedForm(
    async () => {
      const answer = await client.updateUser(id, { password: password.input.value });
      if (failed(answer)) return password.input;
      form.reset();
      status.info(t.passwordSet);
    },
    password.wrapper,
    h('button', { type: 'submit' }, t.setPassword),
  );
  return h('div', { class: 'factor' }, h('h3', {}, t.setPassword), form);
}

async function factorsPart(id: string): Promise<HTMLElement> {
  const answer = await client.userFactors(id);
  const summary = answer.ok ? t.factorsSummary(answer.data.totp, answer.data.passkeys, answer.data.recoveryCodesLeft) : errorText(answer.error);
  const hasAny = answer.ok && (answer.data.totp || answer.data.passkeys > 0);
  // Every factor from the one list the service builds from its methods' registry: a new method shows here with no change.
  const items = answer.ok ? answer.data.items : [];
  return section(
    t.factors,
    h('p', {}, summary),
    items.length > 0 &&
      h(
        'ul',
        { class: 'factors' },
        ...items.map((f) => h('li', { 'data-method': f.method }, h('span', { class: 'session-name' }, f.label), h('span', { class: 'session-meta' }, t.factorMeta(f, formatDate)))),
      ),
    hasAny &&
      actionButton(
        t.resetFactors,
        async () => {
          const reset = await withStepUp(client, () => client.resetFactors(id));
          if (failed(reset)) return;
          await userView(id);
          status.info(t.factorsReset);
        },
        { secondary: true },
      ),
  );
}

async function sessionsPart(id: string): Promise<HTMLElement> {
  const answer = await client.userSessions(id);
  const sessions = answer.ok ? answer.data : [];
  const end = async (change: () => Promise<Result<unknown>>) => {
    const ended = await withStepUp(client, change);
    if (failed(ended)) return;
    await userView(id);
    status.info(t.sessionsEnded);
  };
  return section(
    t.sessions,
    sessions.length
      ? h(
          'ul',
          { class: 'sessions' },
          ...sessions.map((s) =>
            h(
              'li',
              { 'data-session': s.id },
              h('span', { class: 'session-name' }, s.app ? texts.account.appSession(s.app.name, formatDate(s.createdAt)) : formatDate(s.createdAt)),
              h('span', { class: 'session-meta' }, [`${texts.account.lastUsed}: ${formatDate(s.lastUsedAt)}`, placeAndDevice(s)].filter(Boolean).join(' · ')),
              actionButton(t.endSession, () => end(() => client.endUserSession(id, s.id)), { secondary: true, ariaLabel: t.endSessionOf(formatDate(s.createdAt)) }),
            ),
          ),
        )
      : h('p', {}, t.noSessions),
    sessions.length > 0 && actionButton(t.endAll, () => end(() => client.endUserSessions(id)), { secondary: true }),
  );
}

async function identitiesPart(id: string): Promise<HTMLElement> {
  const answer = await client.userIdentities(id);
  const identities = answer.ok ? answer.data : [];
  return section(
    t.identities,
    identities.length
      ? h(
          'ul',
          { class: 'passkeys' },
          ...identities.map((i) =>
            h(
              'li',
              {},
              h('span', { class: 'session-name' }, i.name),
              h('span', { class: 'session-meta' }, [i.email, formatDate(i.linkedAt)].filter(Boolean).join(' · ')),
              actionButton(
                texts.account.unlink,
                async () => {
                  const unlinked = await withStepUp(client, () => client.unlinkUserIdentity(id, i.provider));
                  if (failed(unlinked)) return;
                  await userView(id);
                  status.info(t.unlinked);
                },
                { secondary: true, ariaLabel: t.unlinkOf(i.name) },
              ),
            ),
          ),
        )
      : h('p', {}, t.noIdentities),
  );
}

function deletePart(id: string): HTMLElement {
  const confirm = h(
    'div',
    { hidden: true },
    h('p', { role: 'alert' }, t.deleteConfirm),
    actionButton(
      t.deleteForGood,
      async () => {
        const deleted = await withStepUp(client, () => client.deleteUser(id));
        if (failed(deleted)) return;
        flash = t.deleted;
        location.hash = '#/users';
      },
      { danger: true },
    ),
  );
  return section(
    t.deleteUser,
    actionButton(
      t.deleteUser,
      (event) => {
        (event.target as HTMLElement).hidden = true;
        confirm.hidden = false;
        confirm.querySelector('button')?.focus();
      },
      { secondary: true },
    ),
    confirm,
  );
}

// ---- Activity ----

/** A paged list of entries: a user's, or the deployment's as filtered. */
function activityPart(filter: ActivityFilter & { userId?: string }, title: string): HTMLElement {
  const list = h('ol', { class: 'activity' });
  let cursor: string | undefined;
  const more = actionButton(texts.account.activityMore, () => void load(cursor), { secondary: true });
  more.hidden = true;
  const load = async (from?: string) => {
    const answer = await client.activityLog(filter, from);
    if (failed(answer) || !answer.ok) return;
    if (!from) list.replaceChildren(...(answer.data.items.length ? [] : [h('li', {}, texts.account.activityNone)]));
    list.append(...answer.data.items.map(adminActivityItem));
    cursor = answer.data.nextCursor ?? undefined;
    more.hidden = !cursor;
  };
  void load();
  return section(title, list, more);
}

/** An entry as admins read it: whose account, and which admin acted. */
function adminActivityItem(entry: ActivityEntry & { kind?: string; accountId?: string }): HTMLElement {
  const item = activityItem(entry);
  const about = [entry.accountId && t.account(entry.kind ?? '', entry.accountId), entry.actor?.id && t.byAdmin(entry.actor.id)].filter(Boolean).join(' · ');
  if (about) item.append(h('span', { class: 'session-meta' }, about));
  return item;
}

function activityView(): void {
  const type = field(t.filterType, { name: 'type', autocomplete: 'off', pattern: '[a-z][a-z_]{1,40}' });
  const kind = h(
    'select',
    { id: 'kind', name: 'kind' },
    h('option', { value: '' }, t.kindAll),
    h('option', { value: 'user' }, t.kindUsers),
    h('option', { value: 'admin' }, t.kindAdmins),
  );
  const results = h('div', {});
  const show = () => results.replaceChildren(activityPart({ type: type.input.value.trim() || undefined, kind: (kind.value || undefined) as ActivityFilter['kind'] }, t.activity));
  const form = validatedForm(
    async () => show(),
    type.wrapper,
    h('div', { class: 'field' }, h('label', { for: 'kind' }, t.filterKind), kind),
    h('button', { type: 'submit' }, t.filter),
  );
  showView(t.activity, nav(), status.element, form, results);
  show();
}

// ---- Desktop releases ----

async function releasesView(): Promise<void> {
  const list = h('div', {});
  const load = async () => {
    const answer = await client.releases();
    if (failed(answer) || !answer.ok) return;
    list.replaceChildren(answer.data.length ? releasesTable(answer.data, load) : h('p', {}, t.noReleases));
  };
  showView(t.releases, nav(), status.element, section(t.releases, list), section(t.publish, publishForm(load)));
  await load();
}

function releasesTable(releases: DesktopRelease[], reload: () => Promise<void>): HTMLElement {
  return h(
    'table',
    { class: 'users' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t.platform), h('th', { scope: 'col' }, t.version), h('th', { scope: 'col' }, t.status), h('th', { scope: 'col' }, t.published), h('th', { scope: 'col' }, t.action))),
    h(
      'tbody',
      {},
      ...releases.map((r) =>
        h(
          'tr',
          { 'data-release': `${r.platform}-${r.version}` },
          h('td', {}, r.platform),
          h('td', {}, h('a', { href: r.url, rel: 'noreferrer' }, r.version)),
          h('td', {}, t.releaseStatus(r.withdrawnAt !== null, r.mandatory)),
          h('td', {}, formatDate(r.publishedAt)),
          h(
            'td',
            {},
            r.withdrawnAt === null &&
              actionButton(
                t.withdraw,
                async () => {
                  const withdrawn = await withStepUp(client, () => client.withdrawRelease(r.platform, r.version));
                  if (failed(withdrawn)) return;
                  await reload();
                  status.info(t.withdrawnNow(r.platform, r.version));
                },
                { secondary: true, ariaLabel: t.withdrawOf(r.platform, r.version) },
              ),
          ),
        ),
      ),
    ),
  );
}

function publishForm(reload: () => Promise<void>): HTMLFormElement {
  const platform = h('select', { id: 'platform', name: 'platform', required: true }, ...(['win32', 'darwin', 'linux'] as Platform[]).map((p) => h('option', { value: p }, p)));
  const version = field(t.releaseVersion, { name: 'version', required: true, pattern: '\\d+\\.\\d+\\.\\d+\\S*', autocomplete: 'off' });
  const url = field(t.releaseUrl, { name: 'url', type: 'url', required: true, autocomplete: 'off' });
  const sha256 = field(t.releaseSha256, { name: 'sha256', required: true, pattern: '[0-9a-fA-F]{64}', autocomplete: 'off' }, t.releaseSha256Hint);
  const notes = field(t.releaseNotes, { name: 'notes', maxlength: 2000, autocomplete: 'off' });
  const mandatory = h('input', { id: 'mandatory', name: 'mandatory', type: 'checkbox' });
  const form = validatedForm(
    async () => {
      const release = { platform: platform.value as Platform, version: version.input.value.trim(), url: url.input.value.trim(), sha256: sha256.input.value.trim(), notes: notes.input.value, mandatory: mandatory.checked };
      const published = await withStepUp(client, () => client.publishRelease(release));
      if (!published.ok) {
        // A release desktop refused says which field and why.
        if (published.error.code === 'validation_failed') status.error(`${errorText(published.error)} ${published.error.message}`);
        else failed(published);
        return version.input;
      }
      form.reset();
      await reload();
      status.info(t.publishedNow(published.data.platform, published.data.version));
    },
    h('div', { class: 'field' }, h('label', { for: 'platform' }, t.platform), platform),
    version.wrapper,
    url.wrapper,
    sha256.wrapper,
    notes.wrapper,
    h('div', { class: 'field checkbox' }, mandatory, h('label', { for: 'mandatory' }, t.releaseMandatory)),
    h('button', { type: 'submit' }, t.publishSubmit),
  );
  return form;
}

// ---- Apps (this service as an OpenID provider) ----

async function appsView(): Promise<void> {
  const list = h('div', {});
  // A secret made just now: shown here once, above the list, until the view changes.
  const shown = h('div', { id: 'app-secret' });
  const load = async (): Promise<boolean> => {
    const answer = await client.apps();
    if (!answer.ok && answer.error.code === 'openid_provider_disabled') {
      list.replaceChildren(h('p', {}, t.appsOff));
      return false;
    }
    if (failed(answer) || !answer.ok) return false;
    list.replaceChildren(answer.data.length ? appsTable(answer.data, load, shown) : h('p', {}, t.noApps));
    return true;
  };
  showView(t.apps, nav(), status.element, shown, section(t.apps, h('p', {}, t.appsIntro), list));
  if (await load()) document.querySelector('main')?.append(section(t.appRegister, registerAppForm(load, shown)));
}

/** A secret in the one answer that made it: in a box to copy, said to be the last time. */
function showSecret(into: HTMLElement, app: OpenIdApp, secret: string): void {
  into.replaceChildren(h('div', { class: 'confirm', role: 'alert' }, h('p', {}, t.appSecretShown(app.name)), h('p', {}, h('code', { class: 'secret', 'data-app': app.id }, secret))));
}

function appsTable(apps: OpenIdApp[], reload: () => Promise<boolean>, shown: HTMLElement): HTMLElement {
  return h(
    'table',
    { class: 'users' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t.appName), h('th', { scope: 'col' }, t.appId), h('th', { scope: 'col' }, t.appType), h('th', { scope: 'col' }, t.appRedirects), h('th', { scope: 'col' }, t.action))),
    h(
      'tbody',
      {},
      ...apps.map((app) =>
        h(
          'tr',
          { 'data-app': app.id },
          h('td', {}, app.name),
          h('td', {}, h('code', {}, app.id)),
          h('td', {}, t.appTypeOf(app)),
          h('td', {}, app.redirectUris.join(' ')),
          h(
            'td',
            {},
            app.source === 'console' && changeAppForm(app, reload),
            app.source === 'console' &&
              app.confidential &&
              confirmFirst(
                t.appSecretRotate,
                { says: t.appSecretQuestion(app.name), confirm: t.appSecretRotateOf(app.name), cancel: t.cancel },
                async () => {
                  const made = await withStepUp(client, () => client.rotateAppSecret(app.id));
                  if (failed(made) || !made.ok) return;
                  await reload();
                  showSecret(shown, made.data.app, made.data.secret);
                },
                { ariaLabel: t.appSecretRotateOf(app.name) },
              ),
            app.source === 'console' &&
              confirmFirst(
                t.appDelete,
                { says: t.appDeleteQuestion(app.name), confirm: t.appDeleteOf(app.name), cancel: t.cancel },
                async () => {
                  const deleted = await withStepUp(client, () => client.deleteApp(app.id));
                  if (failed(deleted)) return;
                  shown.replaceChildren();
                  await reload();
                  status.info(t.appDeleted(app.name));
                },
                { danger: true, ariaLabel: t.appDeleteOf(app.name) },
              ),
          ),
        ),
      ),
    ),
  );
}

/** What may change of a console app (its name, where its browser comes back, first-party), folded under its row. */
function changeAppForm(app: OpenIdApp, reload: () => Promise<boolean>): HTMLElement {
  const name = field(t.appName, { name: 'name', required: true, maxlength: 64, autocomplete: 'off', value: app.name });
  const redirects = uriLines(t.appRedirectsField, `redirect-uris-${app.id}`);
  redirects.input.value = app.redirectUris.join('\n');
  const logoutRedirects = uriLines(t.appLogoutRedirectsField, `post-logout-uris-${app.id}`);
  logoutRedirects.input.value = app.postLogoutRedirectUris.join('\n');
  const firstParty = h('input', { id: `first-party-${app.id}`, type: 'checkbox', ...(app.firstParty ? { checked: true } : {}) });
  const form = validatedForm(
    async () => {
      const changed = await withStepUp(client, () =>
        client.updateApp(app.id, { name: name.input.value.trim(), redirectUris: redirects.values(), postLogoutRedirectUris: logoutRedirects.values(), firstParty: firstParty.checked }),
      );
      if (!changed.ok) {
        if (changed.error.code === 'validation_failed') status.error(changed.error.message);
        else failed(changed);
        return redirects.input;
      }
      await reload();
      status.info(t.appChanged(changed.data.name));
    },
    name.wrapper,
    redirects.wrapper,
    logoutRedirects.wrapper,
    h('div', { class: 'field checkbox' }, firstParty, h('label', { for: `first-party-${app.id}` }, t.appFirstParty)),
    h('button', { type: 'submit' }, t.appChangeSubmit),
  );
  return h('details', {}, h('summary', { 'aria-label': t.appChangeOf(app.name) }, t.appChange), form);
}

/** A textarea of URIs, one per line. */
function uriLines(label: string, name: string, hint?: string): { wrapper: HTMLElement; values: () => string[]; input: HTMLTextAreaElement } {
  const id = `f-${name}`;
  const input = h('textarea', { id, name, rows: 2, autocomplete: 'off', spellcheck: 'false', ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) });
  const wrapper = h('div', { class: 'field' }, h('label', { for: id }, label), ...(hint ? [h('p', { id: `${id}-hint`, class: 'hint' }, hint)] : []), input);
  return { wrapper, input, values: () => input.value.split(/\s+/).map((v) => v.trim()).filter(Boolean) };
}

function registerAppForm(reload: () => Promise<boolean>, shown: HTMLElement): HTMLFormElement {
  const name = field(t.appName, { name: 'name', required: true, maxlength: 64, autocomplete: 'off' });
  const kind = h('select', { id: 'app-kind', name: 'kind' }, h('option', { value: 'user' }, t.appKindUsers), h('option', { value: 'admin' }, t.appKindAdmins));
  const type = h(
    'select',
    { id: 'app-type', name: 'type' },
    h('option', { value: 'confidential' }, t.appConfidential),
    h('option', { value: 'public' }, t.appPublic),
    h('option', { value: 'native' }, t.appNative),
  );
  const check = (id: string, label: string, checked = false) => {
    const box = h('input', { id, name: id, type: 'checkbox', ...(checked ? { checked: true } : {}) });
    return { box, wrapper: h('div', { class: 'field checkbox' }, box, h('label', { for: id }, label)) };
  };
  const firstParty = check('app-first-party', t.appFirstParty);
  const deviceCode = check('app-device-code', t.appDeviceCode);
  const refresh = check('app-refresh', t.appRefresh, true);
  const redirects = uriLines(t.appRedirectsField, 'redirect-uris', t.appRedirectsHint);
  const logoutRedirects = uriLines(t.appLogoutRedirectsField, 'post-logout-uris');
  const backchannel = field(t.appBackchannelField, { name: 'backchannel', type: 'url', autocomplete: 'off' });
  const form = validatedForm(
    async () => {
      const request: OpenIdAppRequest = {
        name: name.input.value.trim(),
        kind: kind.value as 'user' | 'admin',
        confidential: type.value === 'confidential',
        native: type.value === 'native',
        firstParty: firstParty.box.checked,
        deviceCode: deviceCode.box.checked,
        redirectUris: redirects.values(),
        postLogoutRedirectUris: logoutRedirects.values(),
        ...(backchannel.input.value.trim() ? { backchannelLogoutUri: backchannel.input.value.trim() } : {}),
        scopes: ['openid', 'profile', 'email', ...(refresh.box.checked ? (['offline_access'] as const) : [])],
      };
      const registered = await withStepUp(client, () => client.registerApp(request));
      if (!registered.ok) {
        // The service says which field and why (a redirect URI that is not https, say).
        if (registered.error.code === 'validation_failed') status.error(registered.error.message);
        else failed(registered);
        return redirects.input;
      }
      form.reset();
      await reload();
      shown.replaceChildren();
      if (registered.data.secret) showSecret(shown, registered.data.app, registered.data.secret);
      status.info(t.appRegistered(registered.data.app.name));
    },
    name.wrapper,
    h('div', { class: 'field' }, h('label', { for: 'app-kind' }, t.appKind), kind),
    h('div', { class: 'field' }, h('label', { for: 'app-type' }, t.appClientType), type),
    firstParty.wrapper,
    redirects.wrapper,
    logoutRedirects.wrapper,
    backchannel.wrapper,
    deviceCode.wrapper,
    refresh.wrapper,
    h('button', { type: 'submit' }, t.appRegisterSubmit),
  );
  return form;
}

// ---- Administrators ----

function adminsView(): void {
  const list = h('ul', { class: 'passkeys' });
  const load = async () => {
    const all: Account[] = [];
    let cursor: string | undefined;
    do {
      const answer = await client.admins(cursor);
      if (failed(answer) || !answer.ok) return;
      all.push(...answer.data.items);
      cursor = answer.data.nextCursor ?? undefined;
    } while (cursor);
    list.replaceChildren(
      ...all.map((a) =>
        h(
          'li',
          { 'data-admin': a.id },
          h('span', { class: 'session-name' }, a.name),
          h('span', { class: 'session-meta' }, [a.email, a.disabled ? t.disabled : ''].filter(Boolean).join(' · ')),
        ),
      ),
    );
  };
  const name = field(t.inviteName, { name: 'name', required: true, minlength: 2, maxlength: 20, autocomplete: 'off' });
  const email = field(t.inviteEmail, { name: 'email', type: 'email', required: true, autocomplete: 'off' });
  const password = field(
    t.invitePassword,
    { name: 'password', type: 'password', required: true, minlength: 8, maxlength: 128, autocomplete: 'new-password' },
    texts.register.passwordHint,
  );
  const form = validatedForm(
    async () => {
      const added = await client.inviteAdmin({ name: name.input.value.trim(), email: email.input.value.trim(), password: password.input.value });
      if (failed(added) || !added.ok) return email.input;
      form.reset();
      await load();
      status.info(t.invited(added.data.email));
    },
    name.wrapper,
    email.wrapper,
    password.wrapper,
    h('button', { type: 'submit' }, t.inviteSubmit),
  );
  showView(t.admins, nav(), status.element, section(t.admins, list), section(t.invite, form));
  void load();
}

async function start(): Promise<void> {
  showView(t.title, h('p', { role: 'status' }, t.loading));
  if (!(await client.refresh())) return toSignIn();
  // An administrator's language is this browser's (kept in its cookie); only users keep one on the account.
  languageSwitch();
  window.addEventListener('hashchange', route);
  route();
}

void start();
