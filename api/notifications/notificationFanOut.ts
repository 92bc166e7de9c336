/**
 * The notification fan-out: one event on a page (a named version, an automatic session-close
 * snapshot, a new comment, a mention) becomes one row per recipient, folded into the
 * recipient's unread, unmailed row of the same type on the same page when there is one.
 *
 * Recipients (spec: Notification rules): the watchers of the page and of its pond, or exactly
 * `recipientIds` for `mentioned`; never an actor; only active accounts that may read the page
 * now. Read permission goes through the policy module (`readersOfPage`): the pond's access
 * data is loaded once, every candidate is resolved against it in memory, so the cost does not
 * grow with queries per recipient. Three statements in all: the page with its candidates and actors, the pond's
 * access data, and one set-based insert.
 *
 * The payload is denormalized so the list, the bell and the digest render without joins. A
 * fold merges the actors (first seen first, at most `MAX_ACTORS`), adds the counts, and takes
 * the latest comment and the latest named version's label.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { isUuid } from '../policies/accessPolicy.ts';
import type { PageState } from '../policies/grantResolution.ts';
import { readersOfPage } from '../policies/pageReaders.ts';
import { loadPondAccess } from '../policies/pondAccessCache.ts';

export type NotificationType = 'page_changed' | 'comment' | 'mentioned';

export interface PageEvent {
  type: NotificationType;
  pageId: string;
  /** Who did it: named in the payload, never notified. */
  actorIds: readonly string[];
  /** `mentioned`: exactly these users (still read-checked, actors still excluded); otherwise the watchers of the page and its pond. */
  recipientIds?: readonly string[];
  versionLabel?: string | null;
  commentId?: string;
  commentExcerpt?: string;
}

export interface NotificationActor {
  id: string;
  displayName: string;
}

export interface NotificationPayload {
  pondName: string;
  pondSlug: string;
  pageTitle: string;
  pageSlug: string;
  actors: NotificationActor[];
  changeCount: number;
  commentCount: number;
  versionLabel?: string | null;
  commentId?: string;
  commentExcerpt?: string;
}

/** Actor names kept per row: enough for "A, B and 12 others"; the counts carry the rest. */
export const MAX_ACTORS = 10;

interface EventTarget {
  id: string;
  pond_id: string;
  title: string;
  slug: string;
  trashed_at: Date | null;
  pond_name: string;
  pond_slug: string;
  actors: NotificationActor[];
  /** [user id, is Site Admin] of every active candidate who is not an actor. */
  candidates: [string, boolean][];
}

// Watchers of the page or its pond (or the named users), active, minus the actors. The actors
// keep the order they were given in, deleted accounts drop out of the names.
const TARGET_SQL = (candidates: string) => `
  SELECT p.id, p.pond_id, p.title, p.slug, p.trashed_at, po.name AS pond_name, po.slug AS pond_slug,
    COALESCE((SELECT json_agg(json_build_object('id', u.id, 'displayName', u.display_name) ORDER BY a.ord)
                FROM unnest($2::uuid[]) WITH ORDINALITY AS a (id, ord) JOIN users u ON u.id = a.id
               WHERE u.status <> 'deleted'), '[]') AS actors,
    COALESCE((SELECT json_agg(json_build_array(u.id, u.is_site_admin))
                FROM users u
               WHERE u.id IN (${candidates}) AND u.status = 'ACTIVE' AND u.id <> ALL ($2::uuid[])), '[]') AS candidates
    FROM pages p JOIN ponds po ON po.id = p.pond_id
   WHERE p.id = $1`;

const WATCHERS = `SELECT w.user_id FROM watches w WHERE w.page_id = p.id
                   UNION SELECT w.user_id FROM watches w WHERE w.target_type = 'pond' AND w.pond_id = p.pond_id`;
const NAMED = `SELECT unnest($3::uuid[])`;

// The versionLabel of an event without one keeps the row's last named label (`||` would
// overwrite it with null); the actors are the row's, then the event's new ones, capped.
const FOLD_SQL = `
  WITH folded AS (
    INSERT INTO notifications (user_id, type, pond_id, page_id, payload)
    SELECT r.user_id, $2, $3, $4, $5::jsonb FROM unnest($1::uuid[]) AS r (user_id)
    ON CONFLICT (user_id, page_id, type) WHERE read_at IS NULL AND mailed_at IS NULL DO UPDATE SET
      payload = notifications.payload || EXCLUDED.payload || jsonb_build_object(
        'actors', (SELECT COALESCE(jsonb_agg(kept.actor ORDER BY kept.ord), '[]'::jsonb)
                     FROM (SELECT firsts.actor, firsts.ord
                             FROM (SELECT DISTINCT ON (every.actor->>'id') every.actor, every.ord
                                     FROM (SELECT e.actor, e.ord FROM jsonb_array_elements(notifications.payload->'actors') WITH ORDINALITY AS e (actor, ord)
                                           UNION ALL
                                           SELECT e.actor, 1000 + e.ord FROM jsonb_array_elements(EXCLUDED.payload->'actors') WITH ORDINALITY AS e (actor, ord)) every
                                    ORDER BY every.actor->>'id', every.ord) firsts
                            ORDER BY firsts.ord LIMIT ${MAX_ACTORS}) kept),
        'changeCount', COALESCE((notifications.payload->>'changeCount')::int, 0) + COALESCE((EXCLUDED.payload->>'changeCount')::int, 0),
        'commentCount', COALESCE((notifications.payload->>'commentCount')::int, 0) + COALESCE((EXCLUDED.payload->>'commentCount')::int, 0))
      || CASE WHEN EXCLUDED.payload->'versionLabel' = 'null'::jsonb AND notifications.payload ? 'versionLabel'
              THEN jsonb_build_object('versionLabel', notifications.payload->'versionLabel') ELSE '{}'::jsonb END,
      updated_at = now()
    RETURNING 1)
  SELECT count(*)::int AS notified FROM folded`;

function payloadOf(event: PageEvent, target: EventTarget): NotificationPayload {
  const payload: NotificationPayload = {
    pondName: target.pond_name,
    pondSlug: target.pond_slug,
    pageTitle: target.title,
    pageSlug: target.slug,
    actors: target.actors.slice(0, MAX_ACTORS),
    changeCount: event.type === 'page_changed' ? 1 : 0,
    commentCount: event.type === 'comment' ? 1 : 0,
  };
  if (event.type === 'page_changed') payload.versionLabel = event.versionLabel ?? null;
  if (event.commentId !== undefined) payload.commentId = event.commentId;
  if (event.commentExcerpt !== undefined) payload.commentExcerpt = event.commentExcerpt;
  return payload;
}

/** Inserts / folds one row per recipient who may read the page now; in `transaction` when given. */
export async function notifyPageEvent(sequelize: Sequelize, event: PageEvent, transaction?: Transaction): Promise<{ notified: number }> {
  if (!isUuid(event.pageId)) return { notified: 0 };
  const actorIds = [...new Set(event.actorIds.filter(isUuid))];
  const named = event.type === 'mentioned' ? [...new Set((event.recipientIds ?? []).filter(isUuid))] : null;
  if (named && named.length === 0) return { notified: 0 };
  const [target] = await sequelize.query<EventTarget>(TARGET_SQL(named ? NAMED : WATCHERS), {
    bind: named ? [event.pageId, actorIds, named] : [event.pageId, actorIds],
    type: QueryTypes.SELECT,
    transaction,
  });
  if (!target || target.candidates.length === 0) return { notified: 0 };
  const access = await loadPondAccess(sequelize, target.pond_id, transaction);
  if (!access) return { notified: 0 };
  const page: PageState = { id: target.id, trashedAt: target.trashed_at ? new Date(target.trashed_at) : null };
  // A fixed order, so two events folding into the same rows take their locks in the same order.
  const candidates = target.candidates.map(([userId, isSiteAdmin]) => ({ userId, isSiteAdmin }));
  const recipients = readersOfPage(access, page, candidates).sort();
  if (recipients.length === 0) return { notified: 0 };
  const [row] = await sequelize.query<{ notified: number }>(FOLD_SQL, {
    bind: [recipients, event.type, target.pond_id, target.id, JSON.stringify(payloadOf(event, target))],
    type: QueryTypes.SELECT,
    transaction,
  });
  return { notified: row?.notified ?? 0 };
}

const PREFERENCE_COLUMN = { ownPages: 'auto_watch_own_pages', onComment: 'auto_watch_on_comment' } as const;

/** Auto-watch: subscribes the user to the page when their preference (`autoWatchOwnPages` | `autoWatchOnComment`) is on. Idempotent. */
export async function autoWatchPage(
  sequelize: Sequelize,
  input: { userId: string; pageId: string; pondId: string; preference: 'ownPages' | 'onComment' },
  transaction?: Transaction,
): Promise<void> {
  const column = PREFERENCE_COLUMN[input.preference];
  await sequelize.query(
    `INSERT INTO watches (user_id, target_type, pond_id, page_id)
     SELECT u.id, 'page', $2, $3 FROM users u WHERE u.id = $1 AND u.${column}
     ON CONFLICT (user_id, target_type, pond_id, page_id) DO NOTHING`,
    { bind: [input.userId, input.pondId, input.pageId], transaction },
  );
}
