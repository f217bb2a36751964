// The account console: who you are, where you are signed in (end one session or every other),
// change your password, download your data, sign out. A visit without a session goes to sign in and
// comes back here.
import './style.css';
import { AccountClient, type Session } from './client';
import { field, formatDate, h, showView, statusLine, validatedForm } from './dom';
import { errorText, texts } from './texts';

const client = new AccountClient({ kind: 'user' });
const status = statusLine();

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
  const sessionsList = h('ul', { class: 'sessions' });
  showView(
    texts.account.title,
    status.element,
    section(
      texts.account.profile,
      h(
        'dl',
        {},
        h('dt', {}, texts.account.name),
        h('dd', {}, account.name),
        h('dt', {}, texts.account.email),
        h('dd', {}, account.email, account.emailVerified === false ? ` (${texts.account.notVerified})` : ''),
        h('dt', {}, texts.account.memberSince),
        h('dd', {}, formatDate(account.createdAt)),
      ),
    ),
    section(
      texts.account.sessions,
      sessionsList,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: async () => {
            const answer = await client.signOutOthers();
            if (!answer.ok) return status.error(errorText(answer.error));
            status.info(texts.account.othersEnded(Number((answer.data as { signedOut?: number }).signedOut ?? 0)));
            await renderSessions(sessionsList);
          },
        },
        texts.account.signOutOthers,
      ),
    ),
    section(texts.account.password, passwordForm(sessionsList)),
    section(
      texts.account.data,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: async () => {
            const answer = await client.exportData();
            if (!answer.ok) return status.error(errorText(answer.error));
            const url = URL.createObjectURL(answer.data);
            h('a', { href: url, download: 'account-data.json' }).click();
            setTimeout(() => URL.revokeObjectURL(url), 10_000);
          },
        },
        texts.account.exportData,
      ),
    ),
    h(
      'p',
      {},
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            await client.logout();
            location.assign('/login');
          },
        },
        texts.account.signOut,
      ),
    ),
  );
  await renderSessions(sessionsList);
}

function section(title: string, ...content: Node[]): HTMLElement {
  const id = `s-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content);
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
}

function sessionItem(session: Session, list: HTMLElement): HTMLElement {
  const started = formatDate(session.createdAt);
  return h(
    'li',
    { 'data-session': session.id },
    h('span', { class: 'session-name' }, session.current ? texts.account.thisDevice : `${texts.account.started} ${started}`),
    h('span', { class: 'session-meta' }, `${texts.account.lastUsed}: ${formatDate(session.lastUsedAt)}`),
    !session.current &&
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'aria-label': texts.account.endSessionOf(started),
          onclick: async () => {
            const answer = await client.endSession(session.id);
            if (!answer.ok && answer.error.code !== 'session_not_found') return status.error(errorText(answer.error));
            status.info(texts.account.sessionEnded);
            await renderSessions(list);
          },
        },
        texts.account.endSession,
      ),
  );
}

function passwordForm(sessionsList: HTMLElement): HTMLFormElement {
  const formStatus = statusLine();
  const current = field(texts.account.currentPassword, { name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true });
  const next = field(texts.account.newPassword, { name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 128 }, texts.register.passwordHint);
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

void start();
