/**
 * Favorites: a signed-in user stars pages they can read and lists their stars per pond.
 * Anonymous callers get 401 once the access rule has let them see the target (on a public
 * page or pond); where they cannot see it, 404 as for anyone else, so existence stays hidden.
 */
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { addFavorite, DEFAULT_FAVORITE_LIST_LIMIT, listFavorites, MAX_FAVORITE_LIST_LIMIT, removeFavorite } from '../pages/favorites.ts';
import { timelineCursor } from '../http/cursorCodec.ts';

const listFavoritesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_FAVORITE_LIST_LIMIT).default(DEFAULT_FAVORITE_LIST_LIMIT),
  cursor: timelineCursor.field,
});

export const favoriteRoutes: AnyRoute[] = [
  defineRoute({
    method: 'put',
    path: '/pages/:id/favorite',
    access: { kind: 'page', capability: 'read', session: true },
    handler: async ({ actor, resource, services }) => {
      await addFavorite(services.sequelize, actor.user.id, resource.page);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/pages/:id/favorite',
    access: { kind: 'page', capability: 'read', session: true },
    handler: async ({ actor, resource, services }) => {
      await removeFavorite(services.sequelize, actor.user.id, resource.page);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ponds/:id/favorites',
    access: { kind: 'pond', capability: 'visible', session: true },
    query: listFavoritesQuery,
    handler: async ({ actor, query, resource, services }) => ({
      body: await listFavorites(services.sequelize, resource.access, actor.user.id, { limit: query.limit, cursor: query.cursor ?? null }),
    }),
  }),
];
