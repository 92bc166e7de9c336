/**
 * Attachment bytes (spec: Files and media, `GET /media/:fileId`). The route is public: the
 * access rule cannot name the page, which comes from the file's row, so the handler asks the
 * policy module itself (api/files/mediaDelivery.ts) — anonymous callers pass where a public
 * grant reaches the page. Express answers HEAD with this GET route.
 */
import { auditActorOf } from '../audit/auditLog.ts';
import { answerNotModified, findReadableMediaFile, openVerifiedFile, sendVerifiedFile } from '../files/mediaDelivery.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';

export const mediaRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/media/:fileId',
    access: { kind: 'public' },
    handler: async ({ req, res, params, actor, subject, services }) => {
      const file = await findReadableMediaFile(services.sequelize, subject, params.fileId);
      if (answerNotModified(req, res, file.sha256)) return;
      const verified = await openVerifiedFile(services, file, { actor: actor ? auditActorOf(actor.user) : null, ip: req.ip });
      try {
        await sendVerifiedFile(req, res, file, verified, services.logger);
      } finally {
        await verified.handle.close();
      }
    },
  }),
];
