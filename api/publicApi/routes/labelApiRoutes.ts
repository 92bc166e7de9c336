/**
 * Labels (spec: Public REST API: tree, create, rename, recolour, move, delete, assign,
 * unassign). The field rules are the internal routes' (api/routes/labelRoutes.ts).
 */
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { labelColor, labelId, labelName } from '../../routes/labelRoutes.ts';
import { apiCallOf } from '../apiCall.ts';
import { assignApiPageLabel, createApiLabel, deleteApiLabel, listApiLabels, unassignApiPageLabel, updateApiLabel } from '../operations/labelOperations.ts';
import { apiList } from '../publicApiViews.ts';
import { apiLabel, apiLabelNode, apiPageLabels } from '../views/labelViews.ts';
import { pondSlugParams } from './pondApiRoutes.ts';

// Any text: an id that names no label of the pond, malformed or not, is the same 404.
const labelIdParam = z.string().describe("The label's id");
const labelParams = pondSlugParams.extend({ labelId: labelIdParam });
const pageLabelParams = pondSlugParams.extend({ pageSlug: z.string().describe("The page's slug"), labelId: labelIdParam });

const name = labelName.describe('Unique among its siblings (case-insensitively); no `/`');
const color = labelColor.describe('`#rrggbb`');
const parentId = labelId.nullable().describe('A label of the same pond; null: a root label');

const createBody = z.strictObject({ name, color, parentId: parentId.optional() });
const updateBody = z.strictObject({ name: name.optional(), color: color.optional(), parentId: parentId.optional().describe('Moves the label with its subtree; null: to the root') });

const LABEL_ERRORS = [400, 409];

export const labelApiRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/ponds/:pondSlug/labels',
    access: { kind: 'token', scope: 'read' },
    params: pondSlugParams,
    describe: {
      summary: 'The label tree',
      description: 'Root labels by name, each with its `children` (at most 6 levels).',
      tag: 'Labels',
      response: { status: 200, schema: apiList(apiLabelNode), description: 'The tree (one page: `nextCursor` is always null)' },
    },
    handler: async (context) => ({ body: await listApiLabels(apiCallOf(context), context.params.pondSlug) }),
  }),
  defineRoute({
    method: 'post',
    path: '/ponds/:pondSlug/labels',
    access: { kind: 'token', scope: 'write' },
    params: pondSlugParams,
    body: createBody,
    describe: {
      summary: 'Create a label',
      description: 'Needs write permission on the pond. 409 `label_name_taken` for a name its siblings have, `label_depth_exceeded` beyond 6 levels.',
      tag: 'Labels',
      response: { status: 201, schema: apiLabel, description: 'The new label' },
      errors: LABEL_ERRORS,
    },
    handler: async (context) => ({ status: 201, body: await createApiLabel(apiCallOf(context), context.params.pondSlug, context.body) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/ponds/:pondSlug/labels/:labelId',
    access: { kind: 'token', scope: 'write' },
    params: labelParams,
    body: updateBody,
    describe: {
      summary: 'Rename, recolour or move a label',
      description:
        'Needs write permission on the pond; moving a label that governs access needs a pond admin (403 `label_governs_access`). 409 `label_cycle` under its own subtree, `label_depth_exceeded`, `label_name_taken`.',
      tag: 'Labels',
      response: { status: 200, schema: apiLabel, description: 'The label after the change' },
      errors: LABEL_ERRORS,
    },
    handler: async (context) => ({ body: await updateApiLabel(apiCallOf(context), context.params.pondSlug, context.params.labelId, context.body) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/ponds/:pondSlug/labels/:labelId',
    access: { kind: 'token', scope: 'write' },
    params: labelParams,
    describe: {
      summary: 'Delete a label with its subtree',
      description: 'The labels leave every page. Needs write permission on the pond; a subtree with a label that governs access needs a pond admin.',
      tag: 'Labels',
      response: { status: 204, schema: null, description: 'Deleted' },
    },
    handler: async (context) => {
      await deleteApiLabel(apiCallOf(context), context.params.pondSlug, context.params.labelId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/ponds/:pondSlug/pages/:pageSlug/labels/:labelId',
    access: { kind: 'token', scope: 'write' },
    params: pageLabelParams,
    describe: {
      summary: 'Assign a label to a page',
      description: 'Needs write permission on the page. A label the page already carries is no error. At most 50 labels per page (400).',
      tag: 'Labels',
      response: { status: 200, schema: apiPageLabels, description: "The page's labels now" },
      errors: [400],
    },
    handler: async (context) => ({ body: await assignApiPageLabel(apiCallOf(context), context.params.pondSlug, context.params.pageSlug, context.params.labelId) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/ponds/:pondSlug/pages/:pageSlug/labels/:labelId',
    access: { kind: 'token', scope: 'write' },
    params: pageLabelParams,
    describe: {
      summary: 'Take a label off a page',
      description: 'Needs write permission on the page. A label the page does not carry is no error.',
      tag: 'Labels',
      response: { status: 200, schema: apiPageLabels, description: "The page's labels now" },
    },
    handler: async (context) => ({ body: await unassignApiPageLabel(apiCallOf(context), context.params.pondSlug, context.params.pageSlug, context.params.labelId) }),
  }),
];
