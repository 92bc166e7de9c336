/**
 * Connects to the database, applies pending migrations and wires the services a process
 * needs. Used by the API entry point and the test harness.
 */
import type { AppConfig } from './config.ts';
import { createSequelize } from './db/database.ts';
import { migrateToLatest } from './db/migrator.ts';
import { createLogger, type Logger } from './logger.ts';
import { Mailer } from './mail/mailer.ts';
import { postgresSearchEngine } from './search/postgresSearch.ts';
import { initModels } from './models/index.ts';
import type { AppServices } from './services.ts';

export async function bootstrapServices(config: AppConfig, databaseUrl: string, logger: Logger = createLogger(config.logLevel)): Promise<AppServices> {
  const sequelize = createSequelize(databaseUrl);
  initModels(sequelize);
  const applied = await migrateToLatest(databaseUrl, sequelize);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const mailer = new Mailer({ fallback: config.smtpFallback, logger });
  return { config, sequelize, logger, mailer, search: postgresSearchEngine(sequelize) };
}
