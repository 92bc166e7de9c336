/**
 * The notification digest (spec: Notifications and mail; run every 15 minutes by the worker,
 * jobs/tasks/notificationDigestTask.ts, or by a Site Admin's manual trigger). A user is due
 * once their oldest unread, unmailed notification is older than their cadence (`hourly` 1 h,
 * `daily` 24 h, `off` never); a due user gets one mail with all their unread, unmailed
 * notifications, grouped per pond and page (api/mail/digestMail.ts).
 *
 * Read permission is checked again before anything is mailed: an entry whose page the user can
 * no longer read, or whose page or pond is in the trash, is left out and still marked handled
 * (`mailed_at`), so it is never looked at again; sent entries are marked mailed and stay unread.
 * A user left with nothing readable gets no mail. A failed mail leaves that user's readable
 * entries unmailed, so the next run tries again, and does not stop the others.
 *
 * Built for many users: users are read in batches (keyset by id, only those due), each batch's
 * notifications in one query, each pond's access data once per run (fresh: the worker keeps no
 * listener that would tell it of access changes), mails through one pooled transport, and the
 * handled rows marked in one statement per batch. A row folded into (a new event on the page)
 * after it was read is not marked: its newer events go out with the next digest.
 *
 * One run at a time: the run holds a transaction-scoped advisory lock; a second run that starts
 * meanwhile (another worker, a manual trigger racing the schedule) finds it taken and ends.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { signUnsubscribeToken } from '../auth/unsubscribeTokens.ts';
import { isLocale, type Locale } from '../i18n/locale.ts';
import type { Logger } from '../logger.ts';
import { groupDigestItems, renderDigestMail, type DigestEntry, type DigestEntryType, type DigestItem } from '../mail/digestMail.ts';
import { MailBatch } from '../mail/mailBatch.ts';
import type { Mailer } from '../mail/mailer.ts';
import { SubjectAccess, type PondAccessData } from '../policies/grantResolution.ts';
import { loadPondAccessMany } from '../policies/pondAccessCache.ts';
import { getSetting } from '../settings/instanceSettings.ts';

/** The Graphile Worker task identifier (jobs/taskList.ts, jobs/crontab.ts). */
export const NOTIFICATION_DIGEST_TASK = 'notification-digest';
export const DIGEST_MAIL_KIND = 'notification_digest';

/** Users per batch: one notification query, one batch of mails and one marking statement each. */
const USERS_PER_BATCH = 500;
/**
 * Failed mails in a row after which the run stops: the relay is down or refusing everything,
 * and trying thousands more would only fill the log. The job fails (and is retried); nothing
 * unsent was marked.
 */
const RELAY_FAILURE_LIMIT = 20;

export interface DigestDependencies {
  sequelize: Sequelize;
  mailer: Mailer;
  /** `BASE_URL`: the origin of mailed links when setup saved none. */
  baseUrl: string;
  /** Keys the unsubscribe links (api/auth/unsubscribeTokens.ts). */
  sessionSecret: string;
  logger: Logger;
}

export interface DigestOutcome {
  /** Why nothing was looked at: another run holds the lock, or no relay is configured. */
  skipped: 'already_running' | 'not_configured' | null;
  /** Due users looked at. */
  users: number;
  mailsSent: number;
  mailsFailed: number;
  /** Due users whose entries were all dropped: no mail, entries marked. */
  nothingReadable: number;
  entriesMailed: number;
  entriesDropped: number;
}

export class RelayFailingError extends Error {
  override name = 'RelayFailingError';
}

interface DueUser {
  id: string;
  email: string;
  displayName: string;
  locale: string | null;
  frequency: 'hourly' | 'daily';
  isSiteAdmin: boolean;
}

interface PendingRow {
  id: string;
  userId: string;
  type: DigestEntryType;
  pondId: string;
  pageId: string;
  payload: unknown;
  /** The row's version (`xmin`): a fold after this read changes it. */
  version: string;
  pageTitle: string;
  pageSlug: string;
  pageTrashedAt: Date | null;
  pondName: string;
  pondSlug: string;
}

/** A handled row as read: marked only if nothing changed it since. */
type Handled = Pick<PendingRow, 'id' | 'version'>;

const DUE_USERS_SQL = `
  SELECT u.id, u.email, u.display_name AS "displayName", u.locale, u.digest_frequency AS frequency, u.is_site_admin AS "isSiteAdmin"
    FROM users u
   WHERE u.status = 'ACTIVE' AND u.digest_frequency IN ('hourly', 'daily') AND u.email <> '' AND u.id > :after
     AND EXISTS (
       SELECT 1 FROM notifications n
        WHERE n.user_id = u.id AND n.read_at IS NULL AND n.mailed_at IS NULL
          AND n.created_at <= CAST(:now AS timestamptz) - CASE u.digest_frequency WHEN 'daily' THEN interval '24 hours' ELSE interval '1 hour' END)
   ORDER BY u.id
   LIMIT :limit`;

const PENDING_SQL = `
  SELECT n.id, n.user_id AS "userId", n.type, n.pond_id AS "pondId", n.page_id AS "pageId", n.payload, n.xmin::text AS version,
         p.title AS "pageTitle", p.slug AS "pageSlug", p.trashed_at AS "pageTrashedAt", o.name AS "pondName", o.slug AS "pondSlug"
    FROM notifications n
    JOIN pages p ON p.id = n.page_id
    JOIN ponds o ON o.id = n.pond_id
   WHERE n.user_id IN (:userIds) AND n.read_at IS NULL AND n.mailed_at IS NULL`;

const MARK_SQL = `
  UPDATE notifications AS n SET mailed_at = now()
    FROM unnest(ARRAY[:ids]::uuid[], ARRAY[:versions]::text[]) AS handled (id, version)
   WHERE n.id = handled.id AND n.xmin::text = handled.version AND n.mailed_at IS NULL`;

/** Runs the digest once, under the run lock. Throws `RelayFailingError` when the relay keeps failing. */
export async function runNotificationDigest(dependencies: DigestDependencies, options: { usersPerBatch?: number } = {}): Promise<DigestOutcome> {
  const { sequelize } = dependencies;
  const lock = await sequelize.transaction();
  try {
    const [row] = await sequelize.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext(:key)) AS locked', {
      replacements: { key: `job-run:${NOTIFICATION_DIGEST_TASK}` },
      type: QueryTypes.SELECT,
      transaction: lock,
    });
    if (!row?.locked) return emptyOutcome('already_running');
    return await digestDueUsers(dependencies, options.usersPerBatch ?? USERS_PER_BATCH);
  } finally {
    // Nothing was written in it: ending it only releases the lock.
    await lock.rollback();
  }
}

function emptyOutcome(skipped: DigestOutcome['skipped']): DigestOutcome {
  return { skipped, users: 0, mailsSent: 0, mailsFailed: 0, nothingReadable: 0, entriesMailed: 0, entriesDropped: 0 };
}

interface RunContext {
  origin: string;
  instanceName: string;
  defaultLocale: Locale;
  sessionSecret: string;
}

async function digestDueUsers(dependencies: DigestDependencies, usersPerBatch: number): Promise<DigestOutcome> {
  const { sequelize, logger } = dependencies;
  const relay = await dependencies.mailer.smtpSettings();
  if (!relay) return emptyOutcome('not_configured');
  const [savedBaseUrl, instanceName, defaultLocale] = await Promise.all([getSetting('instance.baseUrl'), getSetting('instance.name'), getSetting('instance.defaultLocale')]);
  const context: RunContext = { origin: savedBaseUrl ?? dependencies.baseUrl, instanceName, defaultLocale, sessionSecret: dependencies.sessionSecret };
  // One moment for the whole run, so a user does not become due halfway through it.
  const [{ now }] = (await sequelize.query<{ now: Date }>('SELECT now() AS now', { type: QueryTypes.SELECT })) as [{ now: Date }];
  const outcome = emptyOutcome(null);
  const pondAccess = new Map<string, PondAccessData | null>();
  const batch = new MailBatch(relay, logger);
  let failuresInARow = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  // A batch's marking runs while the next batch is read and sent (the keyset never reads its rows
  // again); it settles to its error, if any, so a failure waits for the next look instead of going unhandled.
  let marking: Promise<unknown> = Promise.resolve(null);
  const markingDone = async () => {
    const failure = await marking;
    if (failure) throw failure;
  };
  try {
    for (;;) {
      const users = await sequelize.query<DueUser>(DUE_USERS_SQL, { replacements: { after, now, limit: usersPerBatch }, type: QueryTypes.SELECT });
      if (users.length === 0) break;
      after = users.at(-1)!.id;
      outcome.users += users.length;
      const rows = await sequelize.query<PendingRow>(PENDING_SQL, { replacements: { userIds: users.map((user) => user.id) }, type: QueryTypes.SELECT });
      await loadPondAccess(sequelize, pondAccess, rows);
      const rowsByUser = Map.groupBy(rows, (row) => row.userId);

      const handled: Handled[] = [];
      const sends = users.map(async (user) => {
        const { readable, dropped } = splitReadable(user, rowsByUser.get(user.id) ?? [], pondAccess);
        handled.push(...dropped);
        outcome.entriesDropped += dropped.length;
        if (readable.length === 0) {
          outcome.nothingReadable += 1;
          return true;
        }
        try {
          await batch.send(digestMailFor(user, readable, context));
        } catch (error) {
          logger.warn({ userId: user.id, err: error }, 'digest mail not sent; its entries stay pending');
          outcome.mailsFailed += 1;
          return false;
        }
        handled.push(...readable);
        outcome.mailsSent += 1;
        outcome.entriesMailed += readable.length;
        return true;
      });
      for (const sent of await Promise.all(sends)) failuresInARow = sent ? 0 : failuresInARow + 1;
      await markingDone();
      marking = markHandled(sequelize, handled).then(() => batch.flushRecords()).then(() => null, (error: unknown) => error ?? new Error('marking failed'));
      if (failuresInARow >= RELAY_FAILURE_LIMIT) throw new RelayFailingError(`${failuresInARow} digest mails in a row failed; stopped until the next run`);
      if (users.length < usersPerBatch) break;
    }
  } finally {
    // Settled before the run ends, also when it stops early: what was sent is marked.
    await marking;
    batch.close();
  }
  await markingDone();
  return outcome;
}

/** Loads the access data of the ponds this batch names that the run has not loaded yet, in one query. */
async function loadPondAccess(sequelize: Sequelize, known: Map<string, PondAccessData | null>, rows: readonly PendingRow[]): Promise<void> {
  const missing = [...new Set(rows.map((row) => row.pondId))].filter((pondId) => !known.has(pondId));
  if (missing.length === 0) return;
  // Inside a transaction the loader reads fresh rows and bypasses the process cache.
  const loaded = await sequelize.transaction((transaction) => loadPondAccessMany(sequelize, missing, transaction));
  for (const pondId of missing) known.set(pondId, loaded.get(pondId) ?? null);
}

function splitReadable(user: DueUser, rows: readonly PendingRow[], pondAccess: Map<string, PondAccessData | null>): { readable: PendingRow[]; dropped: PendingRow[] } {
  const subject = { userId: user.id, signedIn: true, isSiteAdmin: user.isSiteAdmin };
  const accessByPond = new Map<string, SubjectAccess | null>();
  const readable: PendingRow[] = [];
  const dropped: PendingRow[] = [];
  for (const row of rows) {
    let access = accessByPond.get(row.pondId);
    if (access === undefined) {
      const data = pondAccess.get(row.pondId);
      access = data && !data.trashedAt ? new SubjectAccess(data, subject) : null;
      accessByPond.set(row.pondId, access);
    }
    const mayRead = access !== null && row.pageTrashedAt === null && access.page({ id: row.pageId, trashedAt: null }, 'read').allowed;
    (mayRead ? readable : dropped).push(row);
  }
  return { readable, dropped };
}

function digestMailFor(user: DueUser, rows: readonly PendingRow[], context: RunContext) {
  const locale = isLocale(user.locale) ? user.locale : context.defaultLocale;
  const items: DigestItem[] = rows.map((row) => ({
    pondId: row.pondId,
    pondName: row.pondName,
    pageId: row.pageId,
    pageTitle: row.pageTitle,
    pageUrl: `${context.origin}/${encodeURIComponent(row.pondSlug)}/${encodeURIComponent(row.pageSlug)}`,
    entry: entryOf(row.type, row.payload),
  }));
  const token = signUnsubscribeToken(context.sessionSecret, user.id);
  const mail = renderDigestMail(
    {
      displayName: user.displayName,
      instanceName: context.instanceName,
      frequency: user.frequency,
      ponds: groupDigestItems(items, locale),
      settingsUrl: `${context.origin}/settings`,
      unsubscribeUrl: `${context.origin}/api/v1/unsubscribe?token=${encodeURIComponent(token)}`,
    },
    locale,
  );
  return { to: user.email, kind: DIGEST_MAIL_KIND, ...mail };
}

/** The payload as the fan-out writes it (api/notifications/notificationFanOut.ts), read without trusting its shape. */
function entryOf(type: DigestEntryType, payload: unknown): DigestEntry {
  const fields = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const actors = Array.isArray(fields.actors)
    ? fields.actors.map((actor: unknown) => (typeof actor === 'object' && actor !== null ? (actor as { displayName?: unknown }).displayName : undefined)).filter((name): name is string => typeof name === 'string' && name !== '')
    : [];
  return {
    type,
    actors,
    changeCount: count(fields.changeCount),
    commentCount: count(fields.commentCount),
    versionLabel: typeof fields.versionLabel === 'string' ? fields.versionLabel : null,
    commentExcerpt: typeof fields.commentExcerpt === 'string' ? fields.commentExcerpt : undefined,
  };
}

async function markHandled(sequelize: Sequelize, handled: readonly Handled[]): Promise<void> {
  if (handled.length === 0) return;
  await sequelize.query(MARK_SQL, { replacements: { ids: handled.map((row) => row.id), versions: handled.map((row) => row.version) } });
}
