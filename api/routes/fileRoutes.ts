/**
 * Attachments (spec: Files and media endpoints): upload to a page, a page's files, a pond's
 * files for its admins, and deleting a file. The bytes are served by `GET /media/:fileId`
 * (mediaRoutes.ts).
 *
 * Limits come from the quota ladder (api/quotas/quotaLadder.ts): the pond's storage quota and
 * `max_file_bytes`, both with the pond owner's override as their user rung (spec: Limits), so
 * who uploads does not change what the pond accepts.
 */
import { z } from 'zod';
import { deleteFile, storeUpload } from '../commands/fileCommands.ts';
import { claimedFilesOfPage, filesOfPage, findFile, pondStorageUsed, presentFile } from '../files/fileViews.ts';
import { DEFAULT_POND_FILE_LIMIT, listPondFiles, MAX_POND_FILE_LIMIT } from '../files/pondFileList.ts';
import { receiveUpload } from '../files/uploadReceiver.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { timelineCursor } from '../http/cursorCodec.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { Pond } from '../models/index.ts';
import { authorizePage, authorizePond, isUuid, seesPondAsMember } from '../policies/accessPolicy.ts';
import { resolveQuota } from '../quotas/quotaLadder.ts';
import { getSetting } from '../settings/instanceSettings.ts';

const pondFilesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_POND_FILE_LIMIT).default(DEFAULT_POND_FILE_LIMIT),
  cursor: timelineCursor.field,
  /** `true`: only orphans (the Files screen's filter, across every page of the list). */
  orphan: z.enum(['true', 'false']).optional(),
});

export const fileRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/pages/:id/files',
    access: { kind: 'page', capability: 'write' },
    handler: async ({ req, res, resource, actor, services }) => {
      const { page } = resource;
      const pond = await Pond.findByPk(page.pondId);
      if (!pond) throw notFound();
      const [allowedExtensions, svgPolicy, maxFile, storage, usage] = await Promise.all([
        getSetting('upload.allowedExtensions'),
        getSetting('upload.svgPolicy'),
        resolveQuota('max_file_bytes', { pondId: pond.id, userId: pond.ownerId }),
        resolveQuota('storage_bytes', { pondId: pond.id, userId: pond.ownerId }),
        pondStorageUsed(services.sequelize, pond.id),
      ]);
      const { dataDir } = services.config;
      try {
        const upload = await receiveUpload(req, dataDir, { allowedExtensions, svgPolicy, maxFileBytes: maxFile.limit, storageLimit: storage.limit, storageUsed: usage.usedBytes });
        const row = await storeUpload(services.sequelize, { dataDir, pondId: pond.id, pageId: page.id, uploaderId: actor.user.id, upload, storageLimit: storage.limit });
        return { status: 201, body: presentFile(row) };
      } catch (error) {
        // The rest of a refused upload is not read: the connection closes after the answer.
        if (!res.headersSent) res.setHeader('Connection', 'close');
        throw error;
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/pages/:id/files',
    access: { kind: 'page', capability: 'read' },
    // Members get every file of the page; visitors its claimed files, by display name (docs/access-model.md).
    handler: async ({ resource, services }) => ({
      body: { items: seesPondAsMember(resource.access) ? await filesOfPage(services.sequelize, resource.page.id) : await claimedFilesOfPage(services.sequelize, resource.page.id) },
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/files',
    access: { kind: 'pond', capability: 'admin' },
    query: pondFilesQuery,
    handler: async ({ resource, query, services }) => ({
      body: await listPondFiles(services.sequelize, resource.pond, { limit: query.limit, cursor: query.cursor ?? null, orphansOnly: query.orphan === 'true' }),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: '/files/:id',
    // Decided by the file's page: its writers, else the pond's admins. Anyone else hears the
    // page's answer: 403 from those who may read the page, 404 otherwise (as for an unknown id).
    access: { kind: 'session' },
    handler: async ({ params, subject, services }) => {
      const file = isUuid(params.id) ? await findFile(services.sequelize, params.id) : null;
      if (!file) throw notFound();
      const pageId = file.page_id ?? file.upload_page_id;
      let refusal: ApiError = notFound();
      let allowed = false;
      if (pageId) {
        try {
          await authorizePage(services.sequelize, subject, pageId, 'write', { allowTrashed: true });
          allowed = true;
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          refusal = error;
        }
      }
      if (!allowed) {
        try {
          await authorizePond(services.sequelize, subject, file.pond_id, 'admin');
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          // Never the pond's refusal: its 403 (to whoever sees the pond) would tell a member that
          // a file exists on a page they cannot read. A file of no page is the pond admins' alone.
          throw refusal;
        }
      }
      await deleteFile(services.sequelize, file.id, { dataDir: services.config.dataDir, logger: services.logger });
    },
  }),
];
