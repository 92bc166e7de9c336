/**
 * A real instance for integration and browser tests: a fresh database, the real Express app
 * (optionally with the Astro site) on an ephemeral port, setup pending.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../app.ts';
import { bootstrapServices } from '../bootstrap.ts';
import { parseConfig } from '../config.ts';
import { attachCollabProxy } from '../http/collabProxy.ts';
import { createLogger, type Logger } from '../logger.ts';
import { startMentionListener, type MentionListener } from '../notifications/eventNotifications.ts';
import { startAccessChangeListener } from '../policies/accessChangeListener.ts';
import { invalidateAllPondAccess } from '../policies/pondAccessCache.ts';
import { startPublicLayer, type PublicLayer } from '../publicPages/publicLayer.ts';
import type { AppServices } from '../services.ts';
import { forgetSetupCompletion } from '../setup/setupState.ts';
import { createTestDatabase } from './testDatabase.ts';
import { startOidcTestProvider, type OidcTestProvider, type OidcTestProviderOptions } from './oidcTestProvider.ts';

export interface TestInstance {
  baseUrl: string;
  services: AppServices;
  publicLayer: PublicLayer;
  /** Delivers `mentioned` notifications from `page_mentions_changed`, as the API process does. */
  mentions: MentionListener;
  /** The OpenID Connect test provider the instance is configured with (option `oidc`). */
  oidc?: OidcTestProvider;
  close: () => Promise<void>;
}

export interface TestInstanceOptions {
  site?: boolean;
  /** Extra environment variables for the config (e.g. SMTP fallback, rate limits). */
  env?: Record<string, string>;
  /** False starts without BASE_URL, as a first `npm start` does (base URL defaults to localhost). */
  explicitBaseUrl?: boolean;
  /** The API's logger, e.g. one that keeps its lines for the test to read (api/testing/mailRelay.ts). */
  logger?: Logger;
  /**
   * Starts an OpenID Connect test provider (api/testing/oidcTestProvider.ts) whose client
   * redirects to this instance's callback, and sets OIDC_ISSUER, OIDC_CLIENT_ID and
   * OIDC_CLIENT_SECRET to it; `env` may still set the other OIDC_* variables (or override these).
   */
  oidc?: Omit<OidcTestProviderOptions, 'redirectUris'>;
}

export async function startTestInstance(options: TestInstanceOptions = {}): Promise<TestInstance> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dt-test-data-'));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const oidc = options.oidc ? await startOidcTestProvider({ ...options.oidc, redirectUris: [`${baseUrl}/api/v1/auth/oidc/callback`] }) : undefined;
  const oidcEnv = oidc ? { OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId, OIDC_CLIENT_SECRET: oidc.clientSecret } : {};
  const config = parseConfig({
    PORT: String(port),
    ...(options.explicitBaseUrl === false ? {} : { BASE_URL: baseUrl }),
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: process.env.DT_TEST_LOG_LEVEL ?? 'silent',
    // Hashing cost is irrelevant to what these tests assert: the lowest the config allows.
    // Hashing itself is tested in api/auth/passwords.test.ts (the default, 17) and in
    // api/routes/authSessionRoutes.test.ts (raising a stored cost at sign-in).
    PASSWORD_HASH_COST: '10',
    ...oidcEnv,
    ...options.env,
  });
  const services = await bootstrapServices(config, database.url, options.logger ?? createLogger(config.logLevel));
  forgetSetupCompletion();
  invalidateAllPondAccess();
  const accessChanges = startAccessChangeListener(database.url, services.logger);
  const mentions = startMentionListener(services.sequelize, database.url, services.logger);
  const app = await createApp(services, { site: options.site ?? false });
  const publicLayer = startPublicLayer(services, database.url);
  server.on('request', publicLayer.listener(app));
  const collabProxy = attachCollabProxy(server, () => config.collab, services.logger);
  return {
    baseUrl,
    services,
    publicLayer,
    mentions,
    ...(oidc ? { oidc } : {}),
    close: async () => {
      server.closeAllConnections();
      collabProxy.closeTunnels();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await accessChanges.stop();
      await mentions.stop();
      await publicLayer.stop();
      await services.sequelize.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      await oidc?.close();
    },
  };
}
