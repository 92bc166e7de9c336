/**
 * Watches: a signed-in user follows a page or a pond they can read. Setting and clearing are
 * idempotent (204 either way). As with favorites, a caller who cannot see the target gets
 * 404, so its existence stays hidden; an anonymous caller who can (a public page or pond)
 * gets 401. `GET` on a target answers whether the caller watches it (a page also says whether
 * its pond's watch covers it), for the watch buttons.
 */
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { addWatch, listWatches, pageWatchState, pondWatchState, removeWatch } from '../notifications/watches.ts';

export const watchRoutes: AnyRoute[] = [
  defineRoute({
    method: 'put',
    path: '/watches/page/:id',
    access: { kind: 'page', capability: 'read', session: true },
    handler: async ({ actor, resource, services }) => {
      await addWatch(services.sequelize, actor.user.id, { pondId: resource.page.pondId, pageId: resource.page.id });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/watches/page/:id',
    access: { kind: 'page', capability: 'read', session: true },
    handler: async ({ actor, resource, services }) => {
      await removeWatch(services.sequelize, actor.user.id, { pondId: resource.page.pondId, pageId: resource.page.id });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/watches/page/:id',
    access: { kind: 'page', capability: 'read', session: true },
    handler: async ({ actor, resource, services }) => ({ body: await pageWatchState(services.sequelize, actor.user.id, resource.page) }),
  }),
  defineRoute({
    method: 'put',
    path: '/watches/pond/:id',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ actor, resource, services }) => {
      await addWatch(services.sequelize, actor.user.id, { pondId: resource.pond.id });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/watches/pond/:id',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ actor, resource, services }) => {
      await removeWatch(services.sequelize, actor.user.id, { pondId: resource.pond.id });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/watches/pond/:id',
    access: { kind: 'pond', capability: 'visible', session: true },
    handler: async ({ actor, resource, services }) => ({ body: await pondWatchState(services.sequelize, actor.user.id, resource.pond.id) }),
  }),
  defineRoute({
    method: 'get',
    path: '/users/me/watches',
    access: { kind: 'session' },
    handler: async ({ subject, actor, services }) => ({ body: await listWatches(services.sequelize, { ...subject, userId: actor.user.id }) }),
  }),
];
