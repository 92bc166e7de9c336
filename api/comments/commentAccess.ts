/**
 * Who may do what with comments (spec: Comment rules, Authorization model). Every answer comes
 * from the policy module; this file only combines its verdicts with the pond's `commentPolicy`.
 *
 * - Reading follows page read: an unreadable page, and any comment on it, is a 404.
 * - Writing (create, reply, edit, delete, resolve, reopen) needs a signed-in caller who may
 *   comment: `readers` → may read the page; `editors` → may write it. Anonymous on a
 *   readable page → 401, signed in but not allowed → 403.
 * - Edit and delete are the author's; a root with replies only pond admins (Site Admins
 *   included) may delete, and its replies go with it.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Actor } from '../auth/authenticateRequest.ts';
import { ApiError, forbidden, notFound, unauthenticated } from '../http/apiError.ts';
import type { Page } from '../models/index.ts';
import { authorizePage, isUuid, type AccessSubject, type SubjectAccess } from '../policies/accessPolicy.ts';
import { effectivePondRole } from '../policies/grantResolution.ts';
import { withSettingDefaults, type PondSettings } from '../ponds/pondSettings.ts';
import { loadComment, type CommentRecord } from './commentQueries.ts';

export type CommentPolicy = PondSettings['commentPolicy'];

/** What the caller may do with the comments of one page they may read. */
export interface CommentGate {
  page: Page;
  access: SubjectAccess;
  policy: CommentPolicy;
  /** Signed in and allowed by the policy: may create, reply, resolve and reopen. */
  canComment: boolean;
  /** May delete a root with replies (pond admins, Site Admins). */
  canDeleteThreads: boolean;
}

export async function commentPolicyOf(sequelize: Sequelize, pondId: string): Promise<CommentPolicy> {
  const [row] = await sequelize.query<{ settings: Record<string, unknown> | null }>(`SELECT settings FROM ponds WHERE id = :pondId`, {
    replacements: { pondId },
    type: QueryTypes.SELECT,
  });
  return withSettingDefaults(row?.settings ?? {}).commentPolicy;
}

/** The gate of a page the caller was already authorized to read. */
export async function commentGateFor(sequelize: Sequelize, page: Page, access: SubjectAccess): Promise<CommentGate> {
  const policy = await commentPolicyOf(sequelize, page.pondId);
  const signedIn = access.subject.userId !== null;
  const canComment = signedIn && access.page(page, policy === 'editors' ? 'write' : 'read').allowed;
  return { page, access, policy, canComment, canDeleteThreads: signedIn && effectivePondRole(access) === 'pond_admin' };
}

/** The gate of a page the caller may read (404 otherwise, `page_trashed` as the page routes answer). */
export async function authorizeCommentsOf(sequelize: Sequelize, subject: AccessSubject, pageId: string): Promise<CommentGate> {
  const { page, access } = await authorizePage(sequelize, subject, pageId, 'read');
  return commentGateFor(sequelize, page, access);
}

/** 401 for an anonymous caller, 403 for one the pond's policy does not let comment; returns the caller. */
export function assertMayComment(gate: CommentGate, actor: Actor | null): Actor {
  if (!actor) throw unauthenticated();
  if (!gate.canComment) throw forbidden({ commentPolicy: gate.policy });
  return actor;
}

/** A comment by id with its page's gate: 404 for a missing comment and for one on a page the caller may not read. */
export async function authorizeComment(sequelize: Sequelize, subject: AccessSubject, commentId: string): Promise<{ comment: CommentRecord; gate: CommentGate }> {
  const comment = isUuid(commentId) ? await loadComment(sequelize, commentId) : null;
  if (!comment) throw notFound();
  return { comment, gate: await authorizeCommentsOf(sequelize, subject, comment.pageId) };
}

export function isAuthor(comment: { author: { id: string } }, actor: Actor | null): boolean {
  return actor !== null && comment.author.id === actor.user.id;
}

/** What the caller may do to one comment, as the list shows it (the commands decide again under lock). */
export function commentPermissions(gate: CommentGate, comment: CommentRecord, actor: Actor | null): { canEdit: boolean; canDelete: boolean } {
  const own = gate.canComment && isAuthor(comment, actor);
  const hasReplies = comment.parentId === null && comment.replyCount > 0;
  return { canEdit: own, canDelete: gate.canComment && (hasReplies ? gate.canDeleteThreads : own) };
}

/** The refusal of a delete, or null when it may go ahead: an author's own comment without replies, or any thread for a pond admin. */
export function deleteRefusal(gate: CommentGate, comment: { author: { id: string }; parentId: string | null }, replyCount: number, actor: Actor): ApiError | null {
  const hasReplies = comment.parentId === null && replyCount > 0;
  if (hasReplies && gate.canDeleteThreads) return null;
  if (!isAuthor(comment, actor)) return new ApiError('comment_not_author');
  return hasReplies ? new ApiError('comment_has_replies') : null;
}
