/** `GET /me`: who the token belongs to and what the token may do. */
import { defineRoute, type AnyRoute } from '../../http/routeTable.ts';
import { Pond } from '../../models/index.ts';
import { apiMe, type ApiMe } from '../publicApiViews.ts';

export const meRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/me',
    access: { kind: 'token', scope: 'read' },
    describe: {
      summary: 'The token owner and the token',
      description: "The account the token acts for, and the token's scope and pond restriction.",
      tag: 'Me',
      response: { status: 200, schema: apiMe, description: 'The token owner' },
    },
    handler: async ({ actor }) => {
      const token = actor.token!;
      const pond = token.pondId ? await Pond.findByPk(token.pondId, { attributes: ['slug'] }) : null;
      const body: ApiMe = {
        id: actor.user.id,
        username: actor.user.username,
        displayName: actor.user.displayName,
        locale: actor.user.locale,
        token: { id: token.id, name: token.name, scope: token.scope, pond: pond?.slug ?? null },
      };
      return { body };
    },
  }),
];
