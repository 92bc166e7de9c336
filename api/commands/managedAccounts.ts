/**
 * What every Site Admin action on an account shares, and the Site Admin flag itself.
 *
 * - The target is locked for the action. An unknown or deleted account answers 404 (a deleted
 *   account is gone: nothing may revive it, such as a reset link or a confirmation); the
 *   caller's own account 409 `cannot_modify_self`.
 * - Revoking Site Admin, disabling or deleting an account must leave at least one ACTIVE Site Admin
 *   (`last_site_admin`). The caller is one, so this can only fail when two admins act on each
 *   other at the same time: every Site Admin row is locked before counting, so the second of
 *   two crossing requests sees the first one's outcome.
 */
import type { Transaction } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { announceUserSessionsChanged } from '../auth/sessions.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { User } from '../models/index.ts';

/** The Site Admin acting, for checks and the audit log. */
export interface AdminActor {
  user: Pick<User, 'id' | 'username'>;
  ip: string | null | undefined;
}

/** The target account, locked for the action; 404 when unknown or deleted, 409 when it is the caller's own. */
export async function lockManagedAccount(targetId: string, actor: AdminActor, transaction: Transaction): Promise<User> {
  const target = await User.findByPk(targetId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!target || target.status === 'deleted') throw notFound();
  // Compared on the loaded row: the path id may differ from ours in letter case only.
  if (target.id === actor.user.id) throw new ApiError('cannot_modify_self');
  return target;
}

/**
 * Locks every Site Admin row (in id order) and returns a check that refuses with
 * `last_site_admin` unless an ACTIVE Site Admin other than the one leaving remains. Actions
 * that may remove a Site Admin take this lock before the target's, so two crossing requests
 * queue up instead of deadlocking, and the second counts after the first committed.
 */
export async function lockSiteAdmins(transaction: Transaction): Promise<{ assertRemainsWithout(leavingId: string): void }> {
  const admins = await User.findAll({ where: { isSiteAdmin: true }, attributes: ['id', 'status'], order: [['id', 'ASC']], lock: transaction.LOCK.UPDATE, transaction });
  return {
    assertRemainsWithout(leavingId) {
      if (!admins.some((admin) => admin.id !== leavingId && admin.status === 'ACTIVE')) throw new ApiError('last_site_admin');
    },
  };
}

/** 409 `cannot_modify_self` before any lock is taken (the path id may be in upper case). */
export function assertNotSelf(targetId: string, actor: AdminActor): void {
  if (targetId.toLowerCase() === actor.user.id.toLowerCase()) throw new ApiError('cannot_modify_self');
}

/**
 * Grants or revokes Site Admin. Idempotent: a flag that is set already changes nothing and is
 * not audited. Revoking never leaves the instance without an ACTIVE Site Admin.
 *
 * Site Admin reaches every pond, so the change is announced like the end of a session (in the
 * transaction, so it goes out at commit): the collab server checks the user's open sockets
 * again, closing one that lost access or write, and one that may now write (it comes back rw).
 */
export async function setSiteAdmin(targetId: string, isSiteAdmin: boolean, actor: AdminActor, transaction: Transaction): Promise<User> {
  assertNotSelf(targetId, actor);
  const siteAdmins = await lockSiteAdmins(transaction);
  const target = await lockManagedAccount(targetId, actor, transaction);
  if (target.isSiteAdmin === isSiteAdmin) return target;
  if (!isSiteAdmin) siteAdmins.assertRemainsWithout(target.id);
  target.isSiteAdmin = isSiteAdmin;
  await target.save({ transaction });
  await announceUserSessionsChanged(target.id, transaction);
  await recordAudit(
    {
      actor: auditActorOf(actor.user),
      action: isSiteAdmin ? 'admin.site_admin_granted' : 'admin.site_admin_revoked',
      details: { userId: target.id, username: target.username },
      ip: actor.ip,
    },
    transaction,
  );
  return target;
}
