/**
 * What a collaboration connection may do right now, resolved through the policy module (the
 * same grant resolution the API uses): `rw`, `ro`, or nothing. The token's mode is a ceiling
 * (what the API granted when it issued it); access is resolved again on connect and whenever
 * the pond's access changes.
 */
import type { Sequelize } from 'sequelize';
import { Page, User } from '../api/models/index.ts';
import { subjectAccessTo, type AccessSubject } from '../api/policies/accessPolicy.ts';
import { ANONYMOUS } from '../api/policies/grantResolution.ts';
import type { CollabMode } from '../api/collab/collabToken.ts';

export interface ResolvedAccess {
  mode: CollabMode;
  pondId: string;
}

async function subjectFor(userId: string | null): Promise<AccessSubject | null> {
  if (userId === null) return ANONYMOUS;
  const user = await User.findByPk(userId, { attributes: ['id', 'status', 'isSiteAdmin'] });
  if (!user || user.status === 'disabled') return null;
  return { userId: user.id, signedIn: true, isSiteAdmin: user.isSiteAdmin };
}

/** Null when the page is gone, trashed, or no longer readable by the user. */
export async function resolveConnectionAccess(
  sequelize: Sequelize,
  pageId: string,
  userId: string | null,
  ceiling: CollabMode,
): Promise<ResolvedAccess | null> {
  const [page, subject] = await Promise.all([Page.findByPk(pageId, { attributes: ['id', 'pondId', 'trashedAt'] }), subjectFor(userId)]);
  // A trashed page is not opened at all: the editor shows the trash notice from the API instead.
  if (!page || page.trashedAt || !subject) return null;
  const access = await subjectAccessTo(sequelize, subject, page.pondId);
  if (!access || !access.page(page, 'read').allowed) return null;
  const writable = subject.signedIn && ceiling === 'rw' && access.page(page, 'write').allowed;
  return { mode: writable ? 'rw' : 'ro', pondId: page.pondId };
}
