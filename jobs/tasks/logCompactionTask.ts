/**
 * The update-log compaction (api/documents/logCompaction.ts) as Graphile tasks: the hourly
 * sweep of idle long logs, and one page's log after its last participant has left (queued by
 * the collaboration server). Both borrow single connections from the job queue's pool:
 * compacting a log runs a transaction of its own, which needs one connection, not a pool.
 */
import type { Task } from 'graphile-worker';
import { compactIdleLogs, compactLogAfterSession, PAGE_LOG_COMPACTION_JOB } from '../../api/documents/logCompaction.ts';
import { isUuid } from '../../api/policies/accessPolicy.ts';

export const LOG_COMPACTION = 'log-compaction';
export { PAGE_LOG_COMPACTION_JOB };

export function logCompactionTask(): Task {
  return async (_payload, helpers) => {
    const compacted = await compactIdleLogs((work) => helpers.withPgClient((client) => work(client)));
    const mergedRows = compacted.reduce((sum, log) => sum + log.mergedRows, 0);
    helpers.logger.info(compacted.length > 0 ? 'idle update logs compacted' : 'no update log to compact', { pages: compacted.length, mergedRows });
  };
}

export function pageLogCompactionTask(): Task {
  return async (payload, helpers) => {
    const pageId = (payload as { pageId?: unknown } | null)?.pageId;
    // A payload no server of ours wrote: retrying would not make it readable.
    if (!isUuid(pageId)) {
      helpers.logger.warn('page-log-compaction job without a page id: skipped');
      return;
    }
    const compacted = await compactLogAfterSession((work) => helpers.withPgClient((client) => work(client)), pageId);
    helpers.logger.info(compacted ? 'update log compacted after its session' : 'update log left as it was', { pageId, mergedRows: compacted?.mergedRows ?? 0 });
  };
}
