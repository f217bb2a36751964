// `npm run mail:test -- <address> [<mail>]`: sends one mail (by default `security-notice`), filled
// with example values, to the address through the notifier's own mailer: SMTP_URL when set, else a
// file in MAIL_DIR. It shows a deployment that its mail server, its sender (MAIL_FROM) and its own
// templates work before anyone needs a reset link.
import { createLogger, isDeliverableEmail } from '@acct/shared';
import { loadNotifierConfig } from '../config';
import { mailTemplates } from '../mail-templates';
import { mailSamples } from '../domain/mail-samples';
import { composeMail } from '../domain/notifications';
import { TEMPLATE_NAMES, type TemplateName } from '../domain/templates';
import { chooseMailer } from '../server';

export async function sendTestMail(to: string, name: string, env: NodeJS.ProcessEnv = process.env, language = 'en'): Promise<string> {
  if (!isDeliverableEmail(to)) throw new Error(`Not an address to send to: ${JSON.stringify(to)}. Usage: npm run mail:test -- you@example.com [${TEMPLATE_NAMES.join('|')}] [language]`);
  if (!(TEMPLATE_NAMES as readonly string[]).includes(name)) throw new Error(`No mail is called ${JSON.stringify(name)}; the mails are: ${TEMPLATE_NAMES.join(', ')}`);
  const config = loadNotifierConfig(env);
  const deps = { templates: mailTemplates(config), productName: config.PRODUCT_NAME, supportContact: config.SUPPORT_CONTACT };
  if (!deps.templates.languages.codes.includes(language)) throw new Error(`No language file for ${JSON.stringify(language)}; the languages are: ${deps.templates.languages.codes.join(', ')}`);
  const mail = composeMail(deps, name as TemplateName, mailSamples(config.PRODUCT_NAME)[name as TemplateName], language);
  const mailer = chooseMailer(config, createLogger({ level: 'silent' }));
  try {
    await mailer.send({ to, id: `test-${Date.now()}`, ...mail });
  } finally {
    await mailer.close();
  }
  return config.SMTP_URL ? `Sent "${mail.subject}" to ${to} through SMTP (${new URL(config.SMTP_URL).host}).` : `Wrote "${mail.subject}" for ${to} into ${config.MAIL_DIR} (no SMTP_URL is set).`;
}

if (require.main === module) {
  const [to = '', name = 'security-notice', language = 'en'] = process.argv.slice(2);
  sendTestMail(to, name, process.env, language).then(
    (said) => console.log(said),
    (err: Error) => {
      console.error(`The test mail was not sent: ${err.message}`);
      process.exit(1);
    },
  );
}
