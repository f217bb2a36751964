// Mail templates kept as files (templates/<name>.txt and .html), filled with {{placeholders}};
// values are HTML-escaped in the HTML body. A deployment replaces any of them with a file of the same
// name in MAIL_TEMPLATES_DIR (the others stay the built-in ones); `problems` checks such a folder at
// start: a file that names no mail, or a template that asks for a value its mail does not give.
import fs from 'node:fs';
import path from 'node:path';
import { escapeHtml } from '@acct/shared';

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
  ) {}

  /** What is wrong with the overrides: files that name no mail, and templates that do not render with their mail's values (`samples`). */
  problems(samples: Record<TemplateName, Record<string, string>>): string[] {
    if (!this.overrides) return [];
    if (!fs.existsSync(this.overrides)) return [`MAIL_TEMPLATES_DIR ${this.overrides} does not exist`];
    const known = new Set(TEMPLATE_NAMES.flatMap((name) => [`${name}.txt`, `${name}.html`]));
    const found: string[] = [];
    for (const file of fs.readdirSync(this.overrides)) {
      if (!known.has(file)) found.push(`${file} in MAIL_TEMPLATES_DIR names no mail (each is <name>.txt or <name>.html, of: ${TEMPLATE_NAMES.join(', ')})`);
    }
    for (const name of TEMPLATE_NAMES) {
      try {
        this.render(name, samples[name]);
      } catch (err) {
        found.push(`${name}: ${(err as Error).message} (the values this mail gives: ${Object.keys(samples[name]).join(', ')})`);
      }
    }
    return found;
  }

  render(name: TemplateName, values: Record<string, string>): { text: string; html: string } {
    return {
      text: this.fill(this.read(`${name}.txt`), values, (v) => v),
      html: this.fill(this.read(`${name}.html`), values, escapeHtml),
    };
  }

  private read(file: string): string {
    let template = this.cache.get(file);
    if (template === undefined) {
      const own = this.overrides ? path.join(this.overrides, file) : undefined;
      template = fs.readFileSync(own && fs.existsSync(own) ? own : path.join(this.dir, file), 'utf8');
      this.cache.set(file, template);
    }
    return template;
  }

  private fill(template: string, values: Record<string, string>, escape: (v: string) => string): string {
    return template.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
      if (!(key in values)) throw new Error(`template value missing: ${key}`);
      return escape(values[key]);
    });
  }
}
