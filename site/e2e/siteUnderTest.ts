/**
 * The instance and browser most browser tests share within their file: a test instance serving
 * the built site with the setup finished, and Chromium. `useSiteUnderTest()` registers the hooks
 * that start and stop both; the exported bindings are live, so a test reads them after `before`.
 */
import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { completeSetup } from '../../api/testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium } from './browserSession.ts';

export let instance: TestInstance;
export let browser: Browser;

export function useSiteUnderTest(): void {
  before(async () => {
    await ensureSiteBuilt();
    instance = await startTestInstance({ site: true });
    await completeSetup(instance);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await instance?.close();
  });
}
