/**
 * One Postgres connection that LISTENs on a set of channels and survives connection loss:
 * it reconnects with backoff and calls `onReconnect`, because notifications sent while it
 * was away are lost and the caller must resynchronise (drop caches, re-check state).
 */
import pg from 'pg';
import type { Logger } from '../logger.ts';

export interface ChannelListener {
  stop(): Promise<void>;
}

export interface ChannelListenerOptions {
  databaseUrl: string;
  channels: readonly string[];
  logger: Logger;
  onNotification: (channel: string, payload: string) => void;
  /** After every (re)connect, once LISTEN is in place. */
  onConnected?: () => void;
  /** When the connection is lost: notifications may be missed until the next onConnected. */
  onDisconnected?: () => void;
}

export function listenToChannels(options: ChannelListenerOptions): ChannelListener {
  const { databaseUrl, channels, logger } = options;
  let client: pg.Client | null = null;
  let stopped = false;
  let retryDelay = 500;
  let retryTimer: NodeJS.Timeout | null = null;

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    client = null;
    options.onDisconnected?.();
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 30_000);
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('error', (error) => {
      logger.warn({ err: error.message, channels }, 'notification listener lost its connection');
      scheduleReconnect();
    });
    next.on('end', scheduleReconnect);
    next.on('notification', (message) => {
      if (channels.includes(message.channel)) options.onNotification(message.channel, message.payload ?? '');
    });
    try {
      await next.connect();
      for (const channel of channels) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (stopped) {
        next.removeAllListeners('end');
        await next.end();
        return;
      }
      client = next;
      retryDelay = 500;
      options.onConnected?.();
    } catch (error) {
      logger.warn({ err: (error as Error).message, channels }, 'notification listener could not connect');
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
