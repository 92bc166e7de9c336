/**
 * The Site Admin's editor of the landing and legal pages (`/admin/site`) previews its
 * Markdown here: rendered exactly as the public landing and legal documents render it, so
 * the preview is what visitors will see. Saving goes through `PATCH /admin/settings`.
 */
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { renderSiteMarkdown } from '../publicPages/homeContent.ts';
import { SETTING_DEFINITIONS } from '../settings/instanceSettings.ts';

/** The same limit as the settings it previews (`home.content`, `legal.*`). */
const previewBody = z.strictObject({ markdown: SETTING_DEFINITIONS['home.content'].schema });

export const adminSiteRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/admin/settings/preview',
    access: { kind: 'siteAdmin' },
    body: previewBody,
    handler: async ({ body }) => ({ body: { html: renderSiteMarkdown(body.markdown) } }),
  }),
];
