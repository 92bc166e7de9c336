/**
 * Page versions: create a manual one, list a page's versions, read one rendered, restore one.
 *
 * `/versions/:id` names a version, not a page: the access rule cannot load the page, so those
 * routes use the `public` / `session` rule and authorize the version's page in the handler
 * with the same policy call (a missing version and an unreadable page both answer 404, a
 * trashed page `page_trashed` as on the page routes). Anonymous readers of a public page
 * may read its versions.
 */
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { documentToHtml, documentToMarkdown, yjsUpdateToDocument } from '../../content-pipeline/index.ts';
import { createManualVersion, restoreVersion } from '../commands/versionCommands.ts';
import {
  DEFAULT_VERSION_LIST_LIMIT,
  listVersions,
  loadVersion,
  MAX_VERSION_LIST_LIMIT,
  pageIdOfVersion,
  VERSION_LABEL_MAX_LENGTH,
} from '../documents/versions.ts';
import { notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { timelineCursor } from '../http/cursorCodec.ts';
import { storableString } from '../http/fieldSchemas.ts';
import { loadPageDetail } from '../pages/pageDetail.ts';
import { authorizePage, type AccessSubject, type PageCapability } from '../policies/accessPolicy.ts';
import { presentVersion, presentVersionDetail } from '../presenters/versionPresenter.ts';

const createVersionBody = z.strictObject({
  // Blank means unnamed.
  label: storableString()
    .trim()
    .max(VERSION_LABEL_MAX_LENGTH)
    .nullable()
    .optional()
    .transform((label) => (label ? label : null)),
});

const listVersionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_VERSION_LIST_LIMIT).default(DEFAULT_VERSION_LIST_LIMIT),
  cursor: timelineCursor.field,
});

/** The version's page, authorized as the page routes would; 404 for a missing version. */
async function authorizeVersionPage(sequelize: Sequelize, subject: AccessSubject, versionId: string, capability: PageCapability) {
  const pageId = await pageIdOfVersion(sequelize, versionId);
  if (!pageId) throw notFound();
  return authorizePage(sequelize, subject, pageId, capability);
}

export const versionRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/pages/:id/versions',
    access: { kind: 'page', capability: 'write' },
    body: createVersionBody,
    handler: async ({ body, actor, resource, services, locale }) => {
      const { id } = await createManualVersion(services.sequelize, { page: resource.page, userId: actor.user.id, label: body.label });
      const version = await loadVersion(services.sequelize, id);
      if (!version) throw notFound();
      return { status: 201, body: presentVersion(version, await locale()) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/pages/:id/versions',
    access: { kind: 'page', capability: 'read' },
    query: listVersionsQuery,
    handler: async ({ query, resource, services, locale }) => {
      const listing = await listVersions(services.sequelize, resource.page.id, { limit: query.limit, cursor: query.cursor ?? null });
      const language = await locale();
      return { body: { items: listing.items.map((version) => presentVersion(version, language)), nextCursor: listing.nextCursor } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/versions/:id',
    access: { kind: 'public' },
    handler: async ({ params, subject, services, locale }) => {
      await authorizeVersionPage(services.sequelize, subject, params.id ?? '', 'read');
      const version = await loadVersion(services.sequelize, params.id ?? '');
      if (!version) throw notFound();
      const document = yjsUpdateToDocument(version.state);
      return { body: presentVersionDetail(version, { html: documentToHtml(document), markdown: documentToMarkdown(document) }, await locale()) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/versions/:id/restore',
    access: { kind: 'session' },
    handler: async ({ params, actor, subject, services }) => {
      const { access } = await authorizeVersionPage(services.sequelize, subject, params.id ?? '', 'write');
      const restored = await restoreVersion(services.sequelize, { versionId: params.id ?? '', userId: actor.user.id });
      return {
        body: {
          page: await loadPageDetail(services.sequelize, restored.page, access),
          preRestoreVersionId: restored.preRestoreVersionId,
          restoredVersionId: restored.restoredVersionId,
        },
      };
    },
  }),
];
