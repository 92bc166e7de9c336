/**
 * The hourly update-log compaction (api/documents/logCompaction.ts) as a Graphile task. It
 * borrows single connections from the job queue's pool: compacting a log runs a transaction
 * of its own, which needs one connection, not a pool.
 */
import type { Task } from 'graphile-worker';
import { compactIdleLogs } from '../../api/documents/logCompaction.ts';

export const LOG_COMPACTION = 'log-compaction';

export function logCompactionTask(): Task {
  return async (_payload, helpers) => {
    const compacted = await compactIdleLogs((work) => helpers.withPgClient((client) => work(client)));
    const mergedRows = compacted.reduce((sum, log) => sum + log.mergedRows, 0);
    helpers.logger.info(compacted.length > 0 ? 'idle update logs compacted' : 'no update log to compact', { pages: compacted.length, mergedRows });
  };
}
