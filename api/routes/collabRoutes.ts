/**
 * `GET /pages/:id/collab-token`: the ticket for the collaboration socket. Public route, guarded
 * by the page's read permission: anonymous visitors get a read-only token where a public grant
 * makes the page readable, and a plain 404 everywhere else. `rw` needs write permission.
 * A trashed page cannot be opened for editing: editors get `page_trashed` (the page rule).
 * A signed-in token names the session it was issued to (collabToken.ts).
 */
import { signCollabToken, type CollabMode } from '../collab/collabToken.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';

/** Path of the collaboration WebSocket on the public origin (proxied to the collab process). */
export const COLLAB_PATH = '/collab';

export interface CollabTokenView {
  token: string;
  mode: CollabMode;
  expiresAt: string;
  /** Document name for the provider: the page id. */
  documentName: string;
  /** Path of the WebSocket endpoint on this origin. */
  path: string;
}

export const collabRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/pages/:id/collab-token',
    access: { kind: 'page', capability: 'read' },
    handler: async ({ actor, resource, services, res }) => {
      const page = resource.page;
      const mode: CollabMode = actor && resource.access.page(page, 'write').allowed ? 'rw' : 'ro';
      // The session's row id, not the cookie: the server closes the socket when this session ends.
      const origin = actor?.session ? ({ kind: 'session', sessionId: actor.session.id } as const) : null;
      const { token, expiresAt } = signCollabToken(services.config.sessionSecret, { pageId: page.id, userId: actor?.user.id ?? null, origin, mode });
      // A token is a credential: no shared cache may keep it.
      res.setHeader('Cache-Control', 'no-store');
      return { body: { token, mode, expiresAt: expiresAt.toISOString(), documentName: page.id, path: COLLAB_PATH } satisfies CollabTokenView };
    },
  }),
];
