// Mail to users (address verification, password reset, invitations) through nodemailer: over SMTP
// (`SMTP_URL`), or, without it outside production, written as .eml files under DATA_DIR/mail and
// announced in the log with their links, so the quick start works offline.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface Mail {
  readonly to: string;
  readonly subject: string;
  /** Plain text: every link written out in full. */
  readonly text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export interface MailSettings {
  /** smtp:// or smtps:// URL with credentials; null: write mails under `dir`. */
  readonly smtpUrl: string | null;
  readonly from: string;
  /** Where mails go without SMTP. */
  readonly dir: string;
}

/** Sends over SMTP, or writes the message to a file and logs its links. */
export function createMailer(settings: MailSettings, log: (line: string) => void): Mailer {
  if (settings.smtpUrl) {
    const transport = nodemailer.createTransport(settings.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: settings.from, ...mail });
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let sent = 0;
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: settings.from, ...mail });
      await mkdir(settings.dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${++sent}.eml`;
      const file = path.join(settings.dir, name);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
      log(`mail to ${mail.to}: "${mail.subject}" written to ${file}${links.map((l) => `\n  ${l}`).join('')}`);
    },
    close: () => transport.close(),
  };
}
