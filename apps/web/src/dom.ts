// The few DOM helpers the pages need: elements from data (never HTML strings, so nothing a user
// typed or the API answered is ever parsed as markup), labelled fields, an announced status line,
// and a view switch that moves focus to the new heading for keyboard and screen-reader users.
import { languages, pageLanguage, texts } from './texts';

type Child = Node | string | false | null | undefined;
type Attributes = Record<string, string | boolean | number | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== false && child !== null && child !== undefined) element.append(child);
  return element;
}

let ids = 0;

export interface Field {
  wrapper: HTMLElement;
  input: HTMLInputElement;
  /** Shows (or clears, with '') the field's own error, tied to it for assistive technology. */
  setError(message: string): void;
}

export function field(label: string, attributes: Attributes & { name: string }, hint?: string): Field {
  const id = `f${++ids}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = `${id}-error`;
  const input = h('input', { id, ...attributes, 'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') });
  const error = h('p', { id: errorId, class: 'field-error' });
  // A password can be shown to check what was typed (every password field, as people expect).
  const control = attributes.type === 'password' ? h('div', { class: 'with-reveal' }, input, revealButton(input)) : input;
  const wrapper = h('div', { class: 'field' }, h('label', { for: id }, label), hintId && h('p', { id: hintId, class: 'hint' }, hint), control, error);
  return {
    wrapper,
    input,
    setError: (message: string) => setFieldError(input, message),
  };
}

/** Shows or hides the password it controls; a submitted form sends it hidden again, so a password manager still sees a password field. */
function revealButton(input: HTMLInputElement): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'reveal secondary', 'aria-controls': input.id, 'aria-label': texts.reveal.showPassword }, texts.reveal.show);
  const show = (visible: boolean) => {
    input.type = visible ? 'text' : 'password';
    button.textContent = visible ? texts.reveal.hide : texts.reveal.show;
    button.setAttribute('aria-label', visible ? texts.reveal.hidePassword : texts.reveal.showPassword);
  };
  let watching = false;
  button.addEventListener('click', () => {
    show(input.type === 'password');
    if (!watching && input.form) {
      watching = true;
      input.form.addEventListener('submit', () => show(false));
    }
  });
  return button;
}

/** A status line read out when it changes: `alert` for errors, `status` for the rest. */
export function statusLine(): { element: HTMLElement; error(message: string): void; info(message: string): void; clear(): void } {
  const element = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const show = (kind: 'error' | 'info', message: string) => {
    element.className = `status ${kind}`;
    element.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    element.textContent = message;
  };
  return { element, error: (m) => show('error', m), info: (m) => show('info', m), clear: () => show('info', '') };
}

/** Replaces the page's main content with a view, and moves focus to its heading. */
export function showView(title: string, ...content: Child[]): HTMLElement {
  const main = document.querySelector('main')!;
  const heading = h('h1', { tabindex: -1 }, title);
  main.replaceChildren(heading, ...content.filter((c): c is Node | string => Boolean(c)));
  document.title = `${title} · ${document.documentElement.dataset.product ?? ''}`.replace(/ · $/, '');
  heading.focus();
  return main;
}

/** What a person is told about a field that needs another look. */
export interface Problem {
  input: HTMLInputElement;
  message: string;
}

/** The words of the field's own checks (required, an email, a length, a pattern), as `problems` says them. */
export interface ProblemWords {
  title: string;
  titlePrefix: string;
  required(label: string): string;
  email: string;
  tooShort(label: string, n: number): string;
  tooLong(label: string, n: number): string;
  pattern(label: string): string;
}

let problemWords: ProblemWords | undefined;
/** Set once by each page's texts (dom.ts holds no words of its own). */
export const useProblemWords = (words: ProblemWords) => void (problemWords = words);

const labelOf = (input: HTMLInputElement) => document.querySelector(`label[for="${input.id}"]`)?.textContent ?? input.name;

/** The field's own checks, in words: the first that fails, or undefined. */
function problemOf(input: HTMLInputElement): string | undefined {
  const v = input.validity;
  const words = problemWords!;
  if (v.valid) return undefined;
  if (v.valueMissing) return words.required(labelOf(input));
  if (v.typeMismatch && input.type === 'email') return words.email;
  if (v.tooShort) return words.tooShort(labelOf(input), input.minLength);
  if (v.tooLong) return words.tooLong(labelOf(input), input.maxLength);
  return words.pattern(labelOf(input));
}

/**
 * Errors where the eye is (the GOV.UK pattern): each message in its field's own slot with
 * `aria-invalid`, a summary heading the form that links to each field (focused, and read out), and
 * "Error: " before the page's title. An empty list clears all three.
 */
export function showProblems(form: HTMLFormElement, problems: Problem[]): void {
  const words = problemWords!;
  for (const input of form.querySelectorAll<HTMLInputElement>('input[aria-invalid]')) setFieldError(input, '');
  form.querySelector('.error-summary')?.remove();
  document.title = document.title.replace(words.titlePrefix, '');
  if (!problems.length) return;
  for (const { input, message } of problems) setFieldError(input, message);
  // An id of its own: a console has several forms, and two summaries may show at once.
  const titleId = `f${++ids}-summary`;
  const summary = h(
    'div',
    { class: 'error-summary', role: 'alert', tabindex: -1, 'aria-labelledby': titleId },
    h('h2', { id: titleId }, words.title),
    h('ul', {}, ...problems.map(({ input, message }) => h('li', {}, h('a', { href: `#${input.id}`, onclick: (e: Event) => (e.preventDefault(), input.focus()) }, message)))),
  );
  form.prepend(summary);
  document.title = `${words.titlePrefix}${document.title}`;
  summary.focus();
}

function setFieldError(input: HTMLInputElement, message: string): void {
  const slot = input.parentElement?.querySelector('.field-error');
  if (slot) slot.textContent = message;
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/**
 * A form whose submit (a button or Enter) runs `onValid` once its fields pass their own checks; a
 * field that does not is shown where the eye is (`showProblems`). The controls are disabled while it
 * runs, and the element it answers (a field to correct) gets the focus once they are enabled again.
 */
export function validatedForm(onValid: () => Promise<HTMLElement | void>, ...children: Child[]): HTMLFormElement {
  const form: HTMLFormElement = h(
    'form',
    {
      novalidate: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        const inputs = [...form.querySelectorAll<HTMLInputElement>('input')].filter((i) => !i.disabled && i.type !== 'hidden' && !i.closest('[hidden]'));
        const problems = inputs.flatMap((input) => {
          const message = problemOf(input);
          return message ? [{ input, message }] : [];
        });
        showProblems(form, problems);
        if (!problems.length) void busy(form, onValid).then((focus) => focus?.focus());
      },
    },
    ...children,
  );
  return form;
}

/** Disables a form's controls while a request runs, so a double submit sends one request. */
export async function busy<T>(form: HTMLFormElement, work: () => Promise<T>): Promise<T> {
  const controls = [...form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input')];
  form.setAttribute('aria-busy', 'true');
  for (const c of controls) c.disabled = true;
  try {
    return await work();
  } finally {
    for (const c of controls) c.disabled = false;
    form.removeAttribute('aria-busy');
  }
}

/** A button that acts (never submits): secondary and link styles, and a fuller name for assistive technology where the text alone is ambiguous. */
export function actionButton(
  text: string,
  run: (event: Event) => unknown,
  options: { secondary?: boolean; danger?: boolean; link?: boolean; ariaLabel?: string; id?: string } = {},
): HTMLButtonElement {
  const style = options.secondary ? 'secondary' : options.danger ? 'danger' : options.link ? 'link' : undefined;
  return h('button', { type: 'button', class: style, 'aria-label': options.ariaLabel, id: options.id, onclick: run }, text);
}

/**
 * An act that cannot be undone, asked twice: the button opens a question that says what will happen,
 * with the act's own button and a way back; nothing happens until the second press. `extra` goes in
 * the question (a password box, say). Focus moves to the question and back to the button on cancel.
 */
export function confirmFirst(
  text: string,
  question: { says: string; confirm: string; cancel: string },
  run: (event: Event) => unknown,
  options: { danger?: boolean; ariaLabel?: string; extra?: Node[] } = {},
): HTMLElement {
  const open = actionButton(text, () => show(true), options.danger ? { danger: true, ariaLabel: options.ariaLabel } : { secondary: true, ariaLabel: options.ariaLabel });
  const says = h('p', { role: 'alert', tabindex: '-1' }, question.says);
  const panel = h(
    'div',
    { class: 'confirm', hidden: true },
    says,
    ...(options.extra ?? []),
    h('p', { class: 'actions' }, actionButton(question.confirm, run, { danger: true }), ' ', actionButton(question.cancel, () => show(false), { secondary: true })),
  );
  function show(asking: boolean): void {
    open.hidden = asking;
    panel.hidden = !asking;
    (asking ? says : open).focus();
  }
  return h('div', {}, open, panel);
}

export function link(href: string, text: string): HTMLAnchorElement {
  return h('a', { href }, text);
}

/** A date and time as the page's language writes them ("3 Dec 2026, 14:05", "03.12.2026, 14:05"). */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(pageLanguage, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The cookie the switch sets, which the gateway reads before Accept-Language (libs/shared languages LANGUAGE_COOKIE). */
const LANGUAGE_COOKIE = 'acct_lang';

/** Keeps `code` as this browser's language for the pages (a year), for the gateway to serve them in; false when the browser keeps no cookie. */
export function keepLanguage(code: string): boolean {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const value = `${LANGUAGE_COOKIE}=${encodeURIComponent(code)}`;
  document.cookie = `${value}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
  return document.cookie.split('; ').includes(value);
}

/** Where a choice made on the switch waits for the account console, which keeps it for the account (as Keycloak keeps a locale chosen at its login). */
const CHOSEN_KEY = 'acct:language-chosen';

/** The language this browser chose on a switch since the account last kept one, if any; asked once. */
export function takeChosenLanguage(): string | undefined {
  try {
    const chosen = localStorage.getItem(CHOSEN_KEY) ?? undefined;
    localStorage.removeItem(CHOSEN_KEY);
    return chosen;
  } catch {
    return undefined;
  }
}

/**
 * The language switch in the page's header (where more than one language is offered): each
 * language by its own name, in its own language (GOV.UK's pattern). Choosing one keeps it for this
 * browser, lets the page keep it elsewhere too (`remember`: the account's), and loads the page again
 * in it.
 */
export function languageSwitch(remember?: (code: string) => Promise<unknown>): void {
  const header = document.querySelector('header');
  if (!header || languages.length < 2) return;
  const choose = async (code: string) => {
    keepLanguage(code);
    if (remember) await remember(code).catch(() => undefined);
    else {
      try {
        localStorage.setItem(CHOSEN_KEY, code);
      } catch {
        // Storage refused (a private window's quota): the choice still holds for this browser.
      }
    }
    location.reload();
  };
  const items = languages.map(({ code, name }) =>
    h(
      'li',
      {},
      code === pageLanguage
        ? h('span', { 'aria-current': 'true', lang: code }, name)
        : h('button', { type: 'button', class: 'link', lang: code, onclick: () => void choose(code) }, name),
    ),
  );
  header.append(h('nav', { class: 'languages', 'aria-label': texts.language.label }, h('ul', {}, ...items)));
}
