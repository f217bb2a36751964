// The mail templates a deployment may replace (MAIL_TEMPLATES_DIR), checked at start, and the two
// commands that show them: a preview of every mail, and a test mail through the notifier's mailer.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Templates, TEMPLATE_NAMES } from '../src/domain/templates';
import { mailSamples } from '../src/domain/mail-samples';
import { mailTemplates } from '../src/mail-templates';
import { composeMail } from '../src/domain/notifications';
import { writePreviews } from '../src/tools/mail-preview';
import { sendTestMail } from '../src/tools/mail-test';

const made: string[] = [];
const folder = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-mail-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

describe('mail templates', () => {
  it('render every built-in mail with the values its event gives, so no preview or sample lacks one', () => {
    const templates = new Templates();
    const samples = mailSamples('Example');
    for (const name of TEMPLATE_NAMES) {
      const { text, html } = templates.render(name, samples[name]);
      expect([name, text.includes('{{'), html.includes('{{')]).toEqual([name, false, false]);
    }
    expect(templates.problems(samples)).toEqual([]);
  });

  it('end every mail with who to turn to where the deployment names someone (SUPPORT_CONTACT), and with nothing where it does not', () => {
    const deps = { templates: new Templates(), productName: 'Acme' };
    const values = mailSamples('Acme')['password-reset-completed'];
    const helped = composeMail({ ...deps, supportContact: 'help@acme.example' }, 'password-reset-completed', values);
    expect(helped.text.trimEnd().endsWith('Questions? Contact help@acme.example.')).toBe(true);
    expect(helped.html).toContain('<p>Questions? Contact help@acme.example.</p>');
    for (const name of TEMPLATE_NAMES) expect([name, composeMail({ ...deps, supportContact: 'help@acme.example' }, name, mailSamples('Acme')[name]).text.includes('help@acme.example')]).toEqual([name, true]);
    const alone = composeMail(deps, 'password-reset-completed', values);
    expect(alone.text).not.toContain('Questions?');
  });

  it('take a deployment’s own file over the built-in one of its name, and keep the built-in rest', () => {
    const own = folder();
    fs.writeFileSync(path.join(own, 'admin-otp.txt'), 'Your code for {{productName}}: {{code}}');
    const templates = mailTemplates({ MAIL_TEMPLATES_DIR: own, PRODUCT_NAME: 'Acme' });
    expect(templates.render('admin-otp', mailSamples('Acme')['admin-otp']).text).toBe('Your code for Acme: 042917');
    expect(templates.render('admin-otp', mailSamples('Acme')['admin-otp']).html).toContain('<p>Hello Grace,</p>');
  });

  it('refuse to start on a folder that would fail a mail, naming each problem', () => {
    const own = folder();
    fs.writeFileSync(path.join(own, 'admin-code.txt'), 'misnamed');
    fs.writeFileSync(path.join(own, 'account-deleted.html'), '<p>Goodbye {{name}}, from {{teamName}}</p>');
    expect(() => mailTemplates({ MAIL_TEMPLATES_DIR: own, PRODUCT_NAME: 'Acme' })).toThrow(
      /MAIL_TEMPLATES_DIR: admin-code\.txt in MAIL_TEMPLATES_DIR names no mail .*; account-deleted: template value missing: teamName \(the values this mail gives: productName, support, name\)/,
    );
    expect(() => mailTemplates({ MAIL_TEMPLATES_DIR: path.join(own, 'nowhere'), PRODUCT_NAME: 'Acme' })).toThrow(/does not exist/);
  });
});

describe('npm run mail:preview and mail:test', () => {
  it('writes every mail as a page with its subject and both bodies, and an index linking them', () => {
    const out = folder();
    const index = writePreviews(out, { PRODUCT_NAME: 'Acme' });
    expect(fs.readdirSync(out).sort()).toEqual([...TEMPLATE_NAMES.map((n) => `${n}.html`), 'index.html'].sort());
    expect(fs.readFileSync(index, 'utf8')).toContain('<a href="email-sign-in.html">Sign in to Acme</a>');
    const page = fs.readFileSync(path.join(out, 'email-sign-in.html'), 'utf8');
    expect(page).toContain('<h1>Sign in to Acme</h1>');
    expect(page).toContain('042917');
  });

  it('sends a test mail through the configured mailer (here the folder), and refuses a wrong address or mail name', async () => {
    const mailDir = folder();
    expect(await sendTestMail('ops@example.com', 'password-reset-requested', { MAIL_DIR: mailDir, PRODUCT_NAME: 'Acme' })).toBe(`Wrote "Reset your Acme password" for ops@example.com into ${mailDir} (no SMTP_URL is set).`);
    const written = fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml'));
    expect(written).toHaveLength(1);
    expect(fs.readFileSync(path.join(mailDir, written[0]), 'utf8')).toMatch(/To: ops@example\.com[\s\S]*Subject: Reset your Acme password/);
    await expect(sendTestMail('not-an-address', 'security-notice', { MAIL_DIR: mailDir })).rejects.toThrow(/Not an address to send to/);
    await expect(sendTestMail('ops@example.com', 'welcome', { MAIL_DIR: mailDir })).rejects.toThrow(/No mail is called "welcome"/);
  });
});
