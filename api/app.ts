/**
 * The Express application: the internal API under `/api/v1`, then (optionally) the Astro
 * site for everything else. Shared by the API process and the tests.
 */
import express, { type Express } from 'express';
import { checkSessionAhead, sessionCookieAuthentication } from './auth/authenticateRequest.ts';
import { ApiError } from './http/apiError.ts';
import { createErrorHandler } from './http/errorHandler.ts';
import { serveFontAsset } from './http/fontAssets.ts';
import { requestLogging } from './http/requestLogging.ts';
import { registerRoutes } from './http/routeTable.ts';
import { securityHeaders } from './http/securityHeaders.ts';
import { feedAliases } from './feeds/feedAliases.ts';
import { mountSitemap } from './publicPages/sitemap.ts';
import { mountMcpEndpoint } from './mcp/mcpEndpoint.ts';
import { mountPublicApi } from './publicApi/publicApiRouter.ts';
import { internalApiRoutes } from './routes/index.ts';
import type { AppServices } from './services.ts';
import { isSetupComplete } from './setup/setupState.ts';

const JSON_BODY_LIMIT = '1mb';

export async function createApp(services: AppServices, options: { site: boolean }): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', services.config.trustProxy);
  app.set('query parser', 'simple');
  app.use(requestLogging(services.logger));
  app.use(securityHeaders({ https: services.config.baseUrl.startsWith('https:') }));
  app.use((req, res, next) => (serveFontAsset(req, res) ? undefined : next()));

  const api = express.Router();
  // Answers here are per user unless a route says otherwise (feeds, media, legal set their
  // own policy, which replaces this one): no cache, shared or private, may keep them.
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'private, no-store');
    next();
  });
  // application/json and the +json types (e.g. merge-patch+json); routes refuse other bodies (validation.ts).
  api.use(express.json({ limit: JSON_BODY_LIMIT, strict: false, type: ['application/json', '+json'] }));
  registerRoutes(api, internalApiRoutes, services, { authenticate: sessionCookieAuthentication });
  app.use('/api/v1', api);
  // `/<pond>/feed.xml` and `/<pond>/<page>/feed.xml`: the same answers as the spec's feed routes.
  app.use(feedAliases(api));
  mountPublicApi(app, services);
  mountMcpEndpoint(app, services);
  app.use('/api', (_req, _res, next) => next(new ApiError('not_found')));
  mountSitemap(app, services.sequelize, services.config.baseUrl);

  if (options.site) {
    const { mountSite } = await import('./http/mountSite.ts');
    await mountSite(app, { isSetupComplete, beforeRender: (render, cookieHeader) => checkSessionAhead(render, cookieHeader, services) });
  }
  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use(createErrorHandler(services.logger));
  return app;
}
