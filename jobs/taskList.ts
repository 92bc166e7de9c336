/**
 * Every task the worker runs, by the identifier jobs and the crontab name it with. Tasks are
 * thin: they call a command from `api/commands/` and log what it did.
 */
import type { TaskList } from 'graphile-worker';
import type { Sequelize } from 'sequelize';
import { purgeExpiredTrash } from '../api/commands/pageTrashCommands.ts';
import type { Logger } from '../api/logger.ts';
import type { Mailer } from '../api/mail/mailer.ts';
import { withMaintenanceRunRecords } from './maintenanceRunRecords.ts';
import { ACCOUNT_MAIL, accountMailTask } from './tasks/accountMailTask.ts';
import { LOG_COMPACTION, logCompactionTask, PAGE_LOG_COMPACTION_JOB, pageLogCompactionTask } from './tasks/logCompactionTask.ts';
import { NOTIFICATION_DIGEST, notificationDigestTask } from './tasks/notificationDigestTask.ts';
import { ORPHAN_FILE_SWEEP, orphanFileSweepTask } from './tasks/orphanFileSweepTask.ts';
import { PUBLIC_DOCUMENTS_JOB, publicDocumentsTask } from './tasks/publicDocumentsTask.ts';
import { SEARCH_LEXICON_REFRESH, searchLexiconTask } from './tasks/searchLexiconTask.ts';
import { VERSION_THINNING, versionThinningTask } from './tasks/versionThinningTask.ts';

export { ACCOUNT_MAIL, LOG_COMPACTION, NOTIFICATION_DIGEST, ORPHAN_FILE_SWEEP, PAGE_LOG_COMPACTION_JOB, PUBLIC_DOCUMENTS_JOB, SEARCH_LEXICON_REFRESH, VERSION_THINNING };

export interface TaskDependencies {
  /** Bound to the models (`initModels`): commands read settings through them. */
  sequelize: Sequelize;
  /** DATA_DIR: the purge and the orphan-file sweep delete file bytes under it. */
  dataDir: string;
  /** For what commands report outside a job's own log (e.g. file bytes that could not be removed). */
  logger: Logger;
  /** Delivers account mail through the relay saved by setup or the `SMTP_*` fallback. */
  mailer: Mailer;
  /** `BASE_URL`: the origin of mailed links when setup saved none. */
  baseUrl: string;
  /** The instance's session secret: keys the unsubscribe links of digest mails. */
  sessionSecret: string;
}

export const TRASH_PURGE = 'trash-purge';

export function createTaskList(dependencies: TaskDependencies): TaskList {
  // The maintenance tasks record each run for the system panel (jobs/maintenanceRunRecords.ts).
  return withMaintenanceRunRecords(maintenanceAndOtherTasks(dependencies), dependencies.sequelize, dependencies.logger);
}

function maintenanceAndOtherTasks(dependencies: TaskDependencies): TaskList {
  return {
    /** Purges pages trashed longer than `trash.retentionDays`; scheduled hourly by the crontab. */
    [TRASH_PURGE]: async (_payload, helpers) => {
      const { purged } = await purgeExpiredTrash(dependencies.sequelize, { dataDir: dependencies.dataDir, logger: dependencies.logger });
      helpers.logger.info(purged > 0 ? 'expired trash purged' : 'no expired trash', { purged });
    },
    /** Thins automatic versions older than 90 days to the newest per page and day; daily. */
    [VERSION_THINNING]: versionThinningTask(dependencies.sequelize),
    /** Merges the update log of idle pages with more than 500 rows into one row; hourly. */
    [LOG_COMPACTION]: logCompactionTask(),
    /** Merges one page's update log into one row shortly after its last participant left (queued by the collaboration server). */
    [PAGE_LOG_COMPACTION_JOB]: pageLogCompactionTask(),
    /** Makes the substring fallback's lexicon the lexemes of the live vectors again; daily. */
    [SEARCH_LEXICON_REFRESH]: searchLexiconTask(dependencies.sequelize),
    /** Mails a verification or password-reset link; enqueued by the account routes, retried on relay failure. */
    [ACCOUNT_MAIL]: accountMailTask(dependencies),
    /** Regenerates the public documents that queued changes affect; enqueued in the changes' transactions. */
    [PUBLIC_DOCUMENTS_JOB]: publicDocumentsTask(dependencies),
    /** Mails each due user one digest of their unread, unmailed notifications; every 15 minutes. */
    [NOTIFICATION_DIGEST]: notificationDigestTask(dependencies),
    /** Deletes unclaimed uploads older than 24 h, stray and stale temporary files, and backfills missing hashes; nightly. */
    [ORPHAN_FILE_SWEEP]: orphanFileSweepTask(dependencies),
  };
}
