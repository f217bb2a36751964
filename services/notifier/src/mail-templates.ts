// The mail templates a notifier runs with: the built-in ones, each replaced by the deployment's own
// file of the same name in MAIL_TEMPLATES_DIR, in the languages of the shipped language files and
// LANGUAGES_DIR's. A folder that would fail a mail (a file that names no mail, a template asking for
// a value its mail does not give, a language file that cannot be read) refuses the start, naming
// each problem.
import { configError } from '@acct/shared';
import { loadLanguages } from '@acct/shared/languages';
import type { NotifierConfig } from './config';
import { Templates } from './domain/templates';
import { mailSamples } from './domain/mail-samples';

export function mailTemplates(config: Pick<NotifierConfig, 'MAIL_TEMPLATES_DIR' | 'PRODUCT_NAME' | 'LANGUAGES_DIR'>): Templates {
  const templates = new Templates(undefined, config.MAIL_TEMPLATES_DIR, loadLanguages(config.LANGUAGES_DIR));
  const problems = templates.problems(mailSamples(config.PRODUCT_NAME));
  if (problems.length) throw configError('MAIL_TEMPLATES_DIR', problems.join('; '));
  return templates;
}
