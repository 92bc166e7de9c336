/**
 * The public layer of one API process: the document cache, kept in step with every process's
 * changes (`public_documents_changed`) and this process's own commits, and the request
 * listener that puts the hot path in front of the Express app.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { listenToChannels } from '../db/channelListener.ts';
import type { AppServices } from '../services.ts';
import { PublicDocumentCache } from './publicDocumentCache.ts';
import { onLocalDocumentChanges, PUBLIC_DOCUMENTS_CHANNEL } from './publicDocumentStore.ts';
import { createPublicHotPath } from './publicHotPath.ts';

export interface PublicLayer {
  cache: PublicDocumentCache;
  /** The server's request listener: the hot path first, then `app`. */
  listener: (app: RequestListener) => RequestListener;
  stop: () => Promise<void>;
}

export function startPublicLayer(services: AppServices, databaseUrl: string): PublicLayer {
  const cache = new PublicDocumentCache(services.config.publicCacheBytes);
  const stopLocal = onLocalDocumentChanges((changes) => changes.forEach((change) => cache.invalidate(change)));
  const channel = listenToChannels({
    databaseUrl,
    channels: [PUBLIC_DOCUMENTS_CHANNEL],
    logger: services.logger,
    onNotification: (_channel, change) => cache.invalidate(change || '*'),
    // Changes made while the connection was down are unknown: start from a clean cache.
    onConnected: () => cache.invalidate('*'),
    onDisconnected: () => cache.invalidate('*'),
  });
  const hotPath = createPublicHotPath({
    generation: { sequelize: services.sequelize, fallbackBaseUrl: services.config.baseUrl },
    cache,
    https: services.config.baseUrl.startsWith('https:'),
    logger: services.logger,
  });
  return {
    cache,
    listener: (app) => (req: IncomingMessage, res: ServerResponse) => hotPath(req, res, () => app(req, res)),
    stop: async () => {
      stopLocal();
      await channel.stop();
    },
  };
}
