// A real SMTP server in-process (smtp-server) that keeps every mail it receives.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { until } from './until';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The raw message with quoted-printable soft breaks and escapes decoded. */
  decoded: string;
}

export interface TestSmtp {
  url: string;
  mails: ReceivedMail[];
  /** Answers the next N RCPT commands with this SMTP code (e.g. 451 transient, 550 permanent). */
  failNext(count: number, code: number): void;
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  let failures: { count: number; code: number } = { count: 0, code: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (failures.count > 0) {
        failures.count--;
        const err = Object.assign(new Error(failures.code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: failures.code });
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? '';
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
          decoded: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    failNext: (count, code) => (failures = { count, code }),
    waitFor: (match, timeoutMs = 5_000) => until(() => mails.find(match), timeoutMs, () => `a matching mail (received ${mails.length}: ${mails.map((m) => m.subject).join(' | ')})`),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
