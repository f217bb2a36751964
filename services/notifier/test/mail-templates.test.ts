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
  it('render every built-in mail in every shipped language with the values its event gives, so no preview or sample lacks one', () => {
    const templates = new Templates();
    const samples = mailSamples('Example');
    expect(templates.languages.codes).toEqual(['en', 'de']);
    for (const language of templates.languages.codes) {
      for (const name of TEMPLATE_NAMES) {
        const { text, html } = templates.render(name, samples[name], language);
        expect([language, name, text.includes('{{'), html.includes('{{')]).toEqual([language, name, false, false]);
      }
    }
    expect(templates.problems(samples)).toEqual([]);
  });

  it("speak the event's language: German words, the German subject, a Content-Language to match; English for a language no file gives", () => {
    const deps = { templates: new Templates(), productName: 'Acme', supportContact: 'help@acme.example' };
    const values = mailSamples('Acme')['password-reset-requested'];
    const german = composeMail(deps, 'password-reset-requested', values, 'de');
    expect(german.subject).toBe('Ihr Passwort für Acme zurücksetzen');
    expect(german.text).toContain('Hallo Grace,');
    expect(german.text).toContain('Der Link läuft in 30 Minuten ab');
    expect(german.html).toContain('<a href="https://app.example.com/reset-password?token=example">Neues Passwort wählen</a>');
    expect(german.text.trimEnd().endsWith('Fragen? Wenden Sie sich an help@acme.example.')).toBe(true);
    expect(german.language).toBe('de');
    const unknown = composeMail(deps, 'password-reset-requested', values, 'sw');
    expect([unknown.language, unknown.subject]).toEqual(['en', 'Reset your Acme password']);
  });

  it('escape in the HTML body what a value or a text brings, once', () => {
    const deps = { templates: new Templates(), productName: 'A&B <Shop>' };
    const mail = composeMail(deps, 'account-deleted', { name: '<b>Grace</b>' }, 'de');
    expect(mail.html).toContain('<p>Hallo &lt;b&gt;Grace&lt;/b&gt;,</p>');
    expect(mail.html).toContain('Ihr A&amp;B &lt;Shop&gt;-Konto wurde gelöscht');
    expect(mail.text).toContain('Hallo <b>Grace</b>,');
  });

  it("add a deployment's language with one file (LANGUAGES_DIR): its texts where it has them, English under the rest", () => {
    const languages = folder();
    fs.writeFileSync(path.join(languages, 'fr.json'), JSON.stringify({ name: 'Français', pages: {}, mail: { hello: 'Bonjour {{name}},', subjects: { 'account-deleted': 'Votre compte {{productName}} a été supprimé' } } }));
    const templates = mailTemplates({ PRODUCT_NAME: 'Acme', LANGUAGES_DIR: languages });
    const mail = composeMail({ templates, productName: 'Acme' }, 'account-deleted', { name: 'Grace' }, 'fr');
    expect(mail.subject).toBe('Votre compte Acme a été supprimé');
    expect(mail.text).toContain('Bonjour Grace,');
    expect(mail.text).toContain('Your Acme account was deleted, with its sessions');
    fs.writeFileSync(path.join(languages, 'fr.json'), JSON.stringify({ name: 'Français', pages: {}, mail: { hello: 'Bonjour {{nom}},' } }));
    expect(() => mailTemplates({ PRODUCT_NAME: 'Acme', LANGUAGES_DIR: languages })).toThrow(/LANGUAGES_DIR: fr\.json: mail\.hello asks for \{\{nom\}\}/);
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
    // One language only: <name>.<language>.txt, over the deployment's own and the built-in one.
    fs.writeFileSync(path.join(own, 'admin-otp.de.txt'), 'Ihr Code für {{productName}}: {{code}}');
    const both = mailTemplates({ MAIL_TEMPLATES_DIR: own, PRODUCT_NAME: 'Acme' });
    expect(both.render('admin-otp', mailSamples('Acme')['admin-otp'], 'de').text).toBe('Ihr Code für Acme: 042917');
    expect(both.render('admin-otp', mailSamples('Acme')['admin-otp'], 'en').text).toBe('Your code for Acme: 042917');
  });

  it('refuse to start on a folder that would fail a mail, naming each problem', () => {
    const own = folder();
    fs.writeFileSync(path.join(own, 'admin-code.txt'), 'misnamed');
    fs.writeFileSync(path.join(own, 'account-deleted.html'), '<p>Goodbye {{name}}, from {{teamName}}</p>');
    expect(() => mailTemplates({ MAIL_TEMPLATES_DIR: own, PRODUCT_NAME: 'Acme' })).toThrow(
      /MAIL_TEMPLATES_DIR: admin-code\.txt in MAIL_TEMPLATES_DIR names no mail .*; account-deleted \(en\): template value missing: teamName \(the values this mail gives: productName, support, name\)/,
    );
    expect(() => mailTemplates({ MAIL_TEMPLATES_DIR: path.join(own, 'nowhere'), PRODUCT_NAME: 'Acme' })).toThrow(/does not exist/);
  });
});

describe('npm run mail:preview and mail:test', () => {
  it('writes every mail as a page with its subject and both bodies, and an index linking them', () => {
    const out = folder();
    const index = writePreviews(out, { PRODUCT_NAME: 'Acme' });
    expect(fs.readdirSync(out).sort()).toEqual([...TEMPLATE_NAMES.flatMap((n) => [`${n}.en.html`, `${n}.de.html`]), 'index.html'].sort());
    expect(fs.readFileSync(index, 'utf8')).toContain('<a href="email-sign-in.en.html">Sign in to Acme</a>');
    expect(fs.readFileSync(index, 'utf8')).toContain('<a href="email-sign-in.de.html">Bei Acme anmelden</a>');
    const page = fs.readFileSync(path.join(out, 'email-sign-in.en.html'), 'utf8');
    expect(page).toContain('<h1>Sign in to Acme</h1>');
    expect(page).toContain('042917');
    expect(fs.readFileSync(path.join(out, 'email-sign-in.de.html'), 'utf8')).toContain('<html lang="de">');
  });

  it('sends a test mail through the configured mailer (here the folder), and refuses a wrong address or mail name', async () => {
    const mailDir = folder();
    expect(await sendTestMail('ops@example.com', 'password-reset-requested', { MAIL_DIR: mailDir, PRODUCT_NAME: 'Acme' })).toBe(`Wrote "Reset your Acme password" for ops@example.com into ${mailDir} (no SMTP_URL is set).`);
    const written = fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml'));
    expect(written).toHaveLength(1);
    expect(fs.readFileSync(path.join(mailDir, written[0]), 'utf8')).toMatch(/To: ops@example\.com[\s\S]*Subject: Reset your Acme password/);
    await expect(sendTestMail('not-an-address', 'security-notice', { MAIL_DIR: mailDir })).rejects.toThrow(/Not an address to send to/);
    await expect(sendTestMail('ops@example.com', 'welcome', { MAIL_DIR: mailDir })).rejects.toThrow(/No mail is called "welcome"/);
    expect(await sendTestMail('ops@example.com', 'account-deleted', { MAIL_DIR: mailDir, PRODUCT_NAME: 'Acme' }, 'de')).toBe(`Wrote "Ihr Acme-Konto wurde gelöscht" for ops@example.com into ${mailDir} (no SMTP_URL is set).`);
    await expect(sendTestMail('ops@example.com', 'account-deleted', { MAIL_DIR: mailDir }, 'xx')).rejects.toThrow(/No language file for "xx"; the languages are: en, de/);
  });
});
