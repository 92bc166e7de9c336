/**
 * Every screen there is, checked with axe-core (site/e2e/axe.ts) on a desktop (1280 px) in
 * English and a phone (390 px) in German (the narrow width meets the longer words): the setup wizard's steps, home signed in and
 * out, settings, sign-in (also with its error), sign-up, forgot-password with and without
 * mail, reset-password, verify-email and the 404 page, each in the light and the dark colour
 * scheme. A screenshot of each lands in
 * `DT_SCREENSHOT_DIR` (default test-output/e2e) as `screens-<shape>-<screen>.png`, for a
 * person to look at; the checks here are what a machine can judge: no serious or critical
 * axe finding, a visible focus ring on every Tab stop, the page's language, no console
 * errors, and nothing wider than the window.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { saveSmtpRelay } from '../../api/testing/mailRelay.ts';
import { closedPort } from '../../api/testing/smtpTestServer.ts';
import { startTestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { expectAccessible } from './axe.ts';
import { expectVisibleFocus } from './focusIndicator.ts';
import { SCREEN_SHAPES, launchChromium, openSession, waitForIslands, walkSetupToMailStep } from './browserSession.ts';
import { expectNoSidewaysScroll } from './screenChecks.ts';

describe('every screen, accessible on a desktop in English and a phone in German', () => {
  let browser: Browser;

  before(async () => {
    await ensureSiteBuilt();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  test('the check itself fails on a serious finding and names it', { timeout: 30_000 }, async () => {
    const page = await browser.newPage();
    try {
      await page.setContent('<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>Pond</h1><p>fine</p></main></body></html>');
      await expectAccessible(page, 'a clean page');
      await page.evaluate(() => {
        const button = document.createElement('button');
        button.innerHTML = '<svg width="10" height="10"></svg>';
        document.querySelector('main')?.append(button);
      });
      await assert.rejects(expectAccessible(page, 'a button without a name'), /\[critical\] button-name[\s\S]*\n    button: /);
    } finally {
      await page.close();
    }
  });

  for (const shape of SCREEN_SHAPES) {
    test(`all screens (${shape.name})`, { timeout: 120_000 }, async () => {
      // One instance per run: the wizard happens once per instance.
      const instance = await startTestInstance({ site: true });
      const { context, page, t, problems, screenshot, visit } = await openSession(browser, shape, 'screens');
      /** The screen as it is now: axe, language, width, and a screenshot. */
      const check = async (screen: string) => {
        assert.equal(await page.locator('html').getAttribute('lang'), shape.locale, `${screen}: the page's language`);
        await expectNoSidewaysScroll(page, screen);
        await screenshot(screen);
        // Both colour schemes: the palette has a dark variant (site/src/styles/global.css).
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          await expectAccessible(page, `${screen} (${shape.name}, ${colorScheme})`);
          await expectVisibleFocus(page, `${screen} (${shape.name}, ${colorScheme})`);
        }
        await page.emulateMedia({ colorScheme: 'light' });
      };
      try {
        await visit(instance.baseUrl);
        assert.equal(new URL(page.url()).pathname, '/setup');
        await walkSetupToMailStep(page, t, check);
        await page.getByRole('button', { name: t('setup.smtp.skip') }).click();

        await page.getByRole('heading', { name: t('setup.registration.heading') }).waitFor();
        await page.getByLabel(t('setup.registration.open')).check();
        await page.getByText(t('setup.registration.noMailWarning')).waitFor();
        await check('setup-registration');
        await page.getByRole('button', { name: t('setup.continue') }).click();

        await page.getByRole('heading', { name: t('setup.done.heading') }).waitFor();
        await check('setup-done');
        await page.getByRole('button', { name: t('setup.done.finish') }).click();

        await page.getByRole('heading', { level: 1, name: t('home.greeting', { name: 'Ada Lovelace' }) }).waitFor();
        await waitForIslands(page);
        await check('home');
        const headerHeight = () => page.locator('.site-header').evaluate((header) => header.getBoundingClientRect().height);
        const homeHeader = await headerHeight();

        await visit(`${instance.baseUrl}/settings`);
        await check('settings');
        // The current page's link is bold; that must not wrap the navigation differently.
        assert.equal(await headerHeight(), homeHeader, 'the header is as high on settings as on home');
        await page.getByLabel(t('profile.digest.daily')).check();
        await page.getByRole('button', { name: t('profile.submit') }).click();
        await page.getByText(t('profile.saved')).waitFor();
        await check('settings-saved');

        await page.locator('.user-menu-button').click();
        await page.getByRole('menuitem', { name: t('nav.signOut') }).click();
        await page.getByRole('heading', { level: 1, name: t('home.landingHeading', { instance: 'Testteich' }) }).waitFor();
        await check('landing');

        await visit(`${instance.baseUrl}/login`);
        await check('login');
        // For the person looking at the screenshots: the focus ring as a keyboard user sees it.
        await page.getByLabel(t('field.login')).focus();
        await page.keyboard.press('Tab');
        await screenshot('login-focus');
        await page.getByLabel(t('field.login')).fill('ada');
        await page.getByLabel(t('field.password')).fill('not the password');
        await page.getByRole('button', { name: t('login.submit') }).click();
        await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor();
        await check('login-failed');

        await visit(`${instance.baseUrl}/signup`);
        await check('signup');

        await visit(`${instance.baseUrl}/forgot-password`);
        await page.getByText(t('forgot.unavailable')).waitFor();
        await check('forgot-password-no-mail');

        await saveSmtpRelay(instance, await closedPort());
        await visit(`${instance.baseUrl}/forgot-password`);
        await page.getByText(t('forgot.intro')).waitFor();
        await check('forgot-password');

        await visit(`${instance.baseUrl}/reset-password?token=not-a-token`);
        await check('reset-password');
        await page.getByLabel(t('field.newPassword')).fill('a brand new password');
        await page.getByLabel(t('field.confirmPassword')).fill('a brand new password');
        await page.getByRole('button', { name: t('reset.submit') }).click();
        await page.getByRole('link', { name: t('reset.requestNew') }).waitFor();
        await check('reset-password-dead-link');

        await visit(`${instance.baseUrl}/verify-email?token=not-a-token`);
        await page.getByRole('heading', { name: t('verify.resendHeading') }).waitFor();
        await check('verify-email-failed');

        await visit(`${instance.baseUrl}/no-such-page`);
        await check('not-found');

        const unexpected = problems.filter((problem) => !/status of (400|401|404)/.test(problem));
        assert.deepEqual(unexpected, [], 'no console errors or CSP violations beyond the failed requests the screens show');
      } finally {
        await context.close();
        await instance.close();
      }
    });
  }
});
