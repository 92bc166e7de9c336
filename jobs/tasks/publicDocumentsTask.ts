/** Regenerates the public documents queued by changes (api/publicPages/publicDocumentJob.ts). */
import type { Task } from 'graphile-worker';
import type { Sequelize } from 'sequelize';
import type { Logger } from '../../api/logger.ts';
import { runQueuedRegeneration } from '../../api/publicPages/publicDocumentJob.ts';
import { PUBLIC_DOCUMENTS_JOB } from '../../api/publicPages/publicDocumentQueue.ts';

export { PUBLIC_DOCUMENTS_JOB };

export function publicDocumentsTask(dependencies: { sequelize: Sequelize; baseUrl: string; logger: Logger }): Task {
  return async (_payload, helpers) => {
    const report = await runQueuedRegeneration({ sequelize: dependencies.sequelize, fallbackBaseUrl: dependencies.baseUrl }, dependencies.logger);
    if (report.generated > 0) helpers.logger.info('public documents regenerated', { ...report });
  };
}
