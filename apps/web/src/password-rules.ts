// A new password's rules under its field, each shown met as the password is typed: the length here,
// the list of commonly breached passwords by the service (`POST /api/auth/password-check`, asked once
// the typing pauses), as GOV.UK and Keycloak show a policy rather than a score. The form still sends
// whatever was typed: the service's answer to the change is what counts.
import type { PasswordProblem, Result } from '@acct/client';
import { h, type Field } from './dom';
import { texts } from './texts';

/** How long the typing pauses before the service is asked. */
const PAUSE_MS = 350;

type Check = (password: string) => Promise<Result<{ problems: PasswordProblem[]; screened: boolean }>>;

/** One rule: met, not met yet, or (the service's) not known until asked. */
function rule(text: string): { item: HTMLElement; set(met: boolean | undefined): void } {
  const state = h('span', { class: 'visually-hidden' });
  const item = h('li', {}, text, state);
  return {
    item,
    set(met) {
      item.className = met === true ? 'met' : met === false ? 'unmet' : '';
      state.textContent = met === true ? texts.passwordRules.met : met === false ? texts.passwordRules.unmet : '';
    },
  };
}

/** Adds the rules under `field` (read with it by assistive technology); answers the field. */
export function withPasswordRules(field: Field, check: Check): Field {
  const length = rule(texts.passwordRules.length);
  const common = rule(texts.passwordRules.notCommon);
  // The breached list's rule shows once the service says it checks one (BREACHED_PASSWORD_CHECK).
  common.item.hidden = true;
  const list = h('ul', { class: 'password-rules', id: `${field.input.id}-rules` }, length.item, common.item);
  field.input.setAttribute('aria-describedby', `${field.input.getAttribute('aria-describedby') ?? ''} ${list.id}`.trim());
  field.wrapper.insertBefore(list, field.wrapper.querySelector('.field-error'));
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The length the field itself asks for (its minlength and maxlength, the service's rule).
  const min = Math.max(field.input.minLength, 0);
  const max = field.input.maxLength < 0 ? Infinity : field.input.maxLength;
  field.input.addEventListener('input', () => {
    const password = field.input.value;
    const size = [...password].length;
    length.set(password === '' ? undefined : size >= min && size <= max);
    common.set(undefined);
    clearTimeout(timer);
    if (size < min || size > max) return;
    timer = setTimeout(async () => {
      const answer = await check(password);
      // An answer for what is no longer typed says nothing; a refused check (a limit) leaves the rule unknown.
      if (field.input.value !== password || !answer.ok) return;
      common.item.hidden = !answer.data.screened;
      common.set(!answer.data.problems.includes('too_common'));
    }, PAUSE_MS);
  });
  return field;
}
