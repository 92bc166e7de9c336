/**
 * Labels of a pond (a tree, at most 6 deep) and the labels of a page. Labels are permission
 * scopes: changes that can alter anyone's access need a pond admin (see labelCommands.ts).
 */
import { z } from 'zod';
import {
  MAX_LABELS_PER_PAGE,
  createLabel,
  deleteLabel,
  setPageLabels,
  updateLabel,
  type LabelActorContext,
} from '../commands/labelCommands.ts';
import { labelPageCounts, labelsAroundReadablePages } from '../pages/labelPageCounts.ts';
import { defineRoute, type AnyRoute, type SignedInRouteContext } from '../http/routeTable.ts';
import { Label } from '../models/index.ts';
import { readsWholePond } from '../policies/membership.ts';
import { presentLabelTree } from '../presenters/labelPresenter.ts';

// The label fields, shared with the public REST API (api/publicApi/routes/labelApiRoutes.ts).
// Postgres answers ids in lower case; compare them that way.
export const labelId = z.uuid().transform((id) => id.toLowerCase());
// `/` separates the labels of a path ("Projects/2025") where views show one.
export const labelName = z.string().trim().min(1).max(64).regex(/^[^/]*$/);
export const labelColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .transform((color) => color.toLowerCase());

const createLabelBody = z.object({ name: labelName, color: labelColor, parentId: labelId.nullable().optional() });
const updateLabelBody = z.object({ name: labelName.optional(), color: labelColor.optional(), parentId: labelId.nullable().optional() });
const pageLabelsBody = z.object({
  labelIds: z
    .array(labelId)
    .transform((ids) => [...new Set(ids)])
    .pipe(z.array(z.string()).max(MAX_LABELS_PER_PAGE)),
});

function labelActor(context: SignedInRouteContext): LabelActorContext {
  return { sequelize: context.services.sequelize, subject: context.subject, user: context.actor.user, ip: context.req.ip, locale: context.locale };
}

export const labelRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:id/labels',
    access: { kind: 'pond', capability: 'visible' },
    handler: async ({ resource, services }) => {
      const labels = await Label.findAll({ where: { pondId: resource.pond.id } });
      const counts = await labelPageCounts(services.sequelize, resource.pond.id, resource.access, labels);
      // The whole tree for those who read the whole pond by their own grants; anyone who reads
      // only part of it (visitors, label- and page-scope guests) sees it around those pages.
      const shown = readsWholePond(resource.access) ? undefined : labelsAroundReadablePages(labels, counts);
      const items = presentLabelTree(labels, shown).map((label) => ({ ...label, ...(counts.get(label.id) ?? { pageCount: 0, subtreePageCount: 0 }) }));
      return { body: { items, nextCursor: null } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:id/labels',
    access: { kind: 'pond', capability: 'write' },
    body: createLabelBody,
    handler: async (context) => {
      const { name, color, parentId } = context.body;
      const label = await createLabel(labelActor(context), context.resource.pond.id, { name, color, parentId: parentId ?? null });
      return { status: 201, body: label };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/labels/:id',
    access: { kind: 'label', capability: 'write' },
    body: updateLabelBody,
    handler: async (context) => ({ body: await updateLabel(labelActor(context), context.resource.label, context.body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/labels/:id',
    access: { kind: 'label', capability: 'write' },
    handler: async (context) => {
      await deleteLabel(labelActor(context), context.resource.label);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/pages/:id/labels',
    access: { kind: 'page', capability: 'write' },
    body: pageLabelsBody,
    handler: async (context) => ({ body: await setPageLabels(labelActor(context), context.resource.page, context.body.labelIds) }),
  }),
];
