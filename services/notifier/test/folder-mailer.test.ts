// The local stack's mailer: each mail is an .eml file; in development the log says where it went
// and shows its link in plain text, so a developer can follow a reset link.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMemoryLogger } from '@acct/shared';
import { FolderMailer } from '../src/transports/mailer';

describe('FolderMailer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-folder-mailer-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const mail = { to: 'grace@example.com', subject: 'Reset', text: 'Open http://localhost:3000/reset-password?token=abc123 within 30 minutes.', html: '<p>x</p>', id: 'evt-1' };

  it('in development, logs the file it wrote and the link of the mail', async () => {
    const { logger, records } = createMemoryLogger();
    const mailer = new FolderMailer(dir, 'Account <no-reply@example.com>', logger);
    await mailer.send(mail);
    mailer.close();
    const [record] = records;
    expect(record).toMatchObject({ link: 'http://localhost:3000/reset-password?token=abc123' });
    expect(fs.readFileSync(record.mail_file as string, 'utf8')).toContain('reset-password?token=abc123');
    expect(record.message).toContain(record.mail_file as string);
  });

  it('writes the mail as plain text beside the .eml, each link whole on its line (the .eml quotes long lines)', async () => {
    const long = `http://localhost:8080/account/email?action=undo&token=${'A'.repeat(43)}`;
    const mailer = new FolderMailer(dir, 'Account <no-reply@example.com>');
    await mailer.send({ ...mail, id: 'evt-3', text: `Undo it here: ${long}\nThat link works for a week.` });
    mailer.close();
    const eml = fs.readdirSync(dir).find((f) => f.endsWith('-evt-3.eml'))!;
    expect(fs.readFileSync(path.join(dir, eml), 'utf8')).not.toContain(long);
    const text = fs.readFileSync(path.join(dir, eml.replace(/\.eml$/, '.txt')), 'utf8');
    expect(text.split('\n')).toEqual(['To: grace@example.com', 'Subject: Reset', '', `Undo it here: ${long}`, 'That link works for a week.', '']);
  });

  it('without a developer log (any other environment), still writes the file', async () => {
    const mailer = new FolderMailer(dir, 'Account <no-reply@example.com>');
    await mailer.send({ ...mail, id: 'evt-2' });
    mailer.close();
    expect(fs.readdirSync(dir).some((f) => f.endsWith('-evt-2.eml'))).toBe(true);
  });
});
