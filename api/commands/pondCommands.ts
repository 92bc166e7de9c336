/**
 * Pond writes: create (with the owner's pond_admin grant), update (name, slug, fonts,
 * settings), trash and restore. Each runs in one transaction with its audit entry; changes
 * of the trash state also announce an access change and keep the search vectors in step.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { ApiError, notFound, unauthenticated } from '../http/apiError.ts';
import { Grant, Pond, User } from '../models/index.ts';
import { membershipGrant } from '../policies/membership.ts';
import { announceAccessChange } from '../policies/pondAccessCache.ts';
import { queuePondChange } from '../publicPages/publicDocumentQueue.ts';
import { FONT_SLOTS, withFontDefaults, type FontSlot } from '../ponds/fontCatalog.ts';
import { mergePondSettings, POND_SETTING_KEYS, withSettingDefaults, type PondSettingsPatch } from '../ponds/pondSettings.ts';
import { RESERVED_POND_SLUGS } from '../ponds/reservedSlugs.ts';
import { firstFreeSlug, slugify, SLUG_MAX_LENGTH } from '../ponds/slugs.ts';
import { clearPondSearchVectors, reindexLivePondPages } from '../search/pageSearchIndex.ts';

/** Who acts, for the audit log. */
export interface PondActor {
  user: { id: string; username: string };
  ip: string | null | undefined;
}

const FALLBACK_SLUG = 'pond';
// Room for the longest `-<n>` suffix we will ever append, so the candidate query sees every collision.
const SUFFIX_ROOM = 10;

/**
 * A free pond slug derived from a name or username: slugified, reserved slugs skipped like
 * taken ones, `-<n>` appended on collision. Derivations of the same base wait for each other
 * (a transaction-scoped advisory lock), so concurrent signups or creations get distinct
 * slugs; an explicitly chosen slug can still win first, which the unique index answers.
 */
export async function derivePondSlug(text: string, transaction: Transaction): Promise<string> {
  const base = slugify(text) || FALLBACK_SLUG;
  await Pond.sequelize!.query(`SELECT pg_advisory_xact_lock(hashtext('pond-slug:' || :base))`, { replacements: { base }, transaction });
  const rows = await Pond.sequelize!.query<{ slug: string }>(
    `SELECT lower(slug) AS slug FROM ponds
      WHERE lower(slug) = :base OR (lower(slug) LIKE :prefix AND lower(slug) ~ '-[0-9]+$')`,
    { replacements: { base, prefix: `${base.slice(0, SLUG_MAX_LENGTH - SUFFIX_ROOM)}%` }, type: QueryTypes.SELECT, transaction },
  );
  return firstFreeSlug(base, new Set([...RESERVED_POND_SLUGS, ...rows.map((row) => row.slug)]));
}

async function assertSlugFree(slug: string, exceptPondId: string | null, transaction: Transaction): Promise<void> {
  const rows = await Pond.sequelize!.query(`SELECT 1 FROM ponds WHERE lower(slug) = lower(:slug) AND id IS DISTINCT FROM :exceptPondId LIMIT 1`, {
    replacements: { slug, exceptPondId },
    type: QueryTypes.SELECT,
    transaction,
  });
  if (rows.length > 0) throw new ApiError('slug_taken', 409, { slug });
}

/** Turns a lost race on the slug index into `slug_taken`. */
async function withSlugConflictAs409<T>(slug: () => string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw uniqueViolationError(error, { slug: slug() ?? null }) ?? error;
  }
}

export interface CreatePondInput {
  name: string;
  slug?: string | undefined;
}

/** A shared pond owned by the actor, who gets its pond-scope pond_admin grant in the same transaction. */
export async function createSharedPond(sequelize: Sequelize, input: CreatePondInput, actor: PondActor): Promise<Pond> {
  let slug: string | undefined = input.slug;
  return withSlugConflictAs409(
    () => slug,
    () =>
      sequelize.transaction(async (transaction) => {
        // The owner's row, share-locked: an account deletion running at the same time either
        // finishes first (and the owner is no longer ACTIVE here) or waits and then finds the
        // pond (and refuses with user_owns_ponds). Never a pond owned by a deleted account.
        const owner = await User.findByPk(actor.user.id, { attributes: ['id', 'status'], lock: transaction.LOCK.SHARE, transaction });
        if (owner?.status !== 'ACTIVE') throw unauthenticated();
        if (slug !== undefined) await assertSlugFree(slug, null, transaction);
        else slug = await derivePondSlug(input.name, transaction);
        const pond = await Pond.create({ slug, name: input.name, kind: 'shared', ownerId: actor.user.id }, { transaction });
        await Grant.create(membershipGrant(pond.id, actor.user.id, 'pond_admin', actor.user.id), { transaction });
        await announceAccessChange(pond.id, transaction);
        await recordAudit({ actor: auditActorOf(actor.user), action: 'pond.created', details: { pondId: pond.id, slug: pond.slug, name: pond.name, kind: pond.kind }, ip: actor.ip }, transaction);
        return pond;
      }),
  );
}

export interface UpdatePondInput {
  name?: string | undefined;
  slug?: string | undefined;
  /** A catalog id sets the slot, null resets it to the default. */
  fonts?: Partial<Record<FontSlot, string | null>> | undefined;
  /** Validated by the route's schema (`pondSettingsPatchSchema`). */
  settings?: PondSettingsPatch | undefined;
}

interface Change {
  from: unknown;
  to: unknown;
}

/** Loads the pond for a write, row-locked so concurrent writes to it queue up. */
async function lockPond(pondId: string, transaction: Transaction): Promise<Pond> {
  const pond = await Pond.findByPk(pondId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!pond) throw notFound();
  return pond;
}

function mergeFonts(stored: Readonly<Record<string, unknown>>, patch: NonNullable<UpdatePondInput['fonts']>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const slot of FONT_SLOTS) {
    const value = slot in patch ? patch[slot] : stored[slot];
    if (typeof value === 'string') merged[slot] = value;
  }
  return merged;
}

/**
 * Name, slug, fonts and settings of a live pond. Settings and fonts merge key by key. The
 * audit entry lists every effective change as `{ from, to }`; a PATCH that changes nothing
 * writes nothing.
 */
export async function updatePond(sequelize: Sequelize, pondId: string, input: UpdatePondInput, actor: PondActor): Promise<Pond> {
  const settingsPatch = input.settings ?? null;
  return withSlugConflictAs409(
    () => input.slug,
    () =>
      sequelize.transaction(async (transaction) => {
        const pond = await lockPond(pondId, transaction);
        if (pond.trashedAt) throw new ApiError('pond_trashed', 409, { trashedAt: pond.trashedAt.toISOString() });
        const changes: Record<string, Change> = {};
        if (input.name !== undefined && input.name !== pond.name) {
          changes.name = { from: pond.name, to: input.name };
          pond.name = input.name;
        }
        if (input.slug !== undefined && input.slug !== pond.slug) {
          if (input.slug !== pond.slug.toLowerCase()) await assertSlugFree(input.slug, pond.id, transaction);
          changes.slug = { from: pond.slug, to: input.slug };
          pond.slug = input.slug;
        }
        if (input.fonts) {
          const before = withFontDefaults(pond.fonts);
          pond.fonts = mergeFonts(pond.fonts, input.fonts);
          const after = withFontDefaults(pond.fonts);
          for (const slot of FONT_SLOTS) if (before[slot] !== after[slot]) changes[`fonts.${slot}`] = { from: before[slot], to: after[slot] };
        }
        if (settingsPatch) {
          const before = withSettingDefaults(pond.settings);
          pond.settings = mergePondSettings(pond.settings, settingsPatch);
          const after = withSettingDefaults(pond.settings);
          for (const key of POND_SETTING_KEYS) if (before[key] !== after[key]) changes[`settings.${key}`] = { from: before[key], to: after[key] };
        }
        if (Object.keys(changes).length === 0) return pond;
        await pond.save({ transaction });
        await queuePondChange(transaction, pond.id);
        await recordAudit({ actor: auditActorOf(actor.user), action: 'pond.updated', details: { pondId: pond.id, changes }, ip: actor.ip }, transaction);
        return pond;
      }),
  );
}

/**
 * Moves a shared pond to the trash: it disappears for everyone but its pond admins and Site
 * Admins, and none of its pages can be found. Trashing a trashed pond changes nothing.
 */
export async function trashPond(sequelize: Sequelize, pondId: string, actor: PondActor): Promise<Pond> {
  return sequelize.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    if (pond.kind === 'personal') throw new ApiError('personal_pond_protected', 409);
    if (pond.trashedAt) return pond;
    await moveLockedPondToTrash(pond, actor, transaction);
    return pond;
  });
}

/**
 * The trash move itself, in the caller's transaction on a pond it locked and found live. Also
 * for a personal pond, which only the deletion of its owner's account trashes
 * (api/commands/accountDeletion.ts).
 */
export async function moveLockedPondToTrash(pond: Pond, actor: PondActor, transaction: Transaction): Promise<void> {
  await pond.update({ trashedAt: new Date(), trashedBy: actor.user.id }, { transaction });
  await clearPondSearchVectors(pond.id, transaction);
  await announceAccessChange(pond.id, transaction);
  await recordAudit({ actor: auditActorOf(actor.user), action: 'pond.trashed', details: { pondId: pond.id, slug: pond.slug, name: pond.name }, ip: actor.ip }, transaction);
}

/** Brings a pond back; only its pages that were live get a search vector again. Restoring a live pond changes nothing. */
export async function restorePond(sequelize: Sequelize, pondId: string, actor: PondActor): Promise<Pond> {
  return sequelize.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    if (!pond.trashedAt) return pond;
    const trashedAt = pond.trashedAt;
    await pond.update({ trashedAt: null, trashedBy: null }, { transaction });
    await reindexLivePondPages(pond.id, transaction);
    await announceAccessChange(pond.id, transaction);
    await recordAudit(
      { actor: auditActorOf(actor.user), action: 'pond.restored', details: { pondId: pond.id, slug: pond.slug, name: pond.name, trashedAt: trashedAt.toISOString() }, ip: actor.ip },
      transaction,
    );
    return pond;
  });
}
