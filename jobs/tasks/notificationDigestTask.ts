/**
 * The notification digest (api/notifications/notificationDigest.ts) as a Graphile task: every
 * 15 minutes from the crontab, or when a Site Admin runs it by hand; the payload is ignored, so
 * both apply the same cadence rules. The log line counts, never names a link.
 */
import type { Task } from 'graphile-worker';
import { NOTIFICATION_DIGEST_TASK, runNotificationDigest, type DigestDependencies } from '../../api/notifications/notificationDigest.ts';

export const NOTIFICATION_DIGEST = NOTIFICATION_DIGEST_TASK;

export function notificationDigestTask(dependencies: DigestDependencies): Task {
  return async (_payload, helpers) => {
    const started = performance.now();
    const outcome = await runNotificationDigest(dependencies);
    const durationMs = Math.round(performance.now() - started);
    if (outcome.skipped) helpers.logger.info(outcome.skipped === 'already_running' ? 'digest already running elsewhere' : 'no mail relay configured: no digest sent', { skipped: outcome.skipped });
    else helpers.logger.info(outcome.users > 0 ? 'notification digest sent' : 'no digest due', { ...outcome, durationMs });
  };
}
