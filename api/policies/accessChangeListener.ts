/**
 * Listens on `pond_access_changed` so that a change made by another process (another API
 * instance, a job) drops this process's cached access data. While the connection is down we
 * may miss notifications: forget everything, and again once it is back.
 */
import { listenToChannels, type ChannelListener } from '../db/channelListener.ts';
import type { Logger } from '../logger.ts';
import { ACCESS_CHANNEL, invalidateAllPondAccess, invalidatePondAccess } from './pondAccessCache.ts';

export type AccessChangeListener = ChannelListener;

export function startAccessChangeListener(
  databaseUrl: string,
  logger: Logger,
  onChange?: (pondId: string) => void,
  onResync?: () => void,
): AccessChangeListener {
  return listenToChannels({
    databaseUrl,
    channels: [ACCESS_CHANNEL],
    logger,
    onNotification: (_channel, pondId) => {
      if (!pondId) return;
      invalidatePondAccess(pondId);
      onChange?.(pondId);
    },
    onDisconnected: invalidateAllPondAccess,
    onConnected: () => {
      // Changes made while we were away are unknown: start from a clean cache.
      invalidateAllPondAccess();
      onResync?.();
    },
  });
}
