/** The signed-in user's own account and preferences. */
import { z } from 'zod';
import { displayNameSchema, localeSchema } from '../auth/accountSchemas.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { presentUser } from '../presenters/userPresenter.ts';

const profilePatch = z
  .strictObject({
    displayName: displayNameSchema.optional(),
    locale: localeSchema.nullable().optional(),
    digestFrequency: z.enum(['hourly', 'daily', 'off']).optional(),
    autoWatchOwnPages: z.boolean().optional(),
    autoWatchOnComment: z.boolean().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0);

export const userRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/users/me',
    access: { kind: 'session' },
    handler: async ({ actor }) => ({ body: presentUser(actor.user) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/users/me',
    access: { kind: 'session' },
    body: profilePatch,
    handler: async ({ actor, body }) => {
      const user = actor.user;
      user.set(Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)));
      await user.save();
      return { body: presentUser(user) };
    },
  }),
];
