/**
 * The Site Admin's editor of the landing and legal pages (`/admin/site`) previews its
 * Markdown here: rendered exactly as the public landing and legal documents render it, so
 * the preview is what visitors will see. Saving goes through `PATCH /admin/settings`.
 */
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { homeContentFor, renderSiteMarkdown } from '../publicPages/homeContent.ts';
import { SETTING_DEFINITIONS } from '../settings/instanceSettings.ts';

const previewBody = z.strictObject({
  /** The same limit as the settings it previews (`home.content`, `legal.*`). */
  markdown: SETTING_DEFINITIONS['home.content'].schema,
  /** `home`: a blank text previews the built-in welcome, as the landing page would show it. */
  page: z.enum(['home', 'imprint', 'privacy']).optional(),
});

export const adminSiteRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/admin/settings/preview',
    access: { kind: 'siteAdmin' },
    body: previewBody,
    handler: async ({ body }) => {
      if (body.page === 'home') {
        const { html, isDefault } = await homeContentFor(body.markdown);
        return { body: { html, isDefault } };
      }
      return { body: { html: renderSiteMarkdown(body.markdown), isDefault: false } };
    },
  }),
];
