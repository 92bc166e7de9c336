/**
 * Sends mail through the SMTP relay saved by setup (or the deploy-level fallback). Without
 * either, the mail goes to the outbox table and the log, so every flow still works.
 */
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../config.ts';
import type { Locale } from '../i18n/locale.ts';
import type { Logger } from '../logger.ts';
import { MailOutboxEntry } from '../models/index.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { renderMail, type MailTemplate } from './templates.ts';

const SMTP_TIMEOUT_MS = 10_000;

export function createSmtpTransport(settings: SmtpSettings) {
  return nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.username ? { user: settings.username, pass: settings.password ?? '' } : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
}

export class Mailer {
  readonly #fallback: SmtpSettings | null;
  readonly #logger: Logger;

  constructor(options: { fallback: SmtpSettings | null; logger: Logger }) {
    this.#fallback = options.fallback;
    this.#logger = options.logger;
  }

  async smtpSettings(): Promise<SmtpSettings | null> {
    return (await getSetting('smtp.settings')) ?? this.#fallback;
  }

  /** Delivers (or records) one mail. Never throws for transport trouble: the outbox keeps the failure. */
  async send(to: string, template: MailTemplate, locale: Locale): Promise<void> {
    const mail = renderMail(template, locale);
    const settings = await this.smtpSettings();
    if (!settings) {
      await MailOutboxEntry.create({ recipient: to, subject: mail.subject, textBody: mail.text, htmlBody: mail.html, kind: template.kind, status: 'not_configured', error: null });
      this.#logger.info({ mail: { to, kind: template.kind, subject: mail.subject, text: mail.text } }, 'SMTP not configured: mail written to the outbox');
      return;
    }
    try {
      await createSmtpTransport(settings).sendMail({ from: settings.from, to, subject: mail.subject, text: mail.text, html: mail.html });
      await MailOutboxEntry.create({ recipient: to, subject: mail.subject, textBody: '', htmlBody: '', kind: template.kind, status: 'sent', error: null });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await MailOutboxEntry.create({ recipient: to, subject: mail.subject, textBody: mail.text, htmlBody: mail.html, kind: template.kind, status: 'failed', error: message });
      this.#logger.error({ mail: { to, kind: template.kind }, err: message }, 'mail delivery failed');
    }
  }

  /** The live delivery test of the setup SMTP step: throws the transport error as it is. */
  async sendTestMail(settings: SmtpSettings, to: string, locale: Locale, instanceName: string): Promise<void> {
    const mail = renderMail({ kind: 'smtp_test', instanceName }, locale);
    const transport = createSmtpTransport(settings);
    try {
      await transport.sendMail({ from: settings.from, to, subject: mail.subject, text: mail.text, html: mail.html });
    } finally {
      transport.close();
    }
  }
}
