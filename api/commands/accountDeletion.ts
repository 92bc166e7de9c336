/**
 * A Site Admin deletes an account (spec: User account, "admin delete"). One transaction:
 *
 * - Refused, with nothing changed: the caller's own account (`cannot_modify_self`), the last
 *   ACTIVE Site Admin (`last_site_admin`), and an account that owns shared ponds, live or in
 *   the trash (409 `user_owns_ponds`, `details.ponds`: their slugs). The owner always holds the
 *   pond's admin grant; deleting them would leave a shared pond with an owner nobody can be,
 *   and ownership cannot be handed over yet, so the safe answer is no.
 * - The row stays, so what the account authored keeps its author (pages, versions, trash
 *   entries name the id; presenters show a localized "Deleted user"), but it is scrubbed:
 *   username, e-mail and display name become placeholders derived from the id (the unique
 *   indexes stay satisfied; no other account can hold them), the password hash,
 *   verification, locale and Site Admin flag are cleared, status `deleted`. Nobody can sign in
 *   as it: the old name and address are unknown, the placeholder has no password.
 * - Its sessions end (`invalidateUserSessions`, in this transaction: the collab server hears
 *   `user_sessions_changed` once it commits and closes the account's sockets), and so do its
 *   one-time links, single sign-on identities, favorites, watches, notifications and quota overrides; the mail log's records of its
 *   address are made to name the placeholder.
 * - Every grant naming it is removed, pond by pond under the per-pond lock, with the
 *   membership rules (a pond whose last admin it is refuses with `last_pond_admin`) and a
 *   `pond_access_changed` per pond.
 * - Its personal pond is renamed to the placeholder and moved to the trash (audited as
 *   `pond.trashed`), where Site Admins can still read it until it is purged.
 *
 * The audit log keeps its entries (it is append-only); `admin.user_deleted` records the id and
 * the username the account had.
 */
import { QueryTypes, type Transaction } from 'sequelize';
import { invalidateUserSessions } from '../auth/sessions.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { ApiError } from '../http/apiError.ts';
import { EmailToken, Grant, Pond, QuotaOverride, type User } from '../models/index.ts';
import { assertMembershipChange, loadMembers, lockPond, memberOf } from './membershipCommands.ts';
import { assertNotSelf, lockManagedAccount, lockSiteAdmins, type AdminActor } from './managedAccounts.ts';
import { derivePondSlug, moveLockedPondToTrash } from './pondCommands.ts';
import { announceAccessChange } from '../policies/pondAccessCache.ts';

/**
 * What a deleted account's name fields become: unique (the id), saying nothing about the
 * person, and out of reach of every other account: 44 characters (usernames have at most 32)
 * and an address without a dot in its domain, which the e-mail rule refuses.
 */
export function deletedAccountPlaceholder(userId: string): { username: string; email: string; displayName: string } {
  const name = `deleted-${userId}`;
  return { username: name, email: `${name}@invalid`, displayName: name };
}

export async function deleteAccount(targetId: string, actor: AdminActor, transaction: Transaction): Promise<void> {
  assertNotSelf(targetId, actor);
  const siteAdmins = await lockSiteAdmins(transaction);
  const target = await lockManagedAccount(targetId, actor, transaction);
  if (target.isSiteAdmin) siteAdmins.assertRemainsWithout(target.id);
  const owned = await Pond.findAll({ where: { ownerId: target.id, kind: 'shared' }, attributes: ['slug'], order: [['slug', 'ASC']], transaction });
  if (owned.length > 0) throw new ApiError('user_owns_ponds', undefined, { ponds: owned.map((pond) => pond.slug) });

  const former = { username: target.username, email: target.email };
  const leftPonds = await removeGrantsOf(target, transaction);
  const personalPondId = await retirePersonalPond(target, actor, transaction);
  await invalidateUserSessions(target.id, transaction);
  await endPersonalData(target, former.email, transaction);
  await recordAudit(
    { actor: auditActorOf(actor.user), action: 'admin.user_deleted', details: { userId: target.id, username: former.username, leftPonds, personalPondId }, ip: actor.ip },
    transaction,
  );
}

/**
 * Removes every grant naming the user, pond by pond (in id order, under the lock the member
 * and grant commands take); returns the ponds it left. The personal pond is left out of the
 * membership rules: it goes to the trash with its owner.
 */
async function removeGrantsOf(target: User, transaction: Transaction): Promise<string[]> {
  const rows = await Grant.sequelize!.query<{ pond_id: string }>(`SELECT DISTINCT pond_id FROM grants WHERE subject_user_id = :userId ORDER BY pond_id`, {
    replacements: { userId: target.id },
    type: QueryTypes.SELECT,
    transaction,
  });
  const pondIds = rows.map((row) => row.pond_id);
  for (const pondId of pondIds) {
    const pond = await lockPond(pondId, transaction);
    const isOwnPersonalPond = pond.kind === 'personal' && pond.ownerId === target.id;
    if (!isOwnPersonalPond) {
      const members = await loadMembers(pond.id, transaction);
      const member = memberOf(members, target.id);
      if (member) await assertMembershipChange(pond, members, { userId: target.id, from: member.grantedRole, to: null }, transaction);
    }
    await Grant.destroy({ where: { pondId: pond.id, subjectUserId: target.id }, transaction });
    await announceAccessChange(pond.id, transaction);
  }
  return pondIds;
}

/** Renames the personal pond to the placeholder and trashes it; returns its id (null when there is none). */
async function retirePersonalPond(target: User, actor: AdminActor, transaction: Transaction): Promise<string | null> {
  const found = await Pond.findOne({ where: { ownerId: target.id, kind: 'personal' }, attributes: ['id'], transaction });
  if (!found) return null;
  const pond = await lockPond(found.id, transaction);
  // The slug and name came from the username and display name. A shared pond may have taken
  // the placeholder as its slug: then it gets a `-<n>` suffix.
  const placeholder = deletedAccountPlaceholder(target.id).username;
  await pond.update({ slug: await derivePondSlug(placeholder, transaction), name: placeholder }, { transaction });
  if (!pond.trashedAt) await moveLockedPondToTrash(pond, { user: actor.user, ip: actor.ip }, transaction);
  return pond.id;
}

/** Scrubs the account row and drops what only served the person. */
async function endPersonalData(target: User, formerEmail: string, transaction: Transaction): Promise<void> {
  const placeholder = deletedAccountPlaceholder(target.id);
  await target.update(
    { ...placeholder, status: 'deleted', passwordHash: null, emailVerifiedAt: null, locale: null, isSiteAdmin: false, digestFrequency: 'off' },
    { transaction },
  );
  await EmailToken.destroy({ where: { userId: target.id }, transaction });
  await QuotaOverride.destroy({ where: { userId: target.id }, transaction });
  const sequelize = Grant.sequelize!;
  // Its single sign-on identities: the person behind them may get a new account later.
  await sequelize.query(`DELETE FROM login_identities WHERE user_id = :userId`, { replacements: { userId: target.id }, transaction, type: QueryTypes.DELETE });
  await sequelize.query(`DELETE FROM favorites WHERE user_id = :userId`, { replacements: { userId: target.id }, transaction, type: QueryTypes.DELETE });
  await sequelize.query(`DELETE FROM watches WHERE user_id = :userId`, { replacements: { userId: target.id }, transaction, type: QueryTypes.DELETE });
  await sequelize.query(`DELETE FROM notifications WHERE user_id = :userId`, { replacements: { userId: target.id }, transaction, type: QueryTypes.DELETE });
  await sequelize.query(`UPDATE mail_outbox SET recipient = :placeholder WHERE lower(recipient) = lower(:formerEmail)`, {
    replacements: { placeholder: placeholder.email, formerEmail },
    transaction,
    type: QueryTypes.UPDATE,
  });
}
