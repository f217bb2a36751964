// Mail templates kept as files (templates/<name>.txt and .html): the layout of each mail, filled
// with {{placeholders}} (the mail's values) and {{t:key}} (a text of the language file's "mail"
// part, in the mail's language, itself filled with the mail's values). Everything is HTML-escaped in
// the HTML body. A deployment replaces any of them with a file of the same name in MAIL_TEMPLATES_DIR,
// or with `<name>.<language>.txt` for one language only (the others stay the built-in ones);
// `problems` checks such a folder at start: a file that names no mail, or a template that asks for a
// value or a text its mail does not give.
import fs from 'node:fs';
import path from 'node:path';
import { escapeHtml, isLanguageTag } from '@acct/shared';
import { DEFAULT_LANGUAGE, Languages } from '@acct/shared/languages';

/** Every mail the notifier sends, each a pair of files (`<name>.txt`, `<name>.html`). */
export const TEMPLATE_NAMES = [
  'admin-otp',
  'password-reset-requested',
  'password-reset-completed',
  'security-notice',
  'email-verification',
  'factor-recovery-requested',
  'email-sign-in',
  'email-sign-up',
  'email-change-confirm',
  'email-change-notice',
  'account-deleted',
] as const;

export type TemplateName = (typeof TEMPLATE_NAMES)[number];

const TEMPLATE_DIR = path.resolve(__dirname, '..', '..', 'templates');

/** A value as HTML text (the HTML body's values, a preview's): libs/shared's rule. */
export { escapeHtml };

export class Templates {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly dir = TEMPLATE_DIR,
    /** A deployment's own templates, each replacing the built-in one of its name. */
    private readonly overrides?: string,
    /** The languages mails can speak (LANGUAGES_DIR adds to those shipped). */
    readonly languages = new Languages(),
  ) {}

  /** What is wrong with the overrides: files that name no mail, and templates that do not render with their mail's values (`samples`). */
  problems(samples: Record<TemplateName, Record<string, string>>): string[] {
    if (!this.overrides) return [];
    if (!fs.existsSync(this.overrides)) return [`MAIL_TEMPLATES_DIR ${this.overrides} does not exist`];
    const known = new Set(TEMPLATE_NAMES.flatMap((name) => [`${name}.txt`, `${name}.html`]));
    const found: string[] = [];
    for (const file of fs.readdirSync(this.overrides)) {
      const [, name, language, ext] = file.match(/^([a-z-]+?)(?:\.([A-Za-z0-9-]+))?\.(txt|html)$/) ?? [];
      const knownFile = known.has(file) || (name !== undefined && language !== undefined && known.has(`${name}.${ext}`) && isLanguageTag(language));
      if (!knownFile) found.push(`${file} in MAIL_TEMPLATES_DIR names no mail (each is <name>.txt or <name>.html, or <name>.<language>.txt for one language, of: ${TEMPLATE_NAMES.join(', ')})`);
    }
    for (const language of this.languages.codes) {
      for (const name of TEMPLATE_NAMES) {
        try {
          this.render(name, samples[name], language);
        } catch (err) {
          found.push(`${name} (${language}): ${(err as Error).message} (the values this mail gives: ${Object.keys(samples[name]).join(', ')})`);
        }
      }
    }
    return found;
  }

  /** A mail's subject in a language, filled with its values. */
  subject(name: TemplateName, values: Record<string, string>, language = DEFAULT_LANGUAGE): string {
    return this.text(language, `subjects.${name}`, values);
  }

  /** A text of the language file's "mail" part (English where the language has none), filled with `values`. */
  text(language: string, key: string, values: Record<string, string> = {}): string {
    const t = this.languages.t(language, 'mail');
    const text = t(key, values);
    if (text === key) throw new Error(`no text ${key} in the language files`);
    return text;
  }

  render(name: TemplateName, values: Record<string, string>, language = DEFAULT_LANGUAGE): { text: string; html: string } {
    return {
      text: this.fill(this.read(name, 'txt', language), values, language, (v) => v),
      html: this.fill(this.read(name, 'html', language), values, language, escapeHtml),
    };
  }

  /** The template of a mail in a language: the deployment's for that language, else its own, else the built-in one. */
  private read(name: TemplateName, ext: 'txt' | 'html', language: string): string {
    const cacheKey = `${name}.${language}.${ext}`;
    let template = this.cache.get(cacheKey);
    if (template === undefined) {
      const own = this.overrides ? [path.join(this.overrides, `${name}.${language}.${ext}`), path.join(this.overrides, `${name}.${ext}`)].find((file) => fs.existsSync(file)) : undefined;
      template = fs.readFileSync(own ?? path.join(this.dir, `${name}.${ext}`), 'utf8');
      this.cache.set(cacheKey, template);
    }
    return template;
  }

  private fill(template: string, values: Record<string, string>, language: string, escape: (v: string) => string): string {
    return template.replace(/\{\{(t:)?([\w.-]+)\}\}/g, (_m, text: string | undefined, key: string) => {
      if (text) return escape(this.text(language, key, values));
      if (!(key in values)) throw new Error(`template value missing: ${key}`);
      return escape(values[key]);
    });
  }
}
