// What the account console and the admin console share: sections, the step-up dialog, and how an
// activity entry reads.
import type { AccountClient, ActivityEntry, Result } from '@acct/client';
import { actionButton, field, formatDate, h, statusLine, validatedForm } from './dom';
import { errorText, texts } from './texts';

export function section(title: string, ...content: Array<Node | false | undefined>): HTMLElement {
  const id = `s-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

/** Where something happened: `from <address> · <browser> on <system>`, whichever is known. */
export function placeAndDevice(entry: { ip?: string | null; userAgent?: string | null }): string {
  return [entry.ip && texts.account.activityFrom(entry.ip), entry.userAgent && deviceOf(entry.userAgent)].filter(Boolean).join(' · ');
}

export function activityItem(entry: ActivityEntry): HTMLElement {
  const what = texts.account.activityTypes[entry.type] ?? entry.type.replace(/_/g, ' ');
  const where = placeAndDevice(entry);
  return h(
    'li',
    { 'data-type': entry.type },
    h('span', { class: 'session-name' }, what, entry.actor?.kind === 'admin' ? ` ${texts.account.activityByAdmin}` : ''),
    h('span', { class: 'session-meta' }, [formatDate(entry.at), where, ...(entry.details ?? [])].filter(Boolean).join(' · ')),
  );
}

/** A short name for a User-Agent: the browser and the system, where they can be told. */
function deviceOf(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : undefined;
  const system = /Windows/.test(userAgent)
    ? 'Windows'
    : /Android/.test(userAgent)
      ? 'Android'
      : /iPhone|iPad/.test(userAgent)
        ? 'iOS'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : undefined;
  if (browser && system) return texts.account.deviceOn(browser, system);
  return browser ?? system ?? userAgent.slice(0, 40);
}

/**
 * Runs a change that needs a recent proof: when the API answers `step_up_required`, a dialog asks
 * for the password, reauthenticates, and the change is made again (once).
 */
export async function withStepUp<T>(client: AccountClient, change: () => Promise<Result<T>>): Promise<Result<T>> {
  const first = await change();
  if (first.ok || first.error.code !== 'step_up_required') return first;
  const proven = await askForPassword(client);
  return proven ? change() : first;
}

function askForPassword(client: AccountClient): Promise<boolean> {
  return new Promise((resolve) => {
    const dialogStatus = statusLine();
    const password = field(texts.account.stepUpPassword, { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
    const dialog = h('dialog', { 'aria-labelledby': 'step-up-title' });
    const finish = (proven: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(proven);
    };
    dialog.addEventListener('cancel', () => finish(false));
    dialog.append(
      h('h2', { id: 'step-up-title' }, texts.account.stepUpTitle),
      h('p', {}, texts.account.stepUpIntro),
      validatedForm(
        async () => {
          const answer = await client.reauthenticate({ password: password.input.value });
          if (answer.ok) return finish(true);
          dialogStatus.error(errorText(answer.error));
          return password.input;
        },
        password.wrapper,
        h('button', { type: 'submit' }, texts.account.stepUpSubmit),
        ' ',
        actionButton(texts.account.cancel, () => finish(false), { secondary: true }),
        dialogStatus.element,
      ),
    );
    document.body.append(dialog);
    dialog.showModal();
    password.input.focus();
  });
}
