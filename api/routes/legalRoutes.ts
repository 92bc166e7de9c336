/**
 * Legal pages (imprint, privacy), reachable even while setup is pending (spec: Legal). They
 * are generated public documents like every other public page (api/publicPages/): the texts
 * come from `legal.imprint` / `legal.privacy` as Markdown, rendered by the content pipeline
 * (sanitized; raw HTML shows as text), in the public layout and the instance default locale;
 * an unconfigured page shows a localized notice. The hot path answers `/api/v1/legal/:kind`
 * (and `/legal/:kind`) before Express; this route gives the same bytes where it is not mounted.
 */
import { z } from 'zod';
import { ApiError } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { PUBLIC_DOCUMENT_CSP } from '../publicPages/publicHotPath.ts';
import { documentAtPath } from '../publicPages/publicDocumentService.ts';

export const legalRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/legal/:kind',
    access: { kind: 'public' },
    setupExempt: true,
    params: z.object({ kind: z.enum(['imprint', 'privacy']) }),
    handler: async ({ params, res, services }) => {
      const document = await documentAtPath({ sequelize: services.sequelize, fallbackBaseUrl: services.config.baseUrl }, `/legal/${params.kind}`);
      if (!document) throw new ApiError('not_found');
      res.setHeader('Content-Security-Policy', PUBLIC_DOCUMENT_CSP);
      res.setHeader('ETag', document.etag);
      res.setHeader('Cache-Control', 'public, no-cache');
      res.type('html').send(document.html);
    },
  }),
];
