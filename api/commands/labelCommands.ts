/**
 * Changes to a pond's label tree and to the labels of a page. Labels are permission scopes,
 * so every change runs under the pond's row lock (two concurrent moves cannot build a cycle,
 * a create cannot slip under a parent that is being moved too deep), reads the access data
 * fresh inside that lock, and announces the change. Whether a change can alter anyone's
 * access is asked of the grant resolver (`labelGovernsAccess`), never of the grants table.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { uniqueViolationError } from '../db/uniqueViolations.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { apiText } from '../i18n/apiTexts.ts';
import type { Locale } from '../i18n/locale.ts';
import { Label, Page, PageLabel } from '../models/index.ts';
import { SubjectAccess, countGrantsScopedOn, labelGovernsAccess, type AccessSubject, type PondAccessData } from '../policies/grantResolution.ts';
import { announceAccessChange, loadPondAccess } from '../policies/pondAccessCache.ts';
import { presentLabel, presentLabelTree, type LabelView, type PageLabelsView } from '../presenters/labelPresenter.ts';
import { reindexPages, reindexPagesLabelled } from '../search/pageSearchIndex.ts';

export const MAX_LABEL_DEPTH = 6;
export const MAX_LABELS_PER_PAGE = 50;

/** Who acts, as the commands need it: the policy's subject and the account for the audit log. */
export interface LabelActorContext {
  sequelize: Sequelize;
  subject: AccessSubject;
  user: { id: string; username: string };
  ip: string | undefined;
  locale: () => Promise<Locale>;
}

/** Field problems zod cannot see: ids that are well-formed but name nothing in this pond, an empty change. */
type LabelFieldProblem = 'label_not_in_pond' | 'labels_not_in_pond' | 'nothing_to_change' | 'too_many_labels';

/** A 400 `validation_failed` shaped like the ones zod produces, with a localized message. */
export async function invalidLabelField(path: string, problem: LabelFieldProblem, locale: () => Promise<Locale>, extra: Record<string, unknown> = {}): Promise<ApiError> {
  const message = apiText(`field.${problem}`, await locale());
  return new ApiError('validation_failed', 400, { fields: [{ path, code: problem, message, ...extra }] });
}

/** Takes the pond's row lock, then reads its access data as it is now. */
async function lockPondAccess(sequelize: Sequelize, pondId: string, transaction: Transaction): Promise<PondAccessData> {
  await sequelize.query('SELECT id FROM ponds WHERE id = :pondId FOR UPDATE', { replacements: { pondId }, type: QueryTypes.SELECT, transaction });
  const data = await loadPondAccess(sequelize, pondId, transaction);
  if (!data) throw notFound();
  return data;
}

/** Pond admins (and Site Admins) may change labels that govern access. */
function assertMayChangeGoverningLabel(data: PondAccessData, subject: AccessSubject, labelId: string): void {
  if (!new SubjectAccess(data, subject).pond('admin').allowed) throw new ApiError('label_governs_access', 403, { labelId });
}

/** The number of labels on the chain from the root down to `labelId` (1 for a root label). */
export function labelDepth(parents: ReadonlyMap<string, string | null>, labelId: string): number {
  let depth = 0;
  const visited = new Set<string>();
  for (let current: string | null | undefined = labelId; current && !visited.has(current); current = parents.get(current)) {
    visited.add(current);
    depth += 1;
  }
  return depth;
}

/** The label and all its descendants, each with its depth relative to the label (the label is 1). */
export function labelSubtree(parents: ReadonlyMap<string, string | null>, labelId: string): Map<string, number> {
  const children = new Map<string, string[]>();
  for (const [id, parentId] of parents) {
    if (parentId === null) continue;
    const siblings = children.get(parentId);
    if (siblings) siblings.push(id);
    else children.set(parentId, [id]);
  }
  const subtree = new Map<string, number>([[labelId, 1]]);
  const queue = [labelId];
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    const depth = subtree.get(current)!;
    for (const child of children.get(current) ?? []) {
      if (subtree.has(child)) continue;
      subtree.set(child, depth + 1);
      queue.push(child);
    }
  }
  return subtree;
}

function assertDepthWithinLimit(depth: number): void {
  if (depth > MAX_LABEL_DEPTH) throw new ApiError('label_depth_exceeded', 409, { maxDepth: MAX_LABEL_DEPTH, depth });
}

/** Names are unique per (pond, parent), case-insensitively, as the `labels_name_key` index says. */
async function assertNameFree(pondId: string, parentId: string | null, name: string, exceptLabelId: string | null, transaction: Transaction): Promise<void> {
  const rows = await Label.sequelize!.query(
    `SELECT 1 FROM labels
      WHERE pond_id = :pondId AND parent_id IS NOT DISTINCT FROM CAST(:parentId AS uuid)
        AND lower(name) = lower(:name) AND (CAST(:exceptLabelId AS uuid) IS NULL OR id <> CAST(:exceptLabelId AS uuid))
      LIMIT 1`,
    { replacements: { pondId, parentId, name, exceptLabelId }, type: QueryTypes.SELECT, transaction },
  );
  if (rows.length > 0) throw new ApiError('label_name_taken', 409, { name, parentId });
}

/** Runs a label write; a name collision that raced past `assertNameFree` still answers 409. */
async function writingLabel<T>(write: () => Promise<T>, name: string, parentId: string | null): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw uniqueViolationError(error, { name, parentId }) ?? error;
  }
}

export interface CreateLabelInput {
  name: string;
  color: string;
  parentId: string | null;
}

export async function createLabel(context: LabelActorContext, pondId: string, input: CreateLabelInput): Promise<LabelView> {
  const { sequelize } = context;
  return sequelize.transaction(async (transaction) => {
    const data = await lockPondAccess(sequelize, pondId, transaction);
    if (input.parentId !== null && !data.labelParents.has(input.parentId)) throw await invalidLabelField('parentId', 'label_not_in_pond', context.locale);
    const depth = input.parentId === null ? 1 : labelDepth(data.labelParents, input.parentId) + 1;
    assertDepthWithinLimit(depth);
    await assertNameFree(pondId, input.parentId, input.name, null, transaction);
    const label = await writingLabel(
      () => Label.create({ pondId, parentId: input.parentId, name: input.name, color: input.color }, { transaction }),
      input.name,
      input.parentId,
    );
    await announceAccessChange(pondId, transaction);
    return presentLabel(label, depth);
  });
}

export interface UpdateLabelInput {
  name?: string;
  color?: string;
  /** Absent keeps the parent; null moves the label to the root. */
  parentId?: string | null;
}

/**
 * Renames, recolours and/or moves a label. A move checks, in this order: the new parent is a
 * label of the pond (400), it is not the label or a descendant (409 `label_cycle`), the
 * caller may move it if either ancestor chain governs access (403), the moved subtree stays
 * within the depth limit (409), and the name is free under the new parent (409).
 */
export async function updateLabel(context: LabelActorContext, target: Label, input: UpdateLabelInput): Promise<LabelView> {
  const { sequelize } = context;
  if (input.name === undefined && input.color === undefined && input.parentId === undefined) throw await invalidLabelField('', 'nothing_to_change', context.locale);
  return sequelize.transaction(async (transaction) => {
    const data = await lockPondAccess(sequelize, target.pondId, transaction);
    // Read again under the lock: a concurrent move or delete may have won it.
    const label = await Label.findByPk(target.id, { transaction });
    if (!label) throw notFound();
    const oldParentId = label.parentId;
    const newParentId = input.parentId === undefined ? oldParentId : input.parentId;
    const moving = newParentId !== oldParentId;
    if (moving) {
      if (newParentId !== null && !data.labelParents.has(newParentId)) throw await invalidLabelField('parentId', 'label_not_in_pond', context.locale);
      const subtree = labelSubtree(data.labelParents, label.id);
      if (newParentId !== null && subtree.has(newParentId)) throw new ApiError('label_cycle', 409, { labelId: label.id, parentId: newParentId });
      const reshapesAccess = [oldParentId, newParentId].some((parentId) => parentId !== null && labelGovernsAccess(data, parentId));
      if (reshapesAccess) assertMayChangeGoverningLabel(data, context.subject, label.id);
      const subtreeHeight = Math.max(...subtree.values());
      assertDepthWithinLimit((newParentId === null ? 0 : labelDepth(data.labelParents, newParentId)) + subtreeHeight);
    }
    const name = input.name ?? label.name;
    if (input.name !== undefined || moving) await assertNameFree(label.pondId, newParentId, name, label.id, transaction);
    const renamed = name !== label.name;
    label.set({ name, color: input.color ?? label.color, parentId: newParentId });
    await writingLabel(() => label.save({ transaction }), name, newParentId);
    // The pages carrying the label are found by its name (search weight B).
    if (renamed) await reindexPagesLabelled(label.id, transaction);
    await announceAccessChange(label.pondId, transaction);
    return presentLabel(label, newParentId === null ? 1 : labelDepth(data.labelParents, newParentId) + 1);
  });
}

/**
 * Deletes a label with its subtree; the schema cascades to their page assignments and to the
 * grants scoped on them. If any label of the subtree or of its ancestor chain governs access,
 * only a pond admin may. Audited as `label.deleted` when grants went with it (that is an
 * access-rule change; a plain label deletion is content structure, which is not audited).
 */
export async function deleteLabel(context: LabelActorContext, target: Label): Promise<void> {
  const { sequelize } = context;
  await sequelize.transaction(async (transaction) => {
    const data = await lockPondAccess(sequelize, target.pondId, transaction);
    const label = await Label.findByPk(target.id, { transaction });
    if (!label) throw notFound();
    const subtree = [...labelSubtree(data.labelParents, label.id).keys()];
    if (subtree.some((id) => labelGovernsAccess(data, id))) assertMayChangeGoverningLabel(data, context.subject, label.id);
    const subtreeIds = new Set(subtree);
    const deletedGrantCount = countGrantsScopedOn(data, subtreeIds);
    const labelledPageIds = [...data.pageLabels].filter(([, ids]) => ids.some((id) => subtreeIds.has(id))).map(([pageId]) => pageId);
    await Label.destroy({ where: { id: label.id }, transaction });
    // Their label names leave the search vectors with the assignments.
    await reindexPages(labelledPageIds, transaction);
    await announceAccessChange(label.pondId, transaction);
    if (deletedGrantCount > 0) {
      await recordAudit(
        {
          actor: auditActorOf(context.user),
          action: 'label.deleted',
          details: { pondId: label.pondId, labelId: label.id, name: label.name, deletedLabelIds: subtree, deletedGrantCount },
          ip: context.ip,
        },
        transaction,
      );
    }
  });
}

/**
 * How a page's label set changes: the exact new set (already unique), or one label added or
 * removed. The single-label forms are resolved against the set as it is under the pond's lock,
 * so two concurrent assignments to one page never undo each other.
 */
export type PageLabelChange = { set: readonly string[] } | { add: string } | { remove: string };

function wantedLabels(current: ReadonlySet<string>, change: PageLabelChange): Set<string> {
  if ('set' in change) return new Set(change.set);
  const wanted = new Set(current);
  if ('add' in change) wanted.add(change.add);
  else wanted.delete(change.remove);
  return wanted;
}

/**
 * Changes the labels of a page. Every label must belong to the page's pond (400) and a page
 * carries at most MAX_LABELS_PER_PAGE (400). Adding or removing a label that governs access
 * needs a pond admin; then nothing changes at all. Adding a label the page carries, or removing
 * one it does not, changes nothing and succeeds.
 */
export async function changePageLabels(context: LabelActorContext, page: Page, change: PageLabelChange): Promise<PageLabelsView> {
  const { sequelize } = context;
  const { id: pageId, pondId } = page;
  return sequelize.transaction(async (transaction) => {
    const data = await lockPondAccess(sequelize, pondId, transaction);
    if (!(await Page.findByPk(pageId, { transaction }))) throw notFound();
    const current = new Set(data.pageLabels.get(pageId) ?? []);
    const wanted = wantedLabels(current, change);
    const foreign = [...wanted].filter((id) => !data.labelParents.has(id));
    if (foreign.length > 0) throw await invalidLabelField('labelIds', 'labels_not_in_pond', context.locale, { labelIds: foreign });
    if (wanted.size > MAX_LABELS_PER_PAGE) throw await invalidLabelField('labelIds', 'too_many_labels', context.locale, { maxLabels: MAX_LABELS_PER_PAGE });
    const added = [...wanted].filter((id) => !current.has(id));
    const removed = [...current].filter((id) => !wanted.has(id));
    const governing = [...added, ...removed].find((id) => labelGovernsAccess(data, id));
    if (governing) assertMayChangeGoverningLabel(data, context.subject, governing);
    if (removed.length > 0) await PageLabel.destroy({ where: { pageId, labelId: removed }, transaction });
    if (added.length > 0) await PageLabel.bulkCreate(added.map((labelId) => ({ pageId, labelId, pondId })), { transaction });
    if (added.length > 0 || removed.length > 0) {
      await reindexPages([pageId], transaction);
      await announceAccessChange(pondId, transaction);
    }
    const labels = await Label.findAll({ where: { pondId }, transaction });
    return { pageId, labelIds: [...wanted].sort(), labels: presentLabelTree(labels, wanted) };
  });
}

/** Replaces the labels of a page with exactly `labelIds` (already unique); see `changePageLabels`. */
export function setPageLabels(context: LabelActorContext, page: Page, labelIds: readonly string[]): Promise<PageLabelsView> {
  return changePageLabels(context, page, { set: labelIds });
}
