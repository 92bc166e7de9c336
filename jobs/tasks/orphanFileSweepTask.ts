/**
 * The nightly orphan-file sweep with the integrity-hash backfill (api/files/orphanSweep.ts) as
 * a Graphile task: from the crontab, or when a Site Admin runs it by hand. The log line counts;
 * file ids of missing bytes are logged by the sweep itself.
 */
import type { Task } from 'graphile-worker';
import type { Sequelize } from 'sequelize';
import { sweepOrphanFiles } from '../../api/files/orphanSweep.ts';
import type { Logger } from '../../api/logger.ts';

export const ORPHAN_FILE_SWEEP = 'orphan-file-sweep';

export function orphanFileSweepTask(dependencies: { sequelize: Sequelize; dataDir: string; logger: Logger }): Task {
  return async (_payload, helpers) => {
    const started = performance.now();
    const { skipped, ...counts } = await sweepOrphanFiles(dependencies.sequelize, { dataDir: dependencies.dataDir, logger: dependencies.logger });
    const durationMs = Math.round(performance.now() - started);
    if (skipped) helpers.logger.info('orphan-file sweep already running elsewhere', { skipped });
    else helpers.logger.info('orphan-file sweep done', { ...counts, durationMs });
  };
}
