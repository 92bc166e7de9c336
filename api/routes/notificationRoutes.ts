/**
 * The signed-in user's notifications: the list (unread first, then newest; items whose page
 * they may no longer read are left out, as is their share of `unreadCount`), marking one read
 * and marking all read. Someone else's notification answers 404, as an unknown one does.
 */
import { z } from 'zod';
import { notificationCursor } from '../http/cursorCodec.ts';
import { notFound } from '../http/apiError.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import {
  DEFAULT_NOTIFICATION_LIST_LIMIT,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  MAX_NOTIFICATION_LIST_LIMIT,
} from '../notifications/notificationList.ts';

const listNotificationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_NOTIFICATION_LIST_LIMIT).default(DEFAULT_NOTIFICATION_LIST_LIMIT),
  cursor: notificationCursor.field,
});

export const notificationRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/notifications',
    access: { kind: 'session' },
    query: listNotificationsQuery,
    handler: async ({ query, subject, actor, services }) => ({
      body: await listNotifications(services.sequelize, { ...subject, userId: actor.user.id }, { limit: query.limit, cursor: query.cursor ?? null }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/notifications/read-all',
    access: { kind: 'session' },
    handler: async ({ actor, services }) => {
      await markAllNotificationsRead(services.sequelize, actor.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/notifications/:id/read',
    access: { kind: 'session' },
    handler: async ({ params, actor, services }) => {
      if (!(await markNotificationRead(services.sequelize, actor.user.id, params.id))) throw notFound();
      return { status: 204 };
    },
  }),
];
