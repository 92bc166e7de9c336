/**
 * `GET /home/content`: the landing page, rendered. Public, and behind the setup gate like
 * every route the spec does not exempt: while setup runs there is no landing page yet
 * (the site sends every visitor to the wizard).
 *
 * `GET /home/overview`: what the landing page at `/` shows a visitor: the same text (the
 * built-in welcome in the caller's language, as every screen picks it), the public ponds and
 * the recently changed public pages (api/publicPages/homeContent.ts).
 */
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { resolveRequestLocale } from '../http/requestLocale.ts';
import { loadHomeContent, loadPublicOverview } from '../publicPages/homeContent.ts';

export const homeRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/home/content',
    access: { kind: 'public' },
    handler: async () => {
      const { html, markdown, isDefault } = await loadHomeContent();
      return { body: { html, markdown, isDefault } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/home/overview',
    access: { kind: 'public' },
    handler: async ({ req, services }) => {
      const [{ html, isDefault }, overview] = await Promise.all([loadHomeContent(await resolveRequestLocale(req)), loadPublicOverview(services.sequelize)]);
      return { body: { content: { html, isDefault }, ...overview } };
    },
  }),
];
