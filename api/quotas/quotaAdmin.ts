/**
 * The Site Admin's view of the quota ladder for one user or one pond, and setting or
 * clearing an override (ARCHITECTURE: Administration; docs/quotas.md).
 *
 * An override is reported as `{ value }` when one is set (`value: null`: unlimited on
 * purpose) and as `null` when there is none (the next rung of the ladder applies), so
 * "no override" and "overridden to unlimited" never look alike.
 *
 * Writes lock the target's row, so concurrent writes to one target are serialized and the
 * audit's `previous` is the value really replaced. A write that changes nothing (the same
 * value again, clearing where nothing is set) is not audited.
 */
import { Op, type Sequelize, type Transaction } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { findUserByLogin } from '../commands/membershipCommands.ts';
import { notFound } from '../http/apiError.ts';
import { Pond, QuotaOverride, User, type QuotaName } from '../models/index.ts';
import { climbLadder, instanceDefault, QUOTA_NAMES, type OverrideValue, type QuotaSource } from './quotaLadder.ts';
import { largestUploadNow, measurePond, pondRefOf, usedOf, type PondUsage, type QuotaUsage } from './quotaUsage.ts';

export type QuotaTargetType = 'user' | 'pond';

export interface QuotaTargetView {
  type: QuotaTargetType;
  id: string;
  /** A user's username, a pond's name. */
  name: string;
  /** Pond targets: the slug and the owner whose user override is the pond's second rung. */
  slug?: string;
  owner?: { id: string; username: string } | null;
  /** User targets: the display name. */
  displayName?: string;
}

export interface QuotaRowView {
  quota: QuotaName;
  override: OverrideValue | null;
  default: number | null;
  effective: number | null;
  /** Which rung decided `effective`. */
  source: QuotaSource;
  usage: QuotaUsage;
}

export interface QuotaReport {
  target: QuotaTargetView;
  quotas: QuotaRowView[];
}

type Target = { type: 'user'; user: User } | { type: 'pond'; pond: Pond };

export interface AdminWriteActor {
  user: User;
  ip: string | undefined;
}

/** A user by exact username or e-mail, or a pond by slug; null when there is none (a deleted account counts as none). */
export async function findQuotaTarget(lookup: { user?: string; pond?: string }): Promise<Target | null> {
  if (lookup.user !== undefined) {
    const user = await findUserByLogin(lookup.user);
    return user && user.status !== 'deleted' ? { type: 'user', user } : null;
  }
  const slug = (lookup.pond ?? '').trim().toLowerCase();
  const pond = await Pond.findOne({ where: Pond.sequelize!.where(Pond.sequelize!.fn('lower', Pond.sequelize!.col('slug')), slug) });
  return pond ? { type: 'pond', pond } : null;
}

async function loadTarget(type: QuotaTargetType, id: string, transaction?: Transaction): Promise<Target> {
  const lock = transaction ? transaction.LOCK.UPDATE : undefined;
  if (type === 'pond') {
    const pond = await Pond.findByPk(id, { transaction, lock });
    if (!pond) throw notFound();
    return { type, pond };
  }
  const user = await User.findByPk(id, { transaction, lock });
  if (!user || user.status === 'deleted') throw notFound();
  return { type, user };
}

async function describeTarget(target: Target): Promise<QuotaTargetView> {
  if (target.type === 'user') return { type: 'user', id: target.user.id, name: target.user.username, displayName: target.user.displayName };
  const { pond } = target;
  const owner = pond.ownerId ? await User.findByPk(pond.ownerId) : null;
  return { type: 'pond', id: pond.id, name: pond.name, slug: pond.slug, owner: owner ? { id: owner.id, username: owner.username } : null };
}

function overrideOf(rows: readonly QuotaOverride[], quota: QuotaName, holder: { pondId?: string; userId?: string | null }): OverrideValue | undefined {
  const row = rows.find((candidate) => candidate.quota === quota && (holder.pondId ? candidate.pondId === holder.pondId : holder.userId != null && candidate.userId === holder.userId));
  return row ? { value: row.value } : undefined;
}

async function instanceDefaults(): Promise<Record<QuotaName, number | null>> {
  const values = await Promise.all(QUOTA_NAMES.map((quota) => instanceDefault(quota)));
  return Object.fromEntries(QUOTA_NAMES.map((quota, index) => [quota, values[index]!])) as Record<QuotaName, number | null>;
}

async function pondReport(sequelize: Sequelize, pond: Pond): Promise<QuotaRowView[]> {
  const holders = [{ pondId: pond.id }, ...(pond.ownerId ? [{ userId: pond.ownerId }] : [])];
  const [rows, defaults, usage] = await Promise.all([QuotaOverride.findAll({ where: { [Op.or]: holders } }), instanceDefaults(), measurePond(sequelize, pond.id)]);
  const resolved = Object.fromEntries(
    QUOTA_NAMES.map((quota) => [quota, climbLadder(overrideOf(rows, quota, { pondId: pond.id }), overrideOf(rows, quota, { userId: pond.ownerId }), defaults[quota])]),
  ) as Record<QuotaName, ReturnType<typeof climbLadder>>;
  return QUOTA_NAMES.map((quota) => {
    const row: QuotaRowView = {
      quota,
      override: overrideOf(rows, quota, { pondId: pond.id }) ?? null,
      default: defaults[quota],
      effective: resolved[quota].limit,
      source: resolved[quota].source,
      usage: { used: usedOf(quota, usage), pond: pondRefOf(pond), ponds: 1 },
    };
    if (quota === 'max_file_bytes') row.usage.allowedNow = largestUploadNow(resolved.max_file_bytes.limit, resolved.storage_bytes.limit, usage.storageBytes);
    return row;
  });
}

async function userReport(sequelize: Sequelize, user: User): Promise<QuotaRowView[]> {
  const owned = await Pond.findAll({ where: { ownerId: user.id, trashedAt: null }, order: [['slug', 'ASC']] });
  const pondIds = owned.map((pond) => pond.id);
  const [rows, defaults, usages] = await Promise.all([
    QuotaOverride.findAll({ where: { [Op.or]: [{ userId: user.id }, ...(pondIds.length > 0 ? [{ pondId: pondIds }] : [])] } }),
    instanceDefaults(),
    Promise.all(owned.map((pond) => measurePond(sequelize, pond.id))),
  ]);
  return QUOTA_NAMES.map((quota) => {
    const userOverride = overrideOf(rows, quota, { userId: user.id });
    const resolved = climbLadder(undefined, userOverride, defaults[quota]);
    // The ponds this user's rung decides: those without an override of their own.
    const governed = owned.map((pond, index) => ({ pond, usage: usages[index]! })).filter(({ pond }) => !overrideOf(rows, quota, { pondId: pond.id }));
    let busiest: { pond: Pond; usage: PondUsage } | null = null;
    for (const entry of governed) if (!busiest || usedOf(quota, entry.usage) > usedOf(quota, busiest.usage)) busiest = entry;
    return {
      quota,
      override: userOverride ?? null,
      default: defaults[quota],
      effective: resolved.limit,
      source: resolved.source,
      usage: { used: busiest ? usedOf(quota, busiest.usage) : 0, pond: busiest ? pondRefOf(busiest.pond) : null, ponds: governed.length },
    };
  });
}

export async function quotaReport(sequelize: Sequelize, target: Target): Promise<QuotaReport> {
  const [view, quotas] = await Promise.all([describeTarget(target), target.type === 'pond' ? pondReport(sequelize, target.pond) : userReport(sequelize, target.user)]);
  return { target: view, quotas };
}

export async function reportFor(sequelize: Sequelize, type: QuotaTargetType, id: string): Promise<QuotaReport> {
  return quotaReport(sequelize, await loadTarget(type, id));
}

function holderOf(target: Target): { pondId: string; userId: null } | { pondId: null; userId: string } {
  return target.type === 'pond' ? { pondId: target.pond.id, userId: null } : { pondId: null, userId: target.user.id };
}

function auditTarget(target: Target): Record<string, unknown> {
  return target.type === 'pond'
    ? { targetType: 'pond', targetId: target.pond.id, targetName: target.pond.slug }
    : { targetType: 'user', targetId: target.user.id, targetName: target.user.username };
}

/** Sets (or replaces) one override; `value: null` is unlimited. */
export async function setQuotaOverride(sequelize: Sequelize, type: QuotaTargetType, id: string, quota: QuotaName, value: number | null, actor: AdminWriteActor): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    const target = await loadTarget(type, id, transaction);
    const holder = holderOf(target);
    const existing = await QuotaOverride.findOne({ where: { ...holder, quota }, transaction });
    if (existing && existing.value === value) return;
    // Read before the update, which changes `existing` in place.
    const previous = existing ? { value: existing.value } : null;
    if (existing) await existing.update({ value, updatedBy: actor.user.id, updatedAt: new Date() }, { transaction });
    else await QuotaOverride.create({ ...holder, quota, value, updatedBy: actor.user.id }, { transaction });
    await recordAudit(
      { actor: auditActorOf(actor.user), action: 'admin.quota_set', details: { ...auditTarget(target), quota, value, previous }, ip: actor.ip },
      transaction,
    );
  });
}

/** Removes one override, so the next rung of the ladder applies again. */
export async function clearQuotaOverride(sequelize: Sequelize, type: QuotaTargetType, id: string, quota: QuotaName, actor: AdminWriteActor): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    const target = await loadTarget(type, id, transaction);
    const existing = await QuotaOverride.findOne({ where: { ...holderOf(target), quota }, transaction });
    if (!existing) return;
    await existing.destroy({ transaction });
    await recordAudit({ actor: auditActorOf(actor.user), action: 'admin.quota_cleared', details: { ...auditTarget(target), quota, value: existing.value }, ip: actor.ip }, transaction);
  });
}
