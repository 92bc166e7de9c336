/**
 * Listens on `pond_access_changed` so that a change made by another process (another API
 * instance, a job) drops this process's cached access data. When the connection drops, we
 * may have missed notifications: forget everything and reconnect with backoff.
 */
import pg from 'pg';
import type { Logger } from '../logger.ts';
import { ACCESS_CHANNEL, invalidateAllPondAccess, invalidatePondAccess } from './pondAccessCache.ts';

export interface AccessChangeListener {
  stop(): Promise<void>;
}

export function startAccessChangeListener(databaseUrl: string, logger: Logger, onChange?: (pondId: string) => void): AccessChangeListener {
  let client: pg.Client | null = null;
  let stopped = false;
  let retryDelay = 500;
  let retryTimer: NodeJS.Timeout | null = null;

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    invalidateAllPondAccess();
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30_000);
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('error', (error) => {
      logger.warn({ err: error.message }, 'access change listener lost its connection');
      scheduleReconnect();
    });
    next.on('end', scheduleReconnect);
    next.on('notification', (message) => {
      if (message.channel !== ACCESS_CHANNEL || !message.payload) return;
      invalidatePondAccess(message.payload);
      onChange?.(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${ACCESS_CHANNEL}`);
      if (stopped) {
        await next.end();
        return;
      }
      client = next;
      retryDelay = 500;
      // Changes made while we were away are unknown: start from a clean cache.
      invalidateAllPondAccess();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'access change listener could not connect');
      next.removeAllListeners('end');
      await next.end().catch(() => undefined);
      scheduleReconnect();
    }
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = null;
      if (current) {
        current.removeAllListeners('end');
        await current.end().catch(() => undefined);
      }
    },
  };
}
