/**
 * The collab process: started by the supervisor (`npm start`) or alone
 * (`npm run start:collab`) against a shared `DATABASE_URL`.
 */
import { loadConfigOrExit } from '../api/config.ts';
import { createSequelize } from '../api/db/database.ts';
import { createLogger } from '../api/logger.ts';
import { initModels } from '../api/models/index.ts';
import { startCollabServer } from './collabServer.ts';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, 'collab');
if (!config.databaseUrl) {
  logger.fatal('DATABASE_URL is not set: start the whole service with `npm start`, or set DATABASE_URL');
  process.exit(78);
}
const sequelize = createSequelize(config.databaseUrl, { poolMax: 4 });
initModels(sequelize);
const server = await startCollabServer({
  databaseUrl: config.databaseUrl,
  sequelize,
  sessionSecret: config.sessionSecret,
  logger,
  host: config.collab.host,
  port: config.collab.port,
  storeDebounceMs: config.collab.storeDebounceMs,
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'collab stopping');
  // Pending stores and log writes finish first: nothing acknowledged or typed is dropped.
  await server.close().catch((error) => logger.error({ err: (error as Error).message }, 'collab shutdown failed'));
  await sequelize.close().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
