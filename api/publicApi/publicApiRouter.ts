/**
 * `/api/public/v1` (spec: Public REST API; Versioning). The first step of the enforcement
 * order, the instance switch `api.enabled`, answers here for every path but the OpenAPI
 * document (a description of the API is no access to anything); the route table runs the rest:
 * the bearer token and its rate limit (bearerAuthentication.ts), the scope (the `token` rule),
 * then each handler the pond opt-in, the token's pond restriction and the permission model
 * (apiCall.ts). Cookies are never read on this router.
 */
import express, { type Express } from 'express';
import { ApiError } from '../http/apiError.ts';
import { registerRoutes } from '../http/routeTable.ts';
import type { AppServices } from '../services.ts';
import { getSetting } from '../settings/instanceSettings.ts';
import { bearerTokenAuthentication } from './bearerAuthentication.ts';
import { OPEN_API_PATH, publicApiRoutes } from './publicApiRoutes.ts';

export const PUBLIC_API_PREFIX = '/api/public/v1';
const JSON_BODY_LIMIT = '1mb';

export function mountPublicApi(app: Express, services: AppServices): void {
  const router = express.Router();
  router.use((req, _res, next) => {
    if (req.path === OPEN_API_PATH) return next();
    getSetting('api.enabled').then(
      (enabled) => next(enabled ? undefined : new ApiError('api_disabled', 404)),
      (error: unknown) => next(error),
    );
  });
  router.use(express.json({ limit: JSON_BODY_LIMIT, strict: false, type: ['application/json', '+json'] }));
  registerRoutes(router, publicApiRoutes, services, { authenticate: bearerTokenAuthentication });
  app.use(PUBLIC_API_PREFIX, router);
}
