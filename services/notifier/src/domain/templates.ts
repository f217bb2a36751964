// Mail templates kept as files (templates/<name>.txt and .html), filled with {{placeholders}};
// values are HTML-escaped in the HTML body.
import fs from 'node:fs';
import path from 'node:path';

export type TemplateName =
  | 'admin-otp'
  | 'password-reset-requested'
  | 'password-reset-completed'
  | 'security-notice'
  | 'email-verification'
  | 'factor-recovery-requested'
  | 'email-sign-in'
  | 'email-sign-up'
  | 'email-change-confirm'
  | 'email-change-notice'
  | 'account-deleted';

const TEMPLATE_DIR = path.resolve(__dirname, '..', '..', 'templates');

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export class Templates {
  private readonly cache = new Map<string, string>();

  constructor(private readonly dir = TEMPLATE_DIR) {}

  render(name: TemplateName, values: Record<string, string>): { text: string; html: string } {
    return {
      text: this.fill(this.read(`${name}.txt`), values, (v) => v),
      html: this.fill(this.read(`${name}.html`), values, escapeHtml),
    };
  }

  private read(file: string): string {
    let template = this.cache.get(file);
    if (template === undefined) {
      template = fs.readFileSync(path.join(this.dir, file), 'utf8');
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
