/**
 * Mail in tests as the product sends it: a real SMTP sink saved as the instance's relay (as
 * the setup wizard would), and a real Graphile worker that runs the account-mail jobs the API
 * enqueues. Tests read links from the mails that arrived, never from the database or a log.
 */
import { pino } from 'pino';
import { createLogger, type Logger } from '../logger.ts';
import { ACCOUNT_MAIL_TASK } from '../mail/accountMail.ts';
import { Mailer } from '../mail/mailer.ts';
import { setSetting } from '../settings/instanceSettings.ts';
import { startWorker, type RunningWorker } from '../../jobs/worker.ts';
import { waitFor } from './polling.ts';
import { decodedText, startSmtpTestServer, type SmtpTestServer } from './smtpTestServer.ts';
import type { TestInstance } from './testInstance.ts';

export type LinkPage = 'verify-email' | 'reset-password';

export interface MailRelay {
  smtp: SmtpTestServer;
  worker: RunningWorker;
  /**
   * The link of the `count`-th mail (1 = the first) to `recipient` that links to `page`,
   * waiting for it to arrive.
   */
  link(recipient: string, page: LinkPage, count?: number): Promise<string>;
  /** The token of that link. */
  token(recipient: string, page: LinkPage, count?: number): Promise<string>;
  /** The links of every mail that arrived for `recipient` and `page` so far. */
  linksSoFar(recipient: string, page: LinkPage): string[];
  close(): Promise<void>;
}

const LINK_WAIT_MS = 20_000;

/** The product's logger at its most verbose, writing its JSON lines to `lines` for the test to read. */
export function capturingLogger(name: string): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger('trace', name, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** Saves the relay the worker delivers through (null removes it: the instance sends no mail). */
export async function saveSmtpRelay(instance: TestInstance, port: number | null): Promise<void> {
  await instance.services.sequelize.transaction((transaction) =>
    setSetting('smtp.settings', port === null ? null : { host: '127.0.0.1', port, secure: false, from: 'Testteich <wiki@example.org>' }, { actorId: null, transaction }),
  );
}

/**
 * Starts the sink (or uses `options.smtp`), saves it as the relay and starts a worker on the
 * instance's database. `saveRelay: false` leaves the relay setting to the test.
 */
export async function startMailRelay(instance: TestInstance, options: { logger?: Logger; smtp?: SmtpTestServer; saveRelay?: boolean } = {}): Promise<MailRelay> {
  const smtp = options.smtp ?? (await startSmtpTestServer());
  if (options.saveRelay !== false) await saveSmtpRelay(instance, smtp.port);
  const { config, sequelize } = instance.services;
  const logger = options.logger ?? pino({ level: 'silent' });
  if (!config.databaseUrl) throw new Error('the test instance has no DATABASE_URL');
  const worker = await startWorker({
    databaseUrl: config.databaseUrl,
    sequelize,
    dataDir: config.dataDir,
    logger,
    mailer: new Mailer({ fallback: config.smtpFallback, logger }),
    baseUrl: config.baseUrl,
    sessionSecret: config.sessionSecret,
  });

  const linkPattern = (page: LinkPage) => new RegExp(`https?://[^\\s"<>]+/${page}\\?token=[A-Za-z0-9_-]+`);
  const linksSoFar = (recipient: string, page: LinkPage) =>
    smtp.messages
      .filter((message) => message.to.includes(recipient))
      .map((message) => linkPattern(page).exec(decodedText(message.raw))?.[0])
      .filter((link): link is string => link !== undefined);

  async function link(recipient: string, page: LinkPage, count = 1): Promise<string> {
    return waitFor(() => linksSoFar(recipient, page)[count - 1], LINK_WAIT_MS, `${page} mail #${count} to ${recipient}`, { intervalMs: 25 });
  }

  return {
    smtp,
    worker,
    link,
    token: async (recipient, page, count) => new URL(await link(recipient, page, count)).searchParams.get('token')!,
    linksSoFar,
    close: async () => {
      await worker.stop();
      if (!options.smtp) await smtp.close();
    },
  };
}

export interface AccountMailJobRow {
  key: string | null;
  payload: unknown;
  attempts: number;
  lastError: string | null;
}

/** The account-mail jobs still in the queue (Graphile deletes a job once it succeeded). */
export async function accountMailJobs(instance: TestInstance): Promise<AccountMailJobRow[]> {
  const [rows] = await instance.services.sequelize.query(
    `SELECT jobs.key, jobs.payload, jobs.attempts, jobs.last_error AS "lastError"
       FROM graphile_worker._private_jobs jobs
       JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
      WHERE tasks.identifier = :task
      ORDER BY jobs.id`,
    { replacements: { task: ACCOUNT_MAIL_TASK } },
  );
  return rows as AccountMailJobRow[];
}
