/**
 * A rule for a page and every page inside it, in one step. Grants do not inherit down the page
 * tree (a page-scope grant is for that page only; the resolver reads page, then label, then
 * pond), so a section is opened through a label: this command creates the label (or reuses the
 * root label of that name), puts it on the page and on every live page below it, and creates
 * the grant on the label (or keeps the identical one that is there). All in one transaction
 * under the pond's row lock, so a refusal at any step leaves nothing behind.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import type { Locale } from '../i18n/locale.ts';
import { Grant, Label, Page, PageLabel, User, type GrantEffect } from '../models/index.ts';
import { announceAccessChange, loadPondAccess } from '../policies/pondAccessCache.ts';
import { presentGrant, type GrantSubjectView, type GrantView } from '../presenters/grantPresenter.ts';
import { presentLabel, type LabelView } from '../presenters/labelPresenter.ts';
import { reindexPages } from '../search/pageSearchIndex.ts';
import { auditDetailsOf, unknownReference } from './grantCommands.ts';
import { MAX_LABELS_PER_PAGE, invalidLabelField } from './labelCommands.ts';
import { lockPond, type ChangeContext } from './membershipCommands.ts';

export interface SectionGrantInput {
  pageId: string;
  labelName: string;
  labelColor: string;
  subject: GrantSubjectView;
  /** A label-scope grant: pond_admin is pond-scope only (the schema refuses it). */
  role: 'reader' | 'editor';
  effect: GrantEffect;
}

export interface SectionGrantResult {
  label: LabelView;
  labelCreated: boolean;
  grant: GrantView;
  grantCreated: boolean;
  /** The page and its live descendants, which all carry the label now. */
  pageIds: string[];
  /** Those of them that did not carry it before. */
  assignedPageIds: string[];
}

/** The page and its live descendants, the page first (the tree is at most 6 deep). */
async function liveSection(sequelize: Sequelize, pondId: string, pageId: string, transaction: import('sequelize').Transaction): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `WITH RECURSIVE section AS (
       SELECT id, 0 AS depth FROM pages WHERE id = :pageId AND pond_id = :pondId
       UNION ALL
       SELECT p.id, section.depth + 1 FROM pages p JOIN section ON p.parent_id = section.id
        WHERE p.pond_id = :pondId AND p.trashed_at IS NULL AND section.depth < 64
     )
     SELECT id FROM section ORDER BY depth, id`,
    { replacements: { pageId, pondId }, type: QueryTypes.SELECT, transaction },
  );
  return rows.map((row) => row.id);
}

export async function createSectionGrant(
  sequelize: Sequelize,
  pondId: string,
  input: SectionGrantInput,
  context: ChangeContext & { locale: () => Promise<Locale> },
): Promise<SectionGrantResult> {
  return sequelize.transaction(async (transaction) => {
    const pond = await lockPond(pondId, transaction);
    const page = await Page.findOne({ where: { id: input.pageId, pondId: pond.id }, transaction });
    if (!page) throw notFound();
    if (page.trashedAt) throw new ApiError('page_trashed', 404, { trashedAt: page.trashedAt.toISOString() });
    if (input.subject.type === 'user' && !(await User.findByPk(input.subject.id, { attributes: ['id'], transaction }))) {
      throw unknownReference('subject.id', await context.locale());
    }
    const data = await loadPondAccess(sequelize, pond.id, transaction);
    if (!data) throw notFound();
    const pageIds = await liveSection(sequelize, pond.id, page.id, transaction);

    // The label: the root label of that name (names compare case-insensitively), or a new one.
    const [existing] = await sequelize.query<{ id: string }>(
      `SELECT id FROM labels WHERE pond_id = :pondId AND parent_id IS NULL AND lower(name) = lower(:name) LIMIT 1`,
      { replacements: { pondId: pond.id, name: input.labelName }, type: QueryTypes.SELECT, transaction },
    );
    const label = existing
      ? (await Label.findByPk(existing.id, { transaction }))!
      : await Label.create({ pondId: pond.id, parentId: null, name: input.labelName, color: input.labelColor }, { transaction }).catch((error: unknown) => {
          throw uniqueViolationError(error, { name: input.labelName, parentId: null }) ?? error;
        });

    // The label on every page of the section that lacks it, within the per-page limit.
    const assignedPageIds = pageIds.filter((id) => !(data.pageLabels.get(id) ?? []).includes(label.id));
    const full = assignedPageIds.find((id) => (data.pageLabels.get(id)?.length ?? 0) >= MAX_LABELS_PER_PAGE);
    if (full) throw await invalidLabelField('pageId', 'too_many_labels', context.locale, { maxLabels: MAX_LABELS_PER_PAGE, pageId: full });
    if (assignedPageIds.length > 0) {
      await PageLabel.bulkCreate(assignedPageIds.map((id) => ({ pageId: id, labelId: label.id, pondId: pond.id })), { transaction });
      // The label's name joins the pages' search vectors.
      await reindexPages(assignedPageIds, transaction);
    }

    // The grant on the label: the identical rule is kept; one with the other effect is a conflict.
    const where = {
      pondId: pond.id,
      subjectType: input.subject.type,
      subjectUserId: input.subject.type === 'user' ? input.subject.id.toLowerCase() : null,
      role: input.role,
      scopeType: 'label' as const,
      scopeLabelId: label.id,
    };
    const present = await Grant.findOne({ where, transaction });
    if (present && present.effect !== input.effect) throw new ApiError('grant_exists', 409, { grantId: present.id });
    const grant = present ?? (await Grant.create({ ...where, scopePageId: null, effect: input.effect, createdBy: context.actor.id }, { transaction }));

    await announceAccessChange(pond.id, transaction);
    await recordAudit(
      {
        actor: auditActorOf(context.actor),
        action: present ? 'grant.section_labelled' : 'grant.created',
        details: { ...auditDetailsOf(grant), section: { pageId: page.id, labelId: label.id, labelCreated: !existing, assignedPageIds } },
        ip: context.ip,
      },
      transaction,
    );
    return { label: presentLabel(label, 1), labelCreated: !existing, grant: presentGrant(grant), grantCreated: !present, pageIds, assignedPageIds };
  });
}
