/**
 * Single sign-on with an identity provider that cannot be reached, in Chromium: the login page
 * still offers "Sign in with …" (the label is configuration, not discovery), and the button
 * leads back to the login page at once with `oidc_discovery_failed` in words above the password
 * form, which keeps working. Its own file: a test instance per process (the models are bound to
 * one database), and site/e2e/sso.test.ts needs one with a reachable provider.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { signInRefusalText } from '../../editor/src/account/signInRefusals.ts';
import { ADMIN, completeSetup } from '../../api/testing/fixtures.ts';
import { freePort } from '../../api/testing/freePort.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, waitForIslands } from './browserSession.ts';

const LABEL = 'Teichwerk ID';

let instance: TestInstance;
let browser: Browser;

before(async () => {
  await ensureSiteBuilt();
  // A port nothing listens on: discovery is refused at once.
  const issuer = `http://127.0.0.1:${await freePort()}`;
  instance = await startTestInstance({ site: true, env: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'dorfteich', OIDC_CLIENT_SECRET: 'secret', OIDC_PROVIDER_LABEL: LABEL } });
  await completeSetup(instance);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

for (const shape of SCREEN_SHAPES) {
  test(`the button leads back to the login page with the refusal, and the password still signs in (${shape.name})`, { timeout: 60_000 }, async () => {
    const session = await openSession(browser, shape, 'sso-unreachable');
    const { page, t, problems } = session;
    try {
      await session.visit(`${instance.baseUrl}/login?next=%2Fsearch`);
      const button = page.getByRole('link', { name: t('sso.login.signInWith', { label: LABEL }) });
      await Promise.all([page.waitForURL((url) => url.searchParams.get('error') === 'oidc_discovery_failed'), button.click()]);
      await waitForIslands(page);
      const refusal = page.getByRole('alert').filter({ hasText: /\S/ });
      assert.equal((await refusal.textContent())?.trim(), signInRefusalText('oidc_discovery_failed', LABEL, t));
      await session.check('login-refused');

      await page.getByLabel(t('field.login')).fill(ADMIN.username);
      await page.getByLabel(t('field.password')).fill(ADMIN.password);
      await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.getByRole('button', { name: t('login.submit') }).click()]);
      assert.deepEqual(problems, []);
    } finally {
      await session.context.close();
    }
  });
}
