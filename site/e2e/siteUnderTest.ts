/**
 * The instance and browser most browser tests share within their file: a test instance serving
 * the built site with the setup finished, a collab server on the port the instance proxies
 * `/collab` to (so the page screen's editor connects as in production), and Chromium.
 * `useSiteUnderTest()` registers the hooks that start and stop them; the exported bindings are
 * live, so a test reads them after `before`.
 */
import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { createLogger } from '../../api/logger.ts';
import { completeSetup } from '../../api/testing/fixtures.ts';
import { freePort } from '../../api/testing/freePort.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { startCollabServer, type CollabServer } from '../../collab/collabServer.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium } from './browserSession.ts';

export let instance: TestInstance;
export let collab: CollabServer;
export let browser: Browser;

export function useSiteUnderTest(): void {
  before(async () => {
    await ensureSiteBuilt();
    const port = await freePort();
    instance = await startTestInstance({ site: true, env: { COLLAB_PORT: String(port) } });
    await completeSetup(instance);
    const { config, sequelize } = instance.services;
    collab = await startCollabServer({ databaseUrl: config.databaseUrl!, sequelize, sessionSecret: config.sessionSecret, logger: createLogger(process.env.DT_TEST_LOG_LEVEL ?? 'silent', 'collab'), port, storeDebounceMs: 50 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await collab?.close();
    await instance?.close();
  });
}
