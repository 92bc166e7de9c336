/**
 * The per-process permission cache: one `PondAccessData` per pond, loaded in one query and
 * kept until the pond's grants, members, label tree, label assignments or trash state
 * change. Every such change calls `announceAccessChange` inside its transaction: that
 * emits `NOTIFY pond_access_changed` (delivered at commit, to every process, including the
 * collaboration server) and drops this process's entry once the transaction commits.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PondKind } from '../models/index.ts';
import { revokeLostPublicDocuments } from '../publicPages/publicAccessRevocation.ts';
import type { GrantRule, PondAccessData } from './grantResolution.ts';

export const ACCESS_CHANNEL = 'pond_access_changed';

const MAX_CACHED_PONDS = 2_000;
// A safety net for a notification lost while a listener reconnects.
const ENTRY_TTL_MS = 5 * 60_000;

interface CacheEntry {
  data: PondAccessData;
  loadedAt: number;
}

const entries = new Map<string, CacheEntry>();
/** Bumped on every invalidation, so a load that raced with a change never gets stored. */
const generations = new Map<string, number>();
let globalGeneration = 0;

interface AccessRow {
  id: string;
  kind: PondKind;
  owner_id: string | null;
  trashed_at: Date | null;
  grants: {
    id: string;
    subject_type: GrantRule['subjectType'];
    subject_user_id: string | null;
    role: GrantRule['role'];
    scope_type: GrantRule['scopeType'];
    scope_label_id: string | null;
    scope_page_id: string | null;
    effect: GrantRule['effect'];
  }[];
  labels: [string, string | null][];
  page_labels: [string, string[]][];
}

const LOAD_SQL = `
  SELECT p.id, p.kind, p.owner_id, p.trashed_at,
    COALESCE((SELECT json_agg(json_build_object(
        'id', g.id, 'subject_type', g.subject_type, 'subject_user_id', g.subject_user_id, 'role', g.role,
        'scope_type', g.scope_type, 'scope_label_id', g.scope_label_id, 'scope_page_id', g.scope_page_id,
        'effect', g.effect)) FROM grants g WHERE g.pond_id = p.id), '[]') AS grants,
    COALESCE((SELECT json_agg(json_build_array(l.id, l.parent_id)) FROM labels l WHERE l.pond_id = p.id), '[]') AS labels,
    COALESCE((SELECT json_agg(json_build_array(pl.page_id, pl.label_ids))
                FROM (SELECT page_id, array_agg(label_id) AS label_ids FROM page_labels
                       WHERE pond_id = p.id GROUP BY page_id) pl), '[]') AS page_labels
    FROM ponds p WHERE p.id IN (:pondIds)`;

function toAccessData(row: AccessRow): PondAccessData {
  return {
    pondId: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    trashedAt: row.trashed_at ? new Date(row.trashed_at) : null,
    grants: row.grants.map((grant) => ({
      id: grant.id,
      subjectType: grant.subject_type,
      subjectUserId: grant.subject_user_id,
      role: grant.role,
      scopeType: grant.scope_type,
      scopeLabelId: grant.scope_label_id,
      scopePageId: grant.scope_page_id,
      effect: grant.effect,
    })),
    labelParents: new Map(row.labels),
    pageLabels: new Map(row.page_labels),
  };
}

function cachedEntry(pondId: string): PondAccessData | null {
  const cached = entries.get(pondId);
  if (!cached || Date.now() - cached.loadedAt >= ENTRY_TTL_MS) return null;
  // Keep recently used ponds at the end of the insertion order (least recently used first).
  entries.delete(pondId);
  entries.set(pondId, cached);
  return cached.data;
}

/**
 * The access data of several ponds (missing ponds are absent from the result), loading every
 * uncached one in a single query. Inside a transaction it always reads fresh rows (the
 * transaction may have changed them) and caches nothing.
 */
export async function loadPondAccessMany(sequelize: Sequelize, pondIds: readonly string[], transaction?: Transaction): Promise<Map<string, PondAccessData>> {
  const found = new Map<string, PondAccessData>();
  const missing: string[] = [];
  for (const pondId of new Set(pondIds)) {
    const cached = transaction ? null : cachedEntry(pondId);
    if (cached) found.set(pondId, cached);
    else missing.push(pondId);
  }
  if (missing.length === 0) return found;
  const startedGenerations = new Map(missing.map((pondId) => [pondId, generations.get(pondId) ?? 0]));
  const startedGlobal = globalGeneration;
  const rows = await sequelize.query<AccessRow>(LOAD_SQL, { replacements: { pondIds: missing }, type: QueryTypes.SELECT, transaction });
  for (const row of rows) {
    const data = toAccessData(row);
    found.set(row.id, data);
    const unchanged = startedGenerations.get(row.id) === (generations.get(row.id) ?? 0) && startedGlobal === globalGeneration;
    if (!transaction && unchanged) {
      entries.set(row.id, { data, loadedAt: Date.now() });
      if (entries.size > MAX_CACHED_PONDS) entries.delete(entries.keys().next().value!);
    }
  }
  return found;
}

/** The access data of one pond, or null when the pond does not exist. */
export async function loadPondAccess(sequelize: Sequelize, pondId: string, transaction?: Transaction): Promise<PondAccessData | null> {
  return (await loadPondAccessMany(sequelize, [pondId], transaction)).get(pondId) ?? null;
}

/** Forgets one pond's access data in this process. */
export function invalidatePondAccess(pondId: string): void {
  entries.delete(pondId);
  generations.set(pondId, (generations.get(pondId) ?? 0) + 1);
}

/** Forgets everything (e.g. after the change listener lost its connection). */
export function invalidateAllPondAccess(): void {
  entries.clear();
  generations.clear();
  globalGeneration += 1;
}

/**
 * Call inside the transaction that changes a pond's grants, members, labels, label
 * assignments or trash state. The notification is sent only if the transaction commits.
 */
export async function announceAccessChange(pondId: string, transaction: Transaction): Promise<void> {
  const sequelize = (transaction as unknown as { sequelize: Sequelize }).sequelize;
  await sequelize.query(`SELECT pg_notify('${ACCESS_CHANNEL}', :pondId)`, { replacements: { pondId }, transaction });
  invalidatePondAccess(pondId);
  transaction.afterCommit(() => invalidatePondAccess(pondId));
  // Public documents the change takes from the public go in the same transaction.
  await revokeLostPublicDocuments(pondId, transaction);
}
