// A language as the pages, the accounts and the mails name it: a BCP 47 tag of the simple kind a
// language file is named by (`de`, `pt-BR`, `zh-Hant`), at most 35 characters.
const TAG = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,2}$/;

export function isLanguageTag(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 35 && TAG.test(value);
}
