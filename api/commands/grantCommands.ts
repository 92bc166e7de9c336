/**
 * Managing access rules (grants) of one pond: listing them with display names, creating and
 * deleting them. A grant that changes someone's membership (a user-subject, pond-scope allow)
 * passes the same owner, last-admin, personal-pond and seat rules as the member routes, under
 * the same per-pond lock: the grant routes are no way around them.
 */
import { ForeignKeyConstraintError } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import { Grant, Label, Page, User, type GrantEffect, type PondRole } from '../models/index.ts';
import { presentGrant, type GrantScopeView, type GrantSubjectView } from '../presenters/grantPresenter.ts';
import { grantedRoleOf, higherRole, isMembershipGrant, membershipGrantWhere } from '../policies/membership.ts';
import { announceAccessChange } from '../policies/pondAccessCache.ts';
import { assertMembershipChange, loadMembers, lockPond, memberOf, type ChangeContext } from './membershipCommands.ts';

export interface GrantInput {
  subject: GrantSubjectView;
  role: PondRole;
  scope: GrantScopeView;
  effect: GrantEffect;
}

export async function listGrants(pondId: string): Promise<Grant[]> {
  return Grant.findAll({ where: { pondId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
}

export function unknownReference(path: 'subject.id' | 'scope.id', locale: Locale): ApiError {
  const message = apiText(path === 'subject.id' ? 'field.unknown_account' : 'field.unknown_scope', locale);
  return new ApiError('validation_failed', 400, { fields: [{ path, code: 'unknown_reference', message }] });
}

/** Referential validation: the user exists; the label or page belongs to this pond. */
async function assertReferencesExist(pondId: string, input: GrantInput, locale: () => Promise<Locale>): Promise<void> {
  if (input.subject.type === 'user' && !(await User.findByPk(input.subject.id, { attributes: ['id'] }))) {
    throw unknownReference('subject.id', await locale());
  }
  const scope = input.scope;
  if (scope.type === 'pond') return;
  const where = { id: scope.id, pondId };
  const found = scope.type === 'label' ? await Label.findOne({ where, attributes: ['id'] }) : await Page.findOne({ where, attributes: ['id'] });
  if (!found) throw unknownReference('scope.id', await locale());
}

export function auditDetailsOf(grant: Grant): Record<string, unknown> {
  const view = presentGrant(grant);
  return { pondId: view.pondId, grantId: view.id, subject: view.subject, role: view.role, scope: view.scope, effect: view.effect };
}

export async function createGrant(pondId: string, input: GrantInput, context: ChangeContext & { locale: () => Promise<Locale> }): Promise<Grant> {
  await assertReferencesExist(pondId, input, context.locale);
  return insertGrant(pondId, input, context).catch(async (error: unknown) => {
    // The user, label or page went away between the check above and the insert.
    if (!(error instanceof ForeignKeyConstraintError)) throw error;
    const constraint = (error.parent as { constraint?: string } | undefined)?.constraint ?? '';
    throw unknownReference(constraint.includes('subject_user') ? 'subject.id' : 'scope.id', await context.locale());
  });
}

async function insertGrant(pondId: string, input: GrantInput, context: ChangeContext): Promise<Grant> {
  return Grant.sequelize!.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    const row = {
      pondId: pond.id,
      subjectType: input.subject.type,
      subjectUserId: input.subject.type === 'user' ? input.subject.id.toLowerCase() : null,
      role: input.role,
      scopeType: input.scope.type,
      scopeLabelId: input.scope.type === 'label' ? input.scope.id.toLowerCase() : null,
      scopePageId: input.scope.type === 'page' ? input.scope.id.toLowerCase() : null,
      effect: input.effect,
      createdBy: context.actor.id,
    };
    if (isMembershipGrant(row)) {
      const members = await loadMembers(pond.id, transaction);
      const from = memberOf(members, row.subjectUserId!)?.grantedRole ?? null;
      await assertMembershipChange(pond, members, { userId: row.subjectUserId!, from, to: higherRole(from, row.role) }, transaction);
    }
    let grant: Grant;
    try {
      grant = await Grant.create(row, { transaction });
    } catch (error) {
      throw uniqueViolationError(error) ?? error;
    }
    await announceAccessChange(pond.id, transaction);
    await recordAudit({ actor: auditActorOf(context.actor), action: 'grant.created', details: auditDetailsOf(grant), ip: context.ip }, transaction);
    return grant;
  });
}

/** `grantId` must already be a well-formed id; one of another pond answers 404. */
export async function deleteGrant(pondId: string, grantId: string, context: ChangeContext): Promise<void> {
  await Grant.sequelize!.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    const grant = await Grant.findOne({ where: { id: grantId, pondId: pond.id }, transaction });
    if (!grant) throw notFound();
    if (isMembershipGrant(grant)) {
      const members = await loadMembers(pond.id, transaction);
      const userId = grant.subjectUserId!;
      const remaining = await Grant.findAll({ where: membershipGrantWhere(pond.id, userId), transaction });
      const to = grantedRoleOf(remaining.filter((other) => other.id !== grant.id));
      await assertMembershipChange(pond, members, { userId, from: memberOf(members, userId)?.grantedRole ?? null, to }, transaction);
    }
    await grant.destroy({ transaction });
    await announceAccessChange(pond.id, transaction);
    await recordAudit({ actor: auditActorOf(context.actor), action: 'grant.deleted', details: auditDetailsOf(grant), ip: context.ip }, transaction);
  });
}
