/**
 * Notifications from events that happen outside a request: an automatic version (written by
 * the collaboration server) and the mention diff of a saved page (`page_mentions_changed`,
 * announced at commit by the save path, api/documents/derivedData.ts, and heard here in the
 * API process).
 *
 * Both are best effort: the snapshot or the save has committed already, so a failure is
 * logged and never undoes it. A mention announced while the listener's connection is down is
 * lost (NOTIFY is not queued); the mention itself stays in `page_mentions`.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { listenToChannels, type ChannelListener } from '../db/channelListener.ts';
import { PAGE_MENTIONS_CHANGED_CHANNEL } from '../documents/derivedData.ts';
import type { Logger } from '../logger.ts';
import { isUuid } from '../policies/accessPolicy.ts';
import { notifyPageEvent } from './notificationFanOut.ts';

/**
 * `page_changed` for an automatic version, its contributors (who edited since the version
 * before it) as the actors. A version nobody contributed to changed nothing anyone did.
 */
export async function notifyAutomaticVersion(sequelize: Sequelize, versionId: string): Promise<{ notified: number }> {
  const [version] = await sequelize.query<{ page_id: string; contributor_ids: string[] }>(`SELECT page_id, contributor_ids FROM page_versions WHERE id = $1`, {
    bind: [versionId],
    type: QueryTypes.SELECT,
  });
  if (!version || version.contributor_ids.length === 0) return { notified: 0 };
  return notifyPageEvent(sequelize, { type: 'page_changed', pageId: version.page_id, actorIds: version.contributor_ids });
}

export interface MentionsChanged {
  pageId: string;
  pondId: string;
  authorIds: string[];
  addedUserIds: string[];
}

/** The announcement's payload, or null when it is not one the save path sends. */
export function parseMentionsChanged(text: string): MentionsChanged | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const payload = value as Partial<MentionsChanged> | null;
  const ids = (list: unknown) => (Array.isArray(list) && list.every(isUuid) ? (list as string[]) : null);
  if (!payload || !isUuid(payload.pageId) || !isUuid(payload.pondId)) return null;
  const authorIds = ids(payload.authorIds);
  const addedUserIds = ids(payload.addedUserIds);
  if (!authorIds || !addedUserIds) return null;
  return { pageId: payload.pageId, pondId: payload.pondId, authorIds, addedUserIds };
}

/** `mentioned` for the newly mentioned users, never an author of the save (read-checked by the fan-out). */
export async function notifyMentions(sequelize: Sequelize, change: MentionsChanged): Promise<{ notified: number }> {
  const authors = new Set(change.authorIds.map((id) => id.toLowerCase()));
  const recipientIds = change.addedUserIds.filter((id) => !authors.has(id.toLowerCase()));
  if (recipientIds.length === 0) return { notified: 0 };
  return notifyPageEvent(sequelize, { type: 'mentioned', pageId: change.pageId, actorIds: change.authorIds, recipientIds });
}

export interface MentionListener extends ChannelListener {
  /** Resolves once every announcement heard so far has been delivered (tests, shutdown). */
  settled(): Promise<void>;
}

/** Listens on `page_mentions_changed` and delivers each announcement's `mentioned` notifications. */
export function startMentionListener(sequelize: Sequelize, databaseUrl: string, logger: Logger): MentionListener {
  const pending = new Set<Promise<unknown>>();
  const listener = listenToChannels({
    databaseUrl,
    channels: [PAGE_MENTIONS_CHANGED_CHANNEL],
    logger,
    onNotification: (_channel, text) => {
      const change = parseMentionsChanged(text);
      if (!change) {
        logger.warn({ payload: text.slice(0, 200) }, 'ignored a malformed page_mentions_changed announcement');
        return;
      }
      const delivery = notifyMentions(sequelize, change).catch((error: Error) =>
        logger.error({ err: error.message, pageId: change.pageId }, 'delivering mention notifications failed'),
      );
      pending.add(delivery);
      void delivery.finally(() => pending.delete(delivery));
    },
  });
  const settled = async () => {
    while (pending.size > 0) await Promise.all(pending);
  };
  return {
    settled,
    async stop() {
      await listener.stop();
      await settled();
    },
  };
}
