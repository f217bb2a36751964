// Outgoing mail through nodemailer: SMTP from SMTP_URL, or .eml files in a folder for the local stack.
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '@acct/shared';
import { PermanentDeliveryError, TransientDeliveryError } from '../domain/delivery-errors';
import type { Mail, Mailer } from '../domain/ports';

export class SmtpMailer implements Mailer {
  readonly name = 'smtp';
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url, { pool: true, maxConnections: 4 } as never);
  }

  async send(mail: Mail): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, messageId: `<${mail.id}@notifier>`, ...(mail.language ? { headers: { 'Content-Language': mail.language } } : {}) });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      // 5xx answers (unknown mailbox, rejected content) will not change on a retry; the rest might.
      if (typeof code === 'number' && code >= 500) throw new PermanentDeliveryError(`SMTP ${code}: ${(err as Error).message}`);
      throw new TransientDeliveryError(`SMTP: ${(err as Error).message}`);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/**
 * Writes each mail as an .eml file, for a local stack without SMTP, and beside it the same mail as
 * plain text (`.txt`: To, Subject and the text body, every link whole on its line, where the .eml's
 * quoted-printable breaks them). With a logger (development only),
 * it says where each mail went and, in plain text, the link it carries, so a developer can click it:
 * a secret in a log, which is why production refuses this mailer's place (SMTP_URL).
 */
export class FolderMailer implements Mailer {
  readonly name = 'folder';
  private readonly transport: Transporter;

  constructor(
    private readonly dir: string,
    private readonly from: string,
    private readonly developerLog?: Logger,
  ) {
    this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  async send(mail: Mail): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, messageId: `<${mail.id}@notifier>`, ...(mail.language ? { headers: { 'Content-Language': mail.language } } : {}) });
    await fs.mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.id}.eml`);
    await fs.writeFile(file, info.message as Buffer);
    await fs.writeFile(file.replace(/\.eml$/, '.txt'), `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`);
    if (this.developerLog) {
      const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
      this.developerLog.info({ mail_file: path.resolve(file), ...(link ? { link } : {}) }, link ? `Mail written to ${path.resolve(file)}; its link: ${link}` : `Mail written to ${path.resolve(file)}`);
    }
  }

  close(): void {
    this.transport.close();
  }
}
