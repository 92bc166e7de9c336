/**
 * The signed-in user's personal access tokens (spec: Personal access token; Public REST API,
 * token lifecycle): list, create (scope, optional expiry, optional pond restriction) and
 * revoke. Session routes of the internal cookie router only, with the CSRF origin check on
 * writes: no bearer token ever reaches them, so a token can never mint or revoke tokens.
 *
 * The secret is in the creation answer only (`Cache-Control: no-store`). Creation and
 * revocation are audited (`api.token_created`, `api.token_revoked`) in the transaction of the
 * write; the audit names the token, never its secret.
 */
import { z } from 'zod';
import { auditActorOf, recordAudit } from '../audit/auditLog.ts';
import { assertRoomForAccessToken, createAccessToken, listAccessTokens, revokeAccessToken, type AccessTokenRecord } from '../auth/accessTokens.ts';
import { ApiError, notFound } from '../http/apiError.ts';
import { isoTimestampField } from '../http/fieldSchemas.ts';
import { defineRoute, type AnyRoute } from '../http/routeTable.ts';
import { Pond } from '../models/index.ts';
import { authorizePond } from '../policies/accessPolicy.ts';
import { presentApiToken, type ApiTokenPondView, type ApiTokenView } from '../presenters/apiTokenPresenter.ts';

export const API_TOKEN_NAME_MAX_LENGTH = 100;

const createTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(API_TOKEN_NAME_MAX_LENGTH),
  scope: z.enum(['read', 'write']),
  expiresAt: isoTimestampField.nullable().optional(),
  pondId: z.uuid().nullable().optional(),
});

/** The ponds the tokens are restricted to, by id (a restriction's pond exists: deleting it deletes the token). */
async function restrictionPonds(tokens: AccessTokenRecord[]): Promise<Map<string, ApiTokenPondView>> {
  const ids = [...new Set(tokens.flatMap((token) => (token.pondId ? [token.pondId] : [])))];
  if (ids.length === 0) return new Map();
  const ponds = await Pond.findAll({ where: { id: ids }, attributes: ['id', 'slug', 'name'] });
  return new Map(ponds.map((pond) => [pond.id, { id: pond.id, slug: pond.slug, name: pond.name }]));
}

export const apiTokenRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/users/me/api-tokens',
    access: { kind: 'session' },
    handler: async ({ actor, services }) => {
      const tokens = await listAccessTokens(services.sequelize, actor.user.id);
      const ponds = await restrictionPonds(tokens);
      const now = new Date();
      const items: ApiTokenView[] = tokens.map((token) => presentApiToken(token, token.pondId ? (ponds.get(token.pondId) ?? null) : null, now));
      return { body: { items } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/users/me/api-tokens',
    access: { kind: 'session' },
    body: createTokenBody,
    handler: async ({ req, res, body, actor, subject, services }) => {
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) throw new ApiError('token_expiry_past', undefined, { path: 'expiresAt' });
      // A restriction names a pond the user can see; any other id answers as a missing pond.
      const pond = body.pondId ? (await authorizePond(services.sequelize, subject, body.pondId, 'visible')).pond : null;
      const created = await services.sequelize.transaction(async (transaction) => {
        await assertRoomForAccessToken(services.sequelize, actor.user.id, transaction);
        const result = await createAccessToken(services.sequelize, { userId: actor.user.id, name: body.name, scope: body.scope, expiresAt, pondId: pond?.id ?? null }, transaction);
        const { token } = result;
        await recordAudit(
          {
            actor: auditActorOf(actor.user),
            action: 'api.token_created',
            details: { tokenId: token.id, name: token.name, scope: token.scope, pondId: token.pondId, expiresAt: token.expiresAt?.toISOString() ?? null },
            ip: req.ip,
          },
          transaction,
        );
        return result;
      });
      // The secret is in this answer only: nothing may keep it.
      res.setHeader('Cache-Control', 'no-store');
      const token = presentApiToken(created.token, pond && { id: pond.id, slug: pond.slug, name: pond.name });
      return { status: 201, body: { token, secret: created.secret } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/users/me/api-tokens/:id',
    access: { kind: 'session' },
    handler: async ({ req, params, actor, services }) => {
      await services.sequelize.transaction(async (transaction) => {
        const token = await revokeAccessToken(services.sequelize, actor.user.id, params.id, transaction);
        // Another user's token, an unknown id and a revoked token look alike.
        if (!token) throw notFound();
        await recordAudit({ actor: auditActorOf(actor.user), action: 'api.token_revoked', details: { tokenId: token.id, name: token.name }, ip: req.ip }, transaction);
      });
    },
  }),
];
