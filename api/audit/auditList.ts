/**
 * The audit log as the system panel lists it (`GET /admin/system/audit`): newest first, keyset
 * paged by (created_at, id), filtered by actor, action and time range (spec: Audit entry).
 *
 * - `actor`: an account id, or a username matched without regard to case against the account
 *   that has it now and against the name each entry kept (the username at the time), so a
 *   deleted account's entries are found by its former name.
 * - `action`: exact, or a prefix when it ends in `*` (`api.*`). LIKE's own wildcards in it are
 *   escaped: `admin_user` must not match `adminXuser`.
 * - `from` inclusive, `to` exclusive, so adjacent ranges neither overlap nor leave gaps.
 *
 * Values are inlined as literals (replacements), so the planner sees a constant LIKE prefix and
 * can use `audit_entries_action_prefix_idx` (migrations 0011, 0015: every filter index ends in
 * (created_at, id), so a filtered page is read off it in order and stops after `limit` rows).
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { isoFromUtcText, type AuditCursor } from '../http/cursorCodec.ts';
import { isUuid } from '../policies/accessPolicy.ts';

export const DEFAULT_AUDIT_LIST_LIMIT = 50;
export const MAX_AUDIT_LIST_LIMIT = 200;

export interface AuditListQuery {
  actor?: string;
  action?: string;
  /** ISO timestamps (api/http/fieldSchemas.ts `isoTimestampField`). */
  from?: string;
  to?: string;
  limit: number;
  cursor?: AuditCursor;
}

export interface AuditEntryView {
  /** The entry's bigint id as text: no digit lost to a JS number. */
  id: string;
  action: string;
  at: string;
  /** Who acted, as recorded then (`username` is the name at the time); null for entries without an actor. */
  actor: { id: string | null; username: string | null } | null;
  ip: string | null;
  details: Record<string, unknown>;
}

export interface AuditListView {
  items: AuditEntryView[];
  nextCursor: string | null;
}

interface AuditRow {
  id: string;
  action: string;
  actor_id: string | null;
  actor_name: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  created_utc: string;
}

/** `api.*` → `api.%` with LIKE's wildcards and escape character in the prefix taken literally. */
export function actionPattern(action: string): { exact: string } | { like: string } {
  if (!action.endsWith('*')) return { exact: action };
  return { like: `${action.slice(0, -1).replace(/[\\%_]/g, (char) => `\\${char}`)}%` };
}

export async function listAuditEntries(sequelize: Sequelize, query: AuditListQuery): Promise<{ items: AuditEntryView[]; next: AuditCursor | null }> {
  const conditions: string[] = [];
  const replacements: Record<string, unknown> = { limit: query.limit + 1 };
  // Alternatives, one of which an entry meets: each is read in order off its own index.
  let actorAlternatives: string[] = [];
  if (query.actor !== undefined) {
    replacements.actor = query.actor;
    actorAlternatives = isUuid(query.actor)
      ? ['a.actor_id = CAST(:actor AS uuid)']
      : ['a.actor_id = (SELECT u.id FROM users u WHERE lower(u.username) = lower(:actor))', 'lower(a.actor_name) = lower(:actor)'];
  }
  if (query.action !== undefined) {
    const pattern = actionPattern(query.action);
    if ('exact' in pattern) {
      replacements.action = pattern.exact;
      conditions.push('a.action = :action');
    } else if (pattern.like !== '%') {
      replacements.action = pattern.like;
      conditions.push(`a.action LIKE :action ESCAPE '\\'`);
    }
  }
  if (query.from !== undefined) {
    replacements.from = query.from;
    conditions.push('a.created_at >= CAST(:from AS timestamptz)');
  }
  if (query.to !== undefined) {
    replacements.to = query.to;
    conditions.push('a.created_at < CAST(:to AS timestamptz)');
  }
  if (query.cursor) {
    replacements.afterCreated = query.cursor.createdKey;
    replacements.afterId = query.cursor.id;
    conditions.push(`(a.created_at, a.id) < (CAST(:afterCreated AS timestamp) AT TIME ZONE 'UTC', CAST(:afterId AS bigint))`);
  }
  const where = (extra: string[]) => (extra.length > 0 ? `WHERE ${extra.join(' AND ')}` : '');
  // The columns, not the text form: the order of audit_entries_keyset_idx that the cursor assumes.
  const order = 'ORDER BY a.created_at DESC, a.id DESC';
  // An actor by username is the account that has the name now or the name an entry kept: an
  // OR of the two would make Postgres collect and sort every entry of the actor. Instead each
  // alternative takes its first page off its index, and the page is the newest of both.
  const from =
    actorAlternatives.length > 1
      ? `audit_entries a WHERE a.id IN (${actorAlternatives.map((alternative) => `(SELECT a.id FROM audit_entries a ${where([alternative, ...conditions])} ${order} LIMIT :limit)`).join(' UNION ')})`
      : `audit_entries a ${where([...actorAlternatives, ...conditions])}`;
  const rows = await sequelize.query<AuditRow>(
    `SELECT a.id::text AS id, a.action, a.actor_id, a.actor_name, a.ip, a.details, (a.created_at AT TIME ZONE 'UTC')::text AS created_utc
       FROM ${from}
      ${order}
      LIMIT :limit`,
    { replacements, type: QueryTypes.SELECT },
  );
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : rows;
  const last = page.at(-1);
  return {
    items: page.map(toView),
    next: more && last ? { createdKey: last.created_utc, id: last.id } : null,
  };
}

function toView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    action: row.action,
    at: isoFromUtcText(row.created_utc),
    actor: row.actor_id === null && row.actor_name === null ? null : { id: row.actor_id, username: row.actor_name },
    ip: row.ip,
    details: row.details,
  };
}
