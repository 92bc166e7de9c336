/** The daily refresh of the search lexicon (api/search/searchLexicon.ts) as a Graphile task. */
import type { Task } from 'graphile-worker';
import type { Sequelize } from 'sequelize';
import { refreshSearchLexicon } from '../../api/search/searchLexicon.ts';

export const SEARCH_LEXICON_REFRESH = 'search-lexicon-refresh';

export function searchLexiconTask(sequelize: Sequelize): Task {
  return async (_payload, helpers) => {
    const { added, removed } = await refreshSearchLexicon(sequelize);
    helpers.logger.info('search lexicon refreshed', { added, removed });
  };
}
