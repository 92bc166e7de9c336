/**
 * The signed-in user's feed token (spec: Feed token): whether there is one, create or rotate
 * it (the secret is in this one answer, with the ready feed URLs of the user's ponds), revoke
 * it. Session routes: the cookie, and the CSRF origin check on writes. Creation, rotation and
 * revocation are audited like the other auth events; the secret never is.
 */
import type { Sequelize } from 'sequelize';
import type { Actor } from '../auth/authenticateRequest.ts';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { feedTokenStatus, issueFeedToken, revokeFeedToken } from '../feeds/feedTokens.ts';
import { pondFeedUrl, publicBaseUrl, withFeedToken } from '../feeds/feedUrls.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { accessSubjectOf, listMemberPonds } from '../policies/accessPolicy.ts';
import type { AppServices } from '../services.ts';

export interface FeedTokenView {
  exists: boolean;
  createdAt: string | null;
  lastUsedAt: string | null;
}

/** One ready-to-copy feed per pond the user belongs to (personal pond first, then by name). */
export interface TokenFeedView {
  pondId: string;
  pondSlug: string;
  pondName: string;
  url: string;
}

async function tokenFeeds(services: AppServices, actor: Actor, token: string): Promise<TokenFeedView[]> {
  const ponds = await listMemberPonds(services.sequelize, accessSubjectOf(actor));
  const baseUrl = await publicBaseUrl(services);
  return ponds.map(({ pond }) => ({ pondId: pond.id, pondSlug: pond.slug, pondName: pond.name, url: withFeedToken(pondFeedUrl(baseUrl, pond.slug), token) }));
}

async function issue(sequelize: Sequelize, actor: Actor, ip: string | undefined) {
  return sequelize.transaction(async (transaction) => {
    const issued = await issueFeedToken(sequelize, actor.user.id, transaction);
    const action = issued.rotated ? 'auth.feed_token_rotated' : 'auth.feed_token_created';
    await recordAudit({ actor: auditActorOf(actor.user), action, ip }, transaction);
    return issued;
  });
}

export const feedTokenRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/users/me/feed-token',
    access: { kind: 'session' },
    handler: async ({ actor, services }) => {
      const status = await feedTokenStatus(services.sequelize, actor.user.id);
      const body: FeedTokenView = { exists: status.exists, createdAt: status.createdAt?.toISOString() ?? null, lastUsedAt: status.lastUsedAt?.toISOString() ?? null };
      return { body };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/users/me/feed-token',
    access: { kind: 'session' },
    handler: async ({ req, res, actor, services }) => {
      const issued = await issue(services.sequelize, actor, req.ip);
      // The secret is in this answer only: nothing may keep it.
      res.setHeader('Cache-Control', 'no-store');
      return { status: 201, body: { token: issued.token, createdAt: issued.createdAt.toISOString(), feeds: await tokenFeeds(services, actor, issued.token) } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/users/me/feed-token',
    access: { kind: 'session' },
    handler: async ({ req, actor, services }) => {
      await services.sequelize.transaction(async (transaction) => {
        if (await revokeFeedToken(services.sequelize, actor.user.id, transaction)) {
          await recordAudit({ actor: auditActorOf(actor.user), action: 'auth.feed_token_revoked', ip: req.ip }, transaction);
        }
      });
    },
  }),
];
