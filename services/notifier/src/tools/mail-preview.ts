// `npm run mail:preview [-- <folder>]`: every mail the notifier sends, as a person gets it (example
// values, PRODUCT_NAME, and the deployment's own templates where MAIL_TEMPLATES_DIR has them), in every
// language (the shipped ones and LANGUAGES_DIR's), written as one HTML page each with its subject
// and both bodies, and an index to open in a browser.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadNotifierConfig } from '../config';
import { mailTemplates } from '../mail-templates';
import { mailSamples } from '../domain/mail-samples';
import { composeMail } from '../domain/notifications';
import { TEMPLATE_NAMES, escapeHtml as escape } from '../domain/templates';

export function writePreviews(folder: string, env: NodeJS.ProcessEnv = process.env): string {
  const config = loadNotifierConfig(env);
  const deps = { templates: mailTemplates(config), productName: config.PRODUCT_NAME, supportContact: config.SUPPORT_CONTACT };
  const samples = mailSamples(config.PRODUCT_NAME);
  fs.mkdirSync(folder, { recursive: true });
  const items: string[] = [];
  for (const language of deps.templates.languages.codes) {
  items.push(`<h2>${escape(deps.templates.languages.file(language).name)} (${language})</h2>`, '<ul>');
  for (const name of TEMPLATE_NAMES) {
    const mail = composeMail(deps, name, samples[name], language);
    const page = `<!doctype html><html lang="${language}"><head><meta charset="utf-8"><title>${escape(mail.subject)}</title></head><body>
<p><a href="index.html">All mails</a></p>
<h1>${escape(mail.subject)}</h1>
<h2>HTML body</h2>
<div style="border:1px solid #ccc;padding:1em;max-width:40em">${mail.html}</div>
<h2>Text body</h2>
<pre style="border:1px solid #ccc;padding:1em;max-width:40em;white-space:pre-wrap">${escape(mail.text)}</pre>
</body></html>\n`;
    fs.writeFileSync(path.join(folder, `${name}.${language}.html`), page);
    items.push(`<li><a href="${name}.${language}.html">${escape(mail.subject)}</a> <code>${name}</code></li>`);
  }
  items.push('</ul>');
  }
  const index = path.join(folder, 'index.html');
  fs.writeFileSync(index, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mail previews</title></head><body><h1>${TEMPLATE_NAMES.length} mails of ${escape(config.PRODUCT_NAME)}</h1>\n${items.join('\n')}\n</body></html>\n`);
  return index;
}

if (require.main === module) {
  try {
    const index = writePreviews(path.resolve(process.argv[2] ?? '.stack/mail-preview'));
    console.log(`Wrote ${TEMPLATE_NAMES.length} mail previews in each language. Open ${pathToFileURL(index).href} in a browser.`);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
