/**
 * `GET /home/content`: the landing page, rendered. Public, and behind the setup gate like
 * every route the spec does not exempt: while setup runs there is no landing page yet
 * (the site sends every visitor to the wizard).
 */
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { loadHomeContent } from '../publicPages/homeContent.ts';

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
];
