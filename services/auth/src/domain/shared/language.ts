// Which language a mail to an account speaks: the one its owner chose (on the account page's
// switch), else the one of the request that caused it (the gateway's choice from the page's switch
// or Accept-Language), else none and the notifier writes English.
import { AuthErrors } from '../../errors';
import { isLanguageTag } from '@acct/shared';

export function spokenIn(account: { language?: string } | null | undefined, request: { language?: string }): { language?: string } {
  const language = account?.language ?? request.language;
  return language ? { language } : {};
}

/** A language an owner chooses for their account: a tag such as `de` or `pt-BR`. */
export function requireLanguage(value: unknown): string {
  if (!isLanguageTag(value)) throw AuthErrors.languageInvalid();
  return value;
}
