import type { Sequelize } from 'sequelize';
import type { AppConfig } from './config.ts';
import type { Logger } from './logger.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SearchEngine } from './search/searchEngine.ts';

/** What route handlers and commands get from the running process. */
export interface AppServices {
  config: AppConfig;
  sequelize: Sequelize;
  logger: Logger;
  mailer: Mailer;
  /** Page search (api/search/searchEngine.ts); Postgres full-text search by default. */
  search: SearchEngine;
}
