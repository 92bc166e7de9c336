/**
 * What a collaboration connection may do, answered by the policy module so the collab server
 * interprets no grants and no sessions itself. It asks on connect, at the expiry of the
 * credential that opened the connection, when the pond's access changes, and when the user's
 * sessions change; each time from the database, never from the token.
 *
 * - Who: an anonymous token speaks for the public; a signed-in token for its user only while
 *   the credential named in it lives (the session exists, is unexpired, and the account is not
 *   disabled; a deleted account takes its sessions with it). Personal access tokens are not
 *   issued yet, so a token naming one is refused.
 * - What: `ro` or `rw` on the page, never more than the token's mode (what the API granted
 *   when it issued it); nothing for a missing or trashed page or one the subject cannot read.
 */
import type { Sequelize } from 'sequelize';
import type { CollabMode, CollabTokenOrigin } from '../collab/collabToken.ts';
import { sessionIsLive } from '../auth/sessions.ts';
import { Page, Session, User } from '../models/index.ts';
import { subjectAccessTo, type AccessSubject } from './accessPolicy.ts';
import { ANONYMOUS } from './grantResolution.ts';

export interface ConnectionSubject {
  subject: AccessSubject;
  /** When the credential runs out as of now (a session's expiry slides: ask again then); null when it does not. */
  expiresAt: Date | null;
}

/** The subject a connection speaks for; null once the credential that opened it has ended. */
export async function connectionSubject(userId: string | null, origin: CollabTokenOrigin | null, now: number = Date.now()): Promise<ConnectionSubject | null> {
  if (userId === null) return origin === null ? { subject: ANONYMOUS, expiresAt: null } : null;
  if (origin?.kind !== 'session') return null;
  const session = await Session.findByPk(origin.sessionId, {
    attributes: ['id', 'userId', 'expiresAt'],
    include: [{ model: User, as: 'user', attributes: ['id', 'status', 'isSiteAdmin'] }],
  });
  const user = session?.user;
  if (!session || !user || session.userId !== userId || !sessionIsLive(session, user, now)) return null;
  return { subject: { userId: user.id, signedIn: true, isSiteAdmin: user.isSiteAdmin }, expiresAt: session.expiresAt };
}

export type CollabAccess =
  | { allowed: true; mode: CollabMode; pondId: string; expiresAt: Date | null }
  | { allowed: false; reason: 'credential-ended' | 'no-access' };

export interface CollabAccessRequest {
  pageId: string;
  userId: string | null;
  origin: CollabTokenOrigin | null;
  /** The most the connection may get: the token's mode, or `rw` when checking for an upgrade. */
  ceiling: CollabMode;
}

export async function resolveCollabAccess(sequelize: Sequelize, request: CollabAccessRequest): Promise<CollabAccess> {
  const [page, found] = await Promise.all([
    Page.findByPk(request.pageId, { attributes: ['id', 'pondId', 'trashedAt'] }),
    connectionSubject(request.userId, request.origin),
  ]);
  if (!found) return { allowed: false, reason: 'credential-ended' };
  // A trashed page is not opened at all: the editor shows the trash notice from the API instead.
  if (!page || page.trashedAt) return { allowed: false, reason: 'no-access' };
  const { subject, expiresAt } = found;
  const access = await subjectAccessTo(sequelize, subject, page.pondId);
  if (!access || !access.page(page, 'read').allowed) return { allowed: false, reason: 'no-access' };
  const writable = subject.signedIn && request.ceiling === 'rw' && access.page(page, 'write').allowed;
  return { allowed: true, mode: writable ? 'rw' : 'ro', pondId: page.pondId, expiresAt };
}
