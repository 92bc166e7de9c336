/**
 * The API process: Express + the Astro site on one port. Started by the supervisor
 * (`npm start`) or alone (`npm run start:api`) against a shared `DATABASE_URL`.
 */
import { createServer } from 'node:http';
import { createApp } from './app.ts';
import { bootstrapServices } from './bootstrap.ts';
import { loadConfigOrExit } from './config.ts';
import { attachCollabProxy } from './http/collabProxy.ts';
import { createLogger } from './logger.ts';
import { startMentionListener } from './notifications/eventNotifications.ts';
import { startAccessChangeListener } from './policies/accessChangeListener.ts';
import { startPublicLayer } from './publicPages/publicLayer.ts';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
if (!config.databaseUrl) {
  logger.fatal('DATABASE_URL is not set: start the whole service with `npm start`, or set DATABASE_URL');
  process.exit(78);
}

const services = await bootstrapServices(config, config.databaseUrl, logger);
const accessChanges = startAccessChangeListener(config.databaseUrl, logger);
const mentions = startMentionListener(services.sequelize, config.databaseUrl, logger);
const app = await createApp(services, { site: process.env.DT_SITE !== 'off' });
const publicLayer = startPublicLayer(services, config.databaseUrl);
const server = createServer(publicLayer.listener(app));
const collabProxy = attachCollabProxy(server, () => config.collab, logger);
server.listen(config.port, config.host, () => logger.info({ port: config.port, baseUrl: config.baseUrl }, 'api listening'));

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'api stopping');
  server.close();
  server.closeIdleConnections();
  setTimeout(() => {
    server.closeAllConnections();
    collabProxy.closeTunnels();
  }, 5000).unref();
  await accessChanges.stop();
  await mentions.stop();
  await publicLayer.stop();
  await services.sequelize.close().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
