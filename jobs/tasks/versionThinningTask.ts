/** The daily version thinning (api/documents/versionThinning.ts) as a Graphile task. */
import type { Task } from 'graphile-worker';
import type { Sequelize } from 'sequelize';
import { thinVersions } from '../../api/documents/versionThinning.ts';

export const VERSION_THINNING = 'version-thinning';

export function versionThinningTask(sequelize: Sequelize): Task {
  return async (_payload, helpers) => {
    const { deleted } = await thinVersions(sequelize);
    helpers.logger.info(deleted > 0 ? 'old automatic versions thinned' : 'no versions to thin', { deleted });
  };
}
