/**
 * Labels for the public REST API and MCP (`list_labels`, `set_page_labels`): a pond's tree,
 * create, rename / recolour / move, delete, and the labels of a page. The commands are the
 * internal routes' (api/commands/labelCommands.ts), under the same capabilities: the tree needs
 * the pond visible, changes to it pond-level write (api/routes/labelRoutes.ts), a page's labels
 * write on the page; a label that governs access still needs a pond admin (the commands).
 *
 * A label named in a path belongs to the path's pond, else it is as unknown as a missing one
 * (404), whoever asks.
 */
import { changePageLabels, createLabel, deleteLabel, updateLabel, type LabelActorContext, type PageLabelChange, type UpdateLabelInput } from '../../commands/labelCommands.ts';
import { forbidden, notFound } from '../../http/apiError.ts';
import { Label, type Pond } from '../../models/index.ts';
import { isUuid, type SubjectAccess } from '../../policies/accessPolicy.ts';
import { presentLabelTree, type LabelView, type PageLabelsView } from '../../presenters/labelPresenter.ts';
import { resolveApiPage, resolveApiPond, type ApiCall } from '../apiCall.ts';
import type { ApiLabel, ApiLabelNode, ApiPageLabels } from '../views/labelViews.ts';

function labelActorOf(call: ApiCall): LabelActorContext {
  return { sequelize: call.services.sequelize, subject: call.subject, user: call.actor.user, ip: call.ip, locale: call.locale };
}

function apiLabelOf(label: LabelView): ApiLabel {
  return { id: label.id, name: label.name, color: label.color, parentId: label.parentId, depth: label.depth };
}

/** Tree-ordered views (parents first, siblings by name) nested under their parents, in that order. */
export function nestLabels(views: readonly LabelView[]): ApiLabelNode[] {
  const nodes = new Map<string, ApiLabelNode>();
  const roots: ApiLabelNode[] = [];
  for (const view of views) {
    const node: ApiLabelNode = { ...apiLabelOf(view), children: [] };
    nodes.set(view.id, node);
    const parent = view.parentId === null ? undefined : nodes.get(view.parentId);
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** The pond's label, 404 when the id names no label of this pond. */
async function labelOfPond(pond: Pond, labelId: string): Promise<Label> {
  const label = isUuid(labelId) ? await Label.findOne({ where: { id: labelId.toLowerCase(), pondId: pond.id } }) : null;
  if (!label) throw notFound();
  return label;
}

/** Changes to the tree are pond-level writes, as on the internal label routes (403 for a pond the caller only reads). */
function assertMayChangeLabels(access: SubjectAccess): void {
  if (!access.pond('write').allowed) throw forbidden();
}

/** The pond's labels as a tree: roots by name, each with its `children`. */
export async function listApiLabels(call: ApiCall, pondSlug: string): Promise<{ items: ApiLabelNode[]; nextCursor: null }> {
  const { pond } = await resolveApiPond(call, pondSlug);
  return { items: nestLabels(presentLabelTree(await Label.findAll({ where: { pondId: pond.id } }))), nextCursor: null };
}

export interface CreateApiLabelInput {
  name: string;
  color: string;
  parentId?: string | null | undefined;
}

export async function createApiLabel(call: ApiCall, pondSlug: string, input: CreateApiLabelInput): Promise<ApiLabel> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  assertMayChangeLabels(access);
  return apiLabelOf(await createLabel(labelActorOf(call), pond.id, { name: input.name, color: input.color, parentId: input.parentId ?? null }));
}

/** Rename, recolour and/or move (`parentId` null: to the root); 400 when nothing is given. */
export async function updateApiLabel(call: ApiCall, pondSlug: string, labelId: string, input: UpdateLabelInput): Promise<ApiLabel> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  const label = await labelOfPond(pond, labelId);
  assertMayChangeLabels(access);
  return apiLabelOf(await updateLabel(labelActorOf(call), label, input));
}

/** Deletes the label with its subtree (their page assignments and grants go with them). */
export async function deleteApiLabel(call: ApiCall, pondSlug: string, labelId: string): Promise<void> {
  const { pond, access } = await resolveApiPond(call, pondSlug);
  const label = await labelOfPond(pond, labelId);
  assertMayChangeLabels(access);
  await deleteLabel(labelActorOf(call), label);
}

function apiPageLabelsOf(pageSlug: string, view: PageLabelsView): ApiPageLabels {
  return { page: pageSlug, labels: view.labels.map((label) => ({ id: label.id, name: label.name, color: label.color })) };
}

async function changeApiPageLabels(call: ApiCall, pondSlug: string, pageSlug: string, change: (pond: Pond) => Promise<PageLabelChange>): Promise<ApiPageLabels> {
  const { pond, page } = await resolveApiPage(call, pondSlug, pageSlug, 'write');
  return apiPageLabelsOf(page.slug, await changePageLabels(labelActorOf(call), page, await change(pond)));
}

/** Adds one label to the page; one it already carries stays, and that is no error. */
export function assignApiPageLabel(call: ApiCall, pondSlug: string, pageSlug: string, labelId: string): Promise<ApiPageLabels> {
  return changeApiPageLabels(call, pondSlug, pageSlug, async (pond) => ({ add: (await labelOfPond(pond, labelId)).id }));
}

/** Takes one label off the page; one it does not carry is no error. */
export function unassignApiPageLabel(call: ApiCall, pondSlug: string, pageSlug: string, labelId: string): Promise<ApiPageLabels> {
  return changeApiPageLabels(call, pondSlug, pageSlug, async (pond) => ({ remove: (await labelOfPond(pond, labelId)).id }));
}

/**
 * The page carries exactly `labelIds` afterwards (MCP `set_page_labels`): 400 `validation_failed`
 * when one is not a label of the pond or there are more than 50.
 */
export function setApiPageLabels(call: ApiCall, pondSlug: string, pageSlug: string, labelIds: readonly string[]): Promise<ApiPageLabels> {
  return changeApiPageLabels(call, pondSlug, pageSlug, async () => ({ set: [...new Set(labelIds.map((id) => id.toLowerCase()))] }));
}
