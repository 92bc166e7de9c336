/**
 * Many mails through one relay in one go (the notification digest): one pooled SMTP transport
 * instead of a connection per mail, and the delivery records (`mail_outbox`: recipient, kind,
 * outcome; never a body) written in bulk. Thousands of mails a run stay far below the job's
 * slot that way; one mail per connection and one insert per mail would not.
 */
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../config.ts';
import type { Logger } from '../logger.ts';
import { MailOutboxEntry, type MailStatus } from '../models/index.ts';
import { MailDeliveryError, smtpConnectionOptions } from './mailer.ts';

/** Parallel SMTP connections: enough to hide the relay's round trips, few enough for any relay's limits. */
const POOL_CONNECTIONS = 4;

export interface BatchMail {
  to: string;
  /** Recorded in `mail_outbox`, e.g. `notification_digest`. */
  kind: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export class MailBatch {
  readonly #settings: SmtpSettings;
  readonly #logger: Logger;
  readonly #transport: ReturnType<typeof createPooledTransport>;
  #records: { recipient: string; kind: string; status: MailStatus; error: string | null }[] = [];

  constructor(settings: SmtpSettings, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger;
    this.#transport = createPooledTransport(settings);
  }

  /** Sends one mail; throws `MailDeliveryError` when the relay refuses or drops it. Calls may overlap: the pool queues them. */
  async send(mail: BatchMail): Promise<void> {
    try {
      await this.#transport.sendMail({ from: this.#settings.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#records.push({ recipient: mail.to, kind: mail.kind, status: 'failed', error: message });
      this.#logger.warn({ mail: { to: mail.to, kind: mail.kind }, error: message }, 'mail delivery failed');
      throw new MailDeliveryError(message);
    }
    this.#records.push({ recipient: mail.to, kind: mail.kind, status: 'sent', error: null });
    this.#logger.debug({ mail: { to: mail.to, kind: mail.kind } }, 'mail sent');
  }

  /** Writes the delivery records collected so far, in one statement. */
  async flushRecords(): Promise<void> {
    if (this.#records.length === 0) return;
    const records = this.#records;
    this.#records = [];
    await MailOutboxEntry.bulkCreate(records);
  }

  close(): void {
    this.#transport.close();
  }
}

function createPooledTransport(settings: SmtpSettings) {
  return nodemailer.createTransport({ ...smtpConnectionOptions(settings), pool: true, maxConnections: POOL_CONNECTIONS });
}
