/**
 * Account mail (e-mail verification, password reset) as a job: a request enqueues it in the
 * transaction that changes the account, and the worker delivers it with retries. The request
 * never waits for SMTP, so neither a slow relay nor the answer time tells whether an account
 * exists.
 *
 * Where the link lives: the job row sits in Postgres (`graphile_worker`) until it succeeds, and
 * a token in its payload would be a stored outbox in clear. So the payload names only the
 * account and the purpose; the task issues the token when it sends (`deliverAccountMail`), and
 * the link exists only in the mail itself. Encrypting the token into the payload would keep
 * a decryptable link in the database and tie pending mail to the session secret; issuing at
 * send time also makes a link's lifetime (24 h, 1 h) count from the moment it is mailed. A retry
 * issues a fresh token, which retires the earlier unused one (`issueEmailToken`), so at most
 * one link per account and purpose works at a time, as before.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { z } from 'zod';
import { issueEmailToken } from '../auth/emailTokens.ts';
import { isLocale, type Locale } from '../i18n/locale.ts';
import type { Logger } from '../logger.ts';
import { User, type EmailTokenPurpose } from '../models/index.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import type { Mailer } from './mailer.ts';

/** The Graphile Worker task identifier (jobs/taskList.ts). */
export const ACCOUNT_MAIL_TASK = 'account-mail';

/**
 * Attempts per mail. Graphile waits exp(attempt) seconds between them (3 s, 7 s, 20 s … 50 min
 * before the last, about 80 min in all): enough to ride out a relay restart, short enough that
 * nobody gets a verification mail days after signing up.
 */
const ACCOUNT_MAIL_MAX_ATTEMPTS = 9;

export type AccountMailPurpose = Extract<EmailTokenPurpose, 'verify_email' | 'reset_password'>;

export const accountMailPayloadSchema = z.object({
  userId: z.uuid(),
  purpose: z.enum(['verify_email', 'reset_password']),
  /** The language of the request that asked for it; the account's own setting wins. */
  locale: z.enum(['de', 'en']),
});
export type AccountMailPayload = z.infer<typeof accountMailPayloadSchema>;

/**
 * Adds the mail job in the caller's transaction: it exists exactly when the account change
 * commits. One pending job per account and purpose (`job_key`): asking again before it ran
 * replaces it instead of mailing twice.
 */
export async function enqueueAccountMail(sequelize: Sequelize, payload: AccountMailPayload, transaction: Transaction): Promise<void> {
  await sequelize.query(
    `SELECT graphile_worker.add_job(:task, CAST(:payload AS json), max_attempts => :maxAttempts, job_key => :jobKey)`,
    {
      replacements: {
        task: ACCOUNT_MAIL_TASK,
        payload: JSON.stringify(accountMailPayloadSchema.parse(payload)),
        maxAttempts: ACCOUNT_MAIL_MAX_ATTEMPTS,
        jobKey: `${ACCOUNT_MAIL_TASK}:${payload.purpose}:${payload.userId}`,
      },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
}

const LINK_PATHS: Record<EmailTokenPurpose, string> = {
  verify_email: '/verify-email',
  reset_password: '/reset-password',
  admin_reset_password: '/reset-password',
};

/** The page a token is opened on, under the instance's public origin (setup's base URL, else `BASE_URL`). */
export async function accountLink(purpose: EmailTokenPurpose, token: string, fallbackBaseUrl: string): Promise<string> {
  const base = (await getSetting('instance.baseUrl')) ?? fallbackBaseUrl;
  return `${base}${LINK_PATHS[purpose]}?token=${encodeURIComponent(token)}`;
}

/** Whether the mail still makes sense when the job runs: the account may have changed meanwhile. */
function stillWanted(user: User, purpose: AccountMailPurpose): boolean {
  if (user.status === 'disabled' || user.status === 'deleted') return false;
  return purpose === 'reset_password' || user.emailVerifiedAt === null;
}

export interface AccountMailDependencies {
  sequelize: Sequelize;
  mailer: Mailer;
  /** `BASE_URL`, for links when setup saved no base URL. */
  baseUrl: string;
  logger: Logger;
}

export type AccountMailOutcome = 'sent' | 'not_configured' | 'not_needed';

/**
 * The job's work: issues the link token and mails it. Throws when the relay fails (the job
 * is retried); a missing relay is final (recorded as `not_configured`, nothing issued).
 */
export async function deliverAccountMail(payload: AccountMailPayload, dependencies: AccountMailDependencies): Promise<AccountMailOutcome> {
  const user = await User.findByPk(payload.userId);
  if (!user || !stillWanted(user, payload.purpose)) return 'not_needed';
  const relay = await dependencies.mailer.smtpSettings();
  if (!relay) {
    await dependencies.mailer.recordNotConfigured(user.email, payload.purpose);
    return 'not_configured';
  }
  const { token } = await dependencies.sequelize.transaction((transaction) => issueEmailToken(user.id, payload.purpose, transaction));
  const link = await accountLink(payload.purpose, token, dependencies.baseUrl);
  const instanceName = await getSetting('instance.name');
  const locale: Locale = isLocale(user.locale) ? user.locale : payload.locale;
  await dependencies.mailer.deliver(relay, user.email, { kind: payload.purpose, displayName: user.displayName, instanceName, link }, locale);
  return 'sent';
}
