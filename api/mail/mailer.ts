/**
 * Sends mail through the SMTP relay saved by setup (or the deploy-level fallback). Requests
 * never call it for account mail: a job does (api/mail/accountMail.ts), so a slow or broken
 * relay neither delays an answer nor loses a mail (the job retries).
 *
 * Every outcome is recorded in `mail_outbox` and the log as recipient, kind and status only:
 * mail bodies carry verification and reset links, which must never be stored or logged.
 */
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../config.ts';
import type { Locale } from '../i18n/locale.ts';
import type { Logger } from '../logger.ts';
import { MailOutboxEntry } from '../models/index.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { renderMail, type MailTemplate } from './templates.ts';

const SMTP_TIMEOUT_MS = 10_000;

/** How to reach the relay, for one transport per mail (below) and the digest's pooled one (mailBatch.ts). */
export function smtpConnectionOptions(settings: SmtpSettings) {
  return {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.username ? { user: settings.username, pass: settings.password ?? '' } : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  };
}

export function createSmtpTransport(settings: SmtpSettings) {
  return nodemailer.createTransport(smtpConnectionOptions(settings));
}

/** A relay refused or dropped a mail. The message is the transport's, which never holds the body. */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
}

export class Mailer {
  readonly #fallback: SmtpSettings | null;
  readonly #logger: Logger;

  constructor(options: { fallback: SmtpSettings | null; logger: Logger }) {
    this.#fallback = options.fallback;
    this.#logger = options.logger;
  }

  /** The relay in use: the one saved by setup, else the `SMTP_*` fallback; null means the instance sends no mail. */
  async smtpSettings(): Promise<SmtpSettings | null> {
    return (await getSetting('smtp.settings')) ?? this.#fallback;
  }

  async isConfigured(): Promise<boolean> {
    return (await this.smtpSettings()) !== null;
  }

  /** Records a mail that was due but could not go out because no relay is configured. */
  async recordNotConfigured(to: string, kind: MailTemplate['kind']): Promise<void> {
    await MailOutboxEntry.create({ recipient: to, kind, status: 'not_configured', error: null });
    this.#logger.info({ mail: { to, kind } }, 'SMTP not configured: mail not sent');
  }

  /**
   * Delivers one mail through `settings`. Throws `MailDeliveryError` when the relay fails,
   * after recording the failure, so the calling job can retry.
   */
  async deliver(settings: SmtpSettings, to: string, template: MailTemplate, locale: Locale): Promise<void> {
    const mail = renderMail(template, locale);
    const transport = createSmtpTransport(settings);
    try {
      await transport.sendMail({ from: settings.from, to, subject: mail.subject, text: mail.text, html: mail.html });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await MailOutboxEntry.create({ recipient: to, kind: template.kind, status: 'failed', error: message });
      this.#logger.warn({ mail: { to, kind: template.kind }, error: message }, 'mail delivery failed');
      throw new MailDeliveryError(message);
    } finally {
      transport.close();
    }
    await MailOutboxEntry.create({ recipient: to, kind: template.kind, status: 'sent', error: null });
    this.#logger.info({ mail: { to, kind: template.kind } }, 'mail sent');
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
