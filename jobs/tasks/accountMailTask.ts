/**
 * Delivers one account mail (api/mail/accountMail.ts). A relay failure throws, so Graphile
 * retries the job with backoff; the log line names the account and the outcome, never the link.
 */
import type { Task } from 'graphile-worker';
import { ACCOUNT_MAIL_TASK, accountMailPayloadSchema, deliverAccountMail, type AccountMailDependencies } from '../../api/mail/accountMail.ts';

export const ACCOUNT_MAIL = ACCOUNT_MAIL_TASK;

export function accountMailTask(dependencies: AccountMailDependencies): Task {
  return async (payload, helpers) => {
    const parsed = accountMailPayloadSchema.safeParse(payload);
    // A malformed payload never becomes valid by retrying: log it and let the job finish.
    if (!parsed.success) {
      helpers.logger.error('account mail job with an invalid payload dropped');
      return;
    }
    const outcome = await deliverAccountMail(parsed.data, dependencies);
    helpers.logger.info(`account mail ${outcome}`, { userId: parsed.data.userId, purpose: parsed.data.purpose, outcome });
  };
}
